"""A dismissed temporal pattern stays dismissed until the pattern changes in kind.

Outside probe 4, finding 12: the user dismissed "usually on Mondays" for the deploy failures; the
next pass planned the same pattern again (refused by the tombstone, ``skipped`` on every pass), and
after one more Monday failure the pattern's text changed only in its counts ("15 of 15 events"), so
the tombstone on the old text no longer matched and the pattern was written again, live. A pattern
is one kind of event, rule and value (``meta.pattern.key``); its counts are not what was dismissed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reverie import ManualClock, Memory, Q
from reverie.model.item import Item

S = "ops"
MONDAY = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)


@pytest.fixture()
def mem(tmp_path: Path) -> Iterator[Memory]:
    clock = ManualClock(MONDAY + timedelta(weeks=15))
    with Memory(tmp_path / "p.db", embedder="hash", clock=clock, seed=0) as m:
        yield m


def _fail(mem: Memory, week: int, what: str = "The deploy failed on build") -> None:
    mem.remember(
        f"{what} {4400 + week}",
        scope=S,
        kind="observation",
        source="observed",
        valid_from=MONDAY + timedelta(weeks=week),
    )


def _live(mem: Memory, like: Item | None = None) -> list[Item]:
    """The current patterns (of ``like``'s kind of event, rule and value only, if given)."""
    found = [p for p in mem.list(scope=S, where=Q.kind("pattern"), limit=100).items if p.is_current]
    return found if like is None else [p for p in found if p.meta["pattern"]["key"] == like.meta["pattern"]["key"]]


def _advance(mem: Memory) -> None:
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    clock.advance(days=1)


def _dismissed_monday_pattern(mem: Memory) -> Item:
    for week in range(14):
        _fail(mem, week)
    mem.dream(scope=S)
    (monday,) = [p for p in _live(mem) if "Mondays" in p.text]
    mem.dismiss(monday.id, scope=S, reason="deploys just happen on Mondays; not a failure pattern")
    _advance(mem)
    return monday


def test_a_dismissed_pattern_is_not_written_again_when_one_more_event_changes_its_counts(mem: Memory) -> None:
    dismissed = _dismissed_monday_pattern(mem)
    _fail(mem, 14)  # one more Monday failure: the pattern would read "15 of 15 events"
    _advance(mem)
    report = mem.dream(scope=S)
    assert _live(mem, dismissed) == []
    assert [a.op for a in report.actions if a.step == "pattern"] == ["remember_pattern"]  # the hour pattern
    assert "Mondays" not in report.actions[[a.step for a in report.actions].index("pattern")].params["text"]
    assert report.stats["patterns_dismissed"] == 1


def test_a_pass_after_the_dismissal_plans_nothing_for_the_dismissed_pattern(mem: Memory) -> None:
    """Not planned and refused (``skipped``) on every pass: not planned at all."""
    dismissed = _dismissed_monday_pattern(mem)
    for _ in range(2):
        report = mem.dream(scope=S)
        assert report.count(step="pattern") == 0, [(a.op, a.reason) for a in report.actions if a.step == "pattern"]
        assert report.stats["patterns_dismissed"] == 1
        _advance(mem)
    assert _live(mem, dismissed) == []


def test_a_pattern_of_another_kind_of_event_is_still_found(mem: Memory) -> None:
    _dismissed_monday_pattern(mem)
    for week in range(14):
        _fail(mem, week, "The nightly backup stalled on volume")
    _advance(mem)
    mem.dream(scope=S)
    assert "weekday" in [p.meta["pattern"]["rule"] for p in _live(mem) if "backup" in p.text]
    assert [p.meta["pattern"]["rule"] for p in _live(mem) if "deploy" in p.text] == ["hour"]


def test_undismissing_the_pattern_lets_the_next_pass_write_it_again(mem: Memory) -> None:
    dismissed = _dismissed_monday_pattern(mem)
    _fail(mem, 14)
    _advance(mem)
    mem.undismiss(dismissed.text, scope=S, reason="it was a pattern after all")
    mem.dream(scope=S)
    (back,) = _live(mem, dismissed)
    assert "15 of 15 events" in back.text


def test_a_live_copy_of_a_dismissed_pattern_is_forgotten_by_the_next_pass(mem: Memory) -> None:
    """What the bug left behind (the pattern written again, live, next to the dismissed one) is
    cleared: here made by lifting the dismissal, letting a pass write the pattern, and dismissing
    the first one again."""
    dismissed = _dismissed_monday_pattern(mem)
    _fail(mem, 14)
    _advance(mem)
    mem.undismiss(dismissed.text, scope=S)
    mem.dream(scope=S)
    (copy,) = _live(mem, dismissed)
    mem.dismiss(dismissed.id, scope=S, reason="still not a failure pattern")
    _advance(mem)
    report = mem.dream(scope=S)
    assert report.ids("pattern", status="applied") == {copy.id}
    assert _live(mem, dismissed) == []
    gone = mem.get(copy.id, scope=S)
    assert gone is not None and gone.status == "forgotten"
