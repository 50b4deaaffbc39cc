"""Bias alerts: computed by each dream pass, listed by ``alerts()``, dismissed by event — real SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from reverie import InvalidInputError, ManualClock, Memory, NotFoundError
from reverie.dream import DreamConfig
from reverie.testing import EPOCH

S = "user:alice"


@pytest.fixture()
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "b.db", embedder="hash", clock=ManualClock(EPOCH), seed=0, detect_conflicts=False) as m:
        yield m


def _kinds(mem: Memory, **kw: object) -> list[tuple[str, str]]:
    return [(a.kind, a.subject) for a in mem.alerts(scope=S, **kw)]  # type: ignore[arg-type]


def _one_source(mem: Memory, author: str = "bob") -> list[str]:
    texts = ["Rosa lives in Seattle", "Rosa works at the harbour office", "Rosa speaks Portuguese"]
    return [mem.remember(t, scope=S, source="user_stated", author=author).id for t in texts]


def test_one_author_behind_a_subjects_established_beliefs_is_a_single_source_alert(mem: Memory) -> None:
    ids = _one_source(mem)
    mem.dream(scope=S)
    (alert,) = [a for a in mem.alerts(scope=S) if a.kind == "single_source"]
    assert alert.subject == "rosa" and set(alert.items) == set(ids)
    assert "bob" in alert.reason and "100%" in alert.reason


def test_corroboration_by_other_authors_counts_for_them_not_for_the_first_author(mem: Memory) -> None:
    """Outside probe 7, finding 6: three authors stating each belief read as "100 % of the
    evidence … from one source (the first author)"."""
    for author in ("bob", "carla", "dev"):
        _one_source(mem, author)
    mem.dream(scope=S)
    assert ("single_source", "rosa") not in _kinds(mem)


def test_corroboration_by_one_other_author_makes_that_author_the_single_source(mem: Memory) -> None:
    """Beliefs first said by three authors, then repeated four times each by ``erin``: erin now
    supplies 12 of 15 pieces of evidence, and the alert names erin, not the first authors."""
    texts = ["Rosa lives in Seattle", "Rosa works at the harbour office", "Rosa speaks Portuguese"]
    for text, first in zip(texts, ("bob", "carla", "dev"), strict=True):
        mem.remember(text, scope=S, source="user_stated", author=first)
        for _ in range(4):
            mem.remember(text, scope=S, source="user_stated", author="erin")
    mem.dream(scope=S)
    (alert,) = [a for a in mem.alerts(scope=S) if a.kind == "single_source"]
    assert "(erin)" in alert.reason and "80%" in alert.reason


def test_evidence_from_two_authors_is_no_single_source_alert(mem: Memory) -> None:
    mem.remember("Rosa lives in Seattle", scope=S, source="user_stated", author="bob")
    mem.remember("Rosa works at the harbour office", scope=S, source="user_stated", author="carla")
    mem.remember("Rosa speaks Portuguese", scope=S, source="user_stated", author="dev")
    mem.dream(scope=S)
    assert ("single_source", "rosa") not in _kinds(mem)


def test_a_corroborated_high_authority_belief_never_contradicted_is_never_tested(mem: Memory) -> None:
    for _ in range(3):
        item = mem.remember("The payments service is written in Go", scope=S, source="user_stated")
    assert item.evidence_count == 3
    mem.dream(scope=S)
    assert ("never_tested", "payments") in _kinds(mem)


def test_a_belief_once_contradicted_even_if_resolved_has_been_tested(mem: Memory) -> None:
    for _ in range(3):
        item = mem.remember("The payments service is written in Go", scope=S, source="user_stated")
    other = mem.remember("The payments service is written in Java", scope=S, source="inferred")
    edge = mem.link(item.id, other.id, "contradicts", scope=S, meta={"axis": "entity"})
    mem.resolve(edge.id, keep=item.id, scope=S, reason="checked the repo")
    mem.dream(scope=S)
    assert ("never_tested", "payments") not in _kinds(mem)


