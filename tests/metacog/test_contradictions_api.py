"""Alerts and resolution through the public API, on a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import InvalidInputError, ManualClock, Memory, NotFoundError

S = "user:alice"


@pytest.fixture()
def mem(tmp_path: Path) -> Iterator[Memory]:
    # Links are made by hand here, so automatic detection is off to keep the edge set exact.
    with Memory(tmp_path / "c.db", embedder="hash", clock=ManualClock(), seed=0, detect_conflicts=False) as m:
        yield m


def _conflict(mem: Memory, a: str, b: str, **kw: object) -> tuple[str, str, str]:
    x = mem.remember(a, scope=S, **kw)  # type: ignore[arg-type]
    y = mem.remember(b, scope=S)
    edge = mem.link(x.id, y.id, "contradicts", scope=S, meta={"axis": "entity", "confidence": 0.9, "reason": "r"})
    return x.id, y.id, edge.id


def test_conflict_with_manual_belief_is_an_alert_and_ranks_first(mem: Memory) -> None:
    churn_a = mem.remember("The bot guessed the cat is named Tom", scope=S, source="inferred")
    churn_b = mem.remember("The bot guessed the cat is named Tim", scope=S, source="inferred")
    mem.link(churn_a.id, churn_b.id, "contradicts", scope=S, meta={"axis": "entity"})
    manual = mem.remember_manual("Alice lives in Paris", scope=S)
    other = mem.remember("Alice lives in Berlin", scope=S, source="inferred")
    edge = mem.link(manual.id, other.id, "contradicts", scope=S, meta={"axis": "entity"})
    alerts = mem.contradictions(scope=S)
    assert alerts[0].edge_id == edge.id
    assert alerts[0].alert is True and alerts[1].alert is False
    assert [a.edge_id for a in mem.contradictions(scope=S, alerts_only=True)] == [edge.id]


def test_hypercorrection_is_surfaced_first(mem: Memory) -> None:
    est = mem.remember_manual("The launch is on May 3", scope=S)
    mem.remember_manual("The launch is on May 3", scope=S)
    other = mem.remember("The launch is on May 10", scope=S)
    mem.link(est.id, other.id, "contradicts", scope=S, meta={"axis": "temporal"})
    confident = mem.remember("The budget is 5000 euros", scope=S, confidence=0.95, authority=0.3)
    stronger = mem.remember("The budget is 7000 euros", scope=S, authority=0.9)
    mem.remember("The budget is 7000 euros", scope=S)  # corroborated
    hyper = mem.link(confident.id, stronger.id, "contradicts", scope=S, meta={"axis": "numeric"})
    alerts = mem.contradictions(scope=S)
    assert alerts[0].edge_id == hyper.id and alerts[0].hypercorrection


def test_resolve_supersedes_loser_and_alert_and_recall_both_see_it(mem: Memory) -> None:
    keep, lose, edge = _conflict(mem, "The on-call engineer is Bob", "The on-call engineer is Carol")
    derived = mem.remember("Page Carol for incidents", scope=S, parents=[lose])
    before = {h.item.id for h in mem.recall("on-call engineer", scope=S, record_use=False)}
    assert {keep, lose} <= before
    mem.resolve(edge, keep=keep, scope=S, reason="roster checked")
    assert mem.contradictions(scope=S) == []
    after = [h.item.id for h in mem.recall("on-call engineer", scope=S, record_use=False)]
    assert lose not in after and keep in after
    loser = mem.get(lose, scope=S)
    assert loser.status == "superseded" and loser.closed_at is not None
    assert loser.scores.authority < mem.get(keep, scope=S).scores.authority
    assert any(e.type == "supersedes" and e.src == keep and e.dst == lose for e in mem.edges(lose, scope=S))
    d = mem.get(derived.id, scope=S)
    assert "stale_derived" in d.flags and d.tier == "subconscious"
    assert mem.doctor().ok


def test_resolve_refuses_keep_outside_conflict_and_unknown_conflict(mem: Memory) -> None:
    keep, _lose, edge = _conflict(mem, "Alice is vegan", "Alice eats fish")
    stranger = mem.remember("Unrelated", scope=S)
    with pytest.raises(InvalidInputError):
        mem.resolve(edge, keep=stranger.id, scope=S)
    with pytest.raises(NotFoundError):
        mem.resolve(stranger.id, keep=keep, scope=S)
    with pytest.raises(NotFoundError):
        mem.resolve(edge, keep=keep, scope="user:bob")
    assert len(mem.contradictions(scope=S)) == 1
