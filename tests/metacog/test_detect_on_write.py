"""Detection → alert → resolution, end to end through the public API (no manual links)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import ManualClock, Memory

S = "user:alice"


@pytest.fixture()
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "d.db", embedder="hash", clock=ManualClock(), seed=0) as m:
        yield m


@pytest.mark.parametrize(
    ("a", "b", "axis"),
    [
        ("Alice is allergic to peanuts", "Alice is not allergic to peanuts", "polarity"),
        ("The API rate limit is 100 requests per minute", "The API rate limit is 500 requests per minute", "numeric"),
        ("Alice lives in Paris", "Alice lives in Berlin", "entity"),
        ("The launch is on May 3", "The launch is on May 10", "temporal"),
    ],
)
def test_remember_detects_each_axis_and_keeps_both(mem: Memory, a: str, b: str, axis: str) -> None:
    x = mem.remember(a, scope=S)
    y = mem.remember(b, scope=S)
    edges = [e for e in mem.edges(y.id, scope=S) if e.type == "contradicts"]
    assert len(edges) == 1 and edges[0].meta["axis"] == axis
    assert {edges[0].src, edges[0].dst} == {x.id, y.id}
    assert mem.get(x.id, scope=S).is_current and mem.get(y.id, scope=S).is_current
    spans = edges[0].meta["spans_a"] + edges[0].meta["spans_b"]
    assert spans and all(s["text"] for s in spans)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice lives in Paris", "Bob lives in Berlin"),
        ("Alice lives in Paris", "Alice lives in Paris, France"),
        ("The meeting takes 1 hour", "The meeting takes 60 minutes"),
    ],
)
def test_compatible_claims_are_not_linked(mem: Memory, a: str, b: str) -> None:
    mem.remember(a, scope=S)
    y = mem.remember(b, scope=S)
    assert [e for e in mem.edges(y.id, scope=S) if e.type == "contradicts"] == []


def test_same_key_different_value_conflicts(mem: Memory) -> None:
    mem.remember("Alice's city", scope=S, key="alice.city", value="Paris")
    y = mem.remember("Where Alice is based", scope=S, key="alice.city", value="Berlin")
    assert [e.meta["axis"] for e in mem.edges(y.id, scope=S) if e.type == "contradicts"] == ["entity"]


def test_detect_alert_resolve_end_to_end(mem: Memory) -> None:
    trusted = mem.remember_manual("The on-call engineer is Bob", scope=S)
    rumour = mem.remember("The on-call engineer is Carol", scope=S, source="inferred")
    alerts = mem.contradictions(scope=S, alerts_only=True)
    assert len(alerts) == 1 and alerts[0].alert
    mem.resolve(alerts[0].edge_id, keep=trusted.id, scope=S, reason="checked the roster")
    assert mem.contradictions(scope=S) == []
    ids = [h.item.id for h in mem.recall("who is the on-call engineer", scope=S, record_use=False)]
    assert trusted.id in ids and rumour.id not in ids
    assert mem.get(rumour.id, scope=S).status == "superseded"


def test_detection_can_be_turned_off(tmp_path: Path) -> None:
    with Memory(tmp_path / "off.db", embedder="hash", detect_conflicts=False) as m:
        m.remember("Alice lives in Paris", scope=S)
        y = m.remember("Alice lives in Berlin", scope=S)
        assert m.edges(y.id, scope=S) == []


def test_detection_is_idempotent(mem: Memory) -> None:
    x = mem.remember("Alice lives in Paris", scope=S)
    mem.remember("Alice lives in Berlin", scope=S)
    assert mem.detect_conflicts(x.id, scope=S) == []
    assert len(mem.contradictions(scope=S)) == 1


def test_link_is_idempotent_and_symmetric_for_contradicts(mem: Memory) -> None:
    x = mem.remember("Alice lives in Paris", scope=S)
    y = mem.remember("Alice lives in Berlin", scope=S)
    detected = [e for e in mem.edges(y.id, scope=S) if e.type == "contradicts"]
    again = mem.link(y.id, x.id, "contradicts", scope=S)
    assert [again.id] == [e.id for e in detected]
    sup1 = mem.link(x.id, y.id, "supports", scope=S)
    sup2 = mem.link(x.id, y.id, "supports", scope=S)
    reverse = mem.link(y.id, x.id, "supports", scope=S)  # directed: a new edge
    assert sup1.id == sup2.id != reverse.id