def test_confidence_far_above_the_evidence_is_an_overconfident_alert(mem: Memory) -> None:
    shaky = mem.remember("Kai has never been to Japan", scope=S, source="inferred", scores={"confidence": 0.99})
    mem.remember("Kai likes tea", scope=S, source="inferred")  # default confidence: no alert
    mem.dream(scope=S)
    (alert,) = mem.alerts(scope=S, kind="overconfident")
    assert alert.items == (shaky.id,) and alert.subject == "kai"


def test_recall_answered_by_recent_items_while_old_ones_match_is_recency_bias(mem: Memory) -> None:
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    old = mem.remember("The gateway timeout is 30 seconds", scope=S, source="observed")
    clock.advance(days=60)
    new = mem.remember("The gateway timeout was discussed in standup", scope=S, source="observed")
    clock.advance(days=1)
    mem.record_use(S, [(new.id, 1.0)], "what is the gateway timeout")
    mem.dream(scope=S)
    (alert,) = mem.alerts(scope=S, kind="recency_bias")
    assert set(alert.items) == {old.id, new.id} and "1 older item" in alert.reason


def test_no_pass_no_alerts_and_a_pass_with_alerts_off_keeps_none(mem: Memory) -> None:
    _one_source(mem)
    assert mem.alerts(scope=S) == []
    mem.dream(scope=S, config=DreamConfig(alerts=False))
    assert mem.alerts(scope=S) == []


def test_a_pass_with_alerts_off_does_not_leave_an_older_passs_alerts_standing(mem: Memory) -> None:
    _one_source(mem)
    mem.dream(scope=S)
    assert mem.alerts(scope=S) != []
    mem.dream(scope=S, config=DreamConfig(alerts=False))
    assert mem.alerts(scope=S) == []


def test_a_dismissed_alert_stays_dismissed_across_passes_until_its_evidence_changes(mem: Memory) -> None:
    ids = _one_source(mem)
    mem.dream(scope=S)
    (alert,) = [a for a in mem.alerts(scope=S) if a.kind == "single_source"]
    done = mem.dismiss_alert(alert.id, scope=S, reason="Bob is the person himself")
    assert done.dismissed and done.id == alert.id
    assert alert.id not in {a.id for a in mem.alerts(scope=S)}
    assert alert.id in {a.id for a in mem.alerts(scope=S, include_dismissed=True) if a.dismissed}
    mem.dream(scope=S)
    assert alert.id not in {a.id for a in mem.alerts(scope=S)}
    mem.remember("Rosa lives in Seattle", scope=S, source="user_stated", author="bob")  # more evidence
    assert mem.get(ids[0], scope=S).evidence_count == 2  # type: ignore[union-attr]
    mem.dream(scope=S)
    back = [a for a in mem.alerts(scope=S) if a.id == alert.id]
    assert back and back[0].evidence != alert.evidence and not back[0].dismissed


def test_dismissal_is_an_event_in_the_log(mem: Memory) -> None:
    _one_source(mem)
    mem.dream(scope=S)
    alert = mem.alerts(scope=S)[0]
    mem.dismiss_alert(alert.id, scope=S, reason="known")
    (event,) = [e for e in mem.events(scope=S) if e.type == "alert.dismissed"]
    assert event.payload["alert"] == alert.id and event.payload["evidence"] == alert.evidence
    assert event.payload["reason"] == "known"


def test_dismissing_a_bad_or_unknown_alert_id_is_refused_and_writes_nothing(mem: Memory) -> None:
    _one_source(mem)
    mem.dream(scope=S)
    before = len(mem.events(scope=S, limit=1000))
    with pytest.raises(InvalidInputError, match="al_"):
        mem.dismiss_alert("nope", scope=S)
    with pytest.raises(NotFoundError, match="alerts"):
        mem.dismiss_alert("al_0123456789abcdef", scope=S)
    with pytest.raises(InvalidInputError, match="kind must be one of"):
        mem.alerts(scope=S, kind="vibes")
    assert len(mem.events(scope=S, limit=1000)) == before


def test_alert_ids_are_stable_across_passes_and_the_clock(mem: Memory) -> None:
    _one_source(mem)
    mem.dream(scope=S)
    first = [(a.id, a.evidence) for a in mem.alerts(scope=S)]
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    clock.advance(timedelta(days=3))
    mem.dream(scope=S)
    assert [(a.id, a.evidence) for a in mem.alerts(scope=S)] == first
