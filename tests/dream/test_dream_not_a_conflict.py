"""A contradiction a person closed as "not a conflict" stays closed (outside probe 7, finding 5).

Before: ``unlink`` closed the edge, and the next dream pass linked the same pair again through the
near-duplicate step (axis ``unspecified``), after every unlink; write-time detection did the same.
Now a closed ``contradicts`` edge between two claims both still believed is the person's word that
they do not conflict: no detector links that pair again. A new version of either claim (revise: a
new id) is checked again.
"""

from __future__ import annotations

import pytest

from reverie import ManualClock, Memory
from reverie.errors import AlreadyClosedError, InvalidInputError, NotFoundError

S = "user:pool"
SEVEN, NINE = "The pool opens at 7 am.", "The pool opens at 9 am."
WHY = "both true: summer and winter hours"


def _pair(mem: Memory, clock: ManualClock) -> tuple[str, str, str]:
    a = mem.remember(SEVEN, scope=S, source="user_stated")
    clock.advance(days=1)
    b = mem.remember_checked(NINE, scope=S, source="user_stated")
    (conflict,) = b.conflicts
    return a.id, b.item.id, conflict.edge_id


def _contradicts(mem: Memory) -> list[tuple[str, ...]]:
    """Every contradicts edge ever recorded in the scope (open or closed), as its pair."""
    return [tuple(sorted((e.src, e.dst))) for e in mem.edges(scope=S, include_closed=True) if e.type == "contradicts"]


@pytest.mark.parametrize("how", ["unlink", "dismiss_contradiction"])
def test_a_contradiction_closed_as_not_a_conflict_stays_closed_through_dream(
    mem: Memory, clock: ManualClock, how: str
) -> None:
    a, b, edge = _pair(mem, clock)
    getattr(mem, how)(edge, scope=S, reason=WHY)
    for _ in range(2):
        clock.advance(days=1)
        mem.dream(scope=S)
        assert mem.contradictions(scope=S) == []
    assert _contradicts(mem) == [tuple(sorted((a, b)))]  # the one edge the write made, closed
    assert mem.get(a, scope=S).is_current and mem.get(b, scope=S).is_current


def test_write_time_detection_does_not_link_a_pair_a_person_said_does_not_conflict(
    mem: Memory, clock: ManualClock
) -> None:
    a, b, edge = _pair(mem, clock)
    mem.dismiss_contradiction(edge, scope=S, reason=WHY)
    assert mem.detect_conflicts(b, scope=S) == [] and mem.detect_conflicts(a, scope=S) == []
    assert mem.remember_checked(NINE, scope=S, source="user_stated").conflicts == ()  # corroborates b
    assert mem.contradictions(scope=S) == []


def test_a_new_version_of_either_claim_is_checked_again(mem: Memory, clock: ManualClock) -> None:
    a, _, edge = _pair(mem, clock)
    mem.dismiss_contradiction(edge, scope=S, reason=WHY)
    clock.advance(days=1)
    ten = mem.revise_checked(a, "The pool opens at 10 am.", scope=S)
    assert len(ten.conflicts) == 1  # a new claim (a new id): the person said nothing about it
    assert len(mem.contradictions(scope=S)) == 1


def test_the_dismissal_survives_a_rebuild_from_the_log(mem: Memory, clock: ManualClock) -> None:
    _, b, edge = _pair(mem, clock)
    mem.dismiss_contradiction(edge, scope=S, reason=WHY)
    mem.rebuild()
    assert mem.detect_conflicts(b, scope=S) == []
    clock.advance(days=1)
    mem.dream(scope=S)
    assert mem.contradictions(scope=S) == []
    (unlinked,) = [e for e in mem.events(scope=S, limit=1000) if e.type == "edge.unlinked"]
    assert unlinked.payload["edge_id"] == edge and unlinked.payload["reason"] == WHY


def test_dismiss_contradiction_returns_the_closed_edge(mem: Memory, clock: ManualClock) -> None:
    _, _, edge = _pair(mem, clock)
    closed = mem.dismiss_contradiction(edge, scope=S, reason=WHY)
    assert (closed.id, closed.type, closed.is_current) == (edge, "contradicts", False)


def test_dismiss_contradiction_refuses_what_is_not_an_open_conflict(mem: Memory, clock: ManualClock) -> None:
    a, b, edge = _pair(mem, clock)
    about = mem.link(a, b, "supports", scope=S)
    with pytest.raises(InvalidInputError, match="supports edge, not a contradiction"):
        mem.dismiss_contradiction(about.id, scope=S)
    with pytest.raises(NotFoundError, match="no open conflict"):
        mem.dismiss_contradiction("0190f0f0-0000-7000-8000-000000000000", scope=S)
    with pytest.raises(InvalidInputError, match="conflict"):
        mem.dismiss_contradiction("not an id", scope=S)
    mem.dismiss_contradiction(edge, scope=S)
    with pytest.raises(AlreadyClosedError, match="already closed"):
        mem.dismiss_contradiction(edge, scope=S)


def test_the_dream_recheck_of_recent_claims_does_not_link_the_pair_again(mem: Memory, clock: ManualClock) -> None:
    """The dream's re-run of write-time detection (``recheck_days``) honours the dismissal too."""
    from reverie.dream import DreamConfig

    _, _, edge = _pair(mem, clock)
    mem.dismiss_contradiction(edge, scope=S, reason=WHY)
    report = mem.dream(scope=S, config=DreamConfig(recheck_days=30))
    assert any(a.op == "detect_conflicts" for a in report.actions)  # the recheck ran on both claims
    assert mem.contradictions(scope=S) == []
