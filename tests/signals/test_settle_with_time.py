"""Importance settles with time, not with the number of dream passes, and never below what a
person stated (``reverie.dream.upkeep.settle``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig, upkeep
from reverie.errors import InvalidInputError

S = "user:alice"
#: Long enough that nothing is demoted as stale while importance settles (demoted items do not settle).
KEEP = DreamConfig(stale_after_days=400)


def _note(mem: Memory, source: str = "inferred", importance: float = 0.9) -> str:
    return mem.remember("Note about the printer toner", scope=S, source=source, importance=importance).id


@pytest.mark.parametrize(("passes", "span"), [(7, {"minutes": 1}), (7, {"days": 14}), (20, {"days": 60})])
def test_many_passes_settle_as_much_as_one_pass_after_the_same_interval(
    open_mem: Callable[..., Memory], tmp_path: Path, passes: int, span: dict[str, float]
) -> None:
    """Regression: each pass multiplied importance by 0.9, so seven passes in 30 s took 0.9 to
    0.43 and ``--dream-every 1m`` reached the 0.1 floor in about 20 minutes."""
    many_clock, one_clock = ManualClock(), ManualClock()
    many = open_mem(tmp_path / "many.db", clock=many_clock)
    one = open_mem(tmp_path / "one.db", clock=one_clock)
    a, b = _note(many), _note(one)
    step = {unit: value / passes for unit, value in span.items()}
    for _ in range(passes):
        many_clock.advance(**step)
        many.dream(scope=S, config=KEEP)
    one_clock.advance(**span)
    one.dream(scope=S, config=KEEP)
    settled_many = many.get(a, scope=S).scores.importance
    settled_one = one.get(b, scope=S).scores.importance
    assert settled_many == pytest.approx(settled_one, abs=0.01)
    days = span.get("days", 0.0) + span.get("minutes", 0.0) / 1440
    cfg = DreamConfig()  # the rule: halved every settle_half_life_days, written in steps of at least min_step
    expected = upkeep.settled_importance(0.9, days, cfg.settle_half_life_days, cfg.importance_floor)
    assert settled_one == pytest.approx(expected, abs=cfg.settle_min_step)


def test_a_minute_of_passes_leaves_importance_alone(mem: Memory, clock: ManualClock) -> None:
    item = _note(mem)
    for _ in range(7):
        clock.advance(seconds=8)
        mem.dream(scope=S)
    assert mem.get(item, scope=S).scores.importance == 0.9
    assert [e for e in mem.events(scope=S, limit=10_000) if e.type == "memory.scores_set"] == []


def test_importance_halves_per_half_life_and_stops_at_the_floor(mem: Memory, clock: ManualClock) -> None:
    item = _note(mem, importance=0.8)
    clock.advance(days=10)
    report = mem.dream(scope=S, config=DreamConfig(settle_half_life_days=10))
    assert mem.get(item, scope=S).scores.importance == pytest.approx(0.4)
    (action,) = [a for a in report.actions if a.step == "settle"]
    assert "after 10.0 d unchanged" in action.reason and "halves every 10 d" in action.reason
    clock.advance(days=25)
    mem.dream(scope=S, config=DreamConfig(settle_half_life_days=10, stale_after_days=400))
    assert mem.get(item, scope=S).scores.importance == pytest.approx(0.1)


@pytest.mark.parametrize("source", ["user_stated", "manual"])
def test_importance_a_person_stated_never_settles(mem: Memory, clock: ManualClock, source: str) -> None:
    """Regression: the settle step lowered a user-stated 0.9 like any other importance."""
    item = mem.remember_manual("Note about the printer toner", scope=S) if source == "manual" else None
    item_id = item.id if item is not None else _note(mem, source="user_stated")
    before = mem.get(item_id, scope=S).scores.importance
    for _ in range(6):
        clock.advance(days=20)
        mem.dream(scope=S, config=KEEP)
    assert mem.get(item_id, scope=S).scores.importance == before
    assert not [e for e in mem.events(scope=S, limit=10_000) if e.type == "memory.scores_set"]


def test_importance_set_with_set_scores_never_settles_below_it(mem: Memory, clock: ManualClock) -> None:
    item = _note(mem, importance=0.3)
    mem.set_scores(item, scope=S, importance=0.85, reason="the toner order is urgent")
    assert upkeep.IMPORTANCE_STATED in mem.get(item, scope=S).flags
    for _ in range(4):
        clock.advance(days=30)
        mem.dream(scope=S, config=KEEP)
    assert mem.get(item, scope=S).scores.importance == 0.85
    (flagged,) = [e for e in mem.events(scope=S, limit=10_000) if e.type == "memory.flags_set"]
    assert flagged.payload["add"] == [upkeep.IMPORTANCE_STATED]


def test_set_scores_without_importance_does_not_mark_it_stated(mem: Memory, clock: ManualClock) -> None:
    item = _note(mem, importance=0.8)
    mem.set_scores(item, scope=S, confidence=0.9)
    assert upkeep.IMPORTANCE_STATED not in mem.get(item, scope=S).flags
    clock.advance(days=30)
    mem.dream(scope=S, config=KEEP)
    assert mem.get(item, scope=S).scores.importance == pytest.approx(0.4)


def test_every_settle_is_an_event_with_its_reason(mem: Memory, clock: ManualClock) -> None:
    item = _note(mem, importance=0.6)
    clock.advance(days=15)
    mem.dream(scope=S)
    (event,) = [e for e in mem.events(scope=S, limit=10_000) if e.type == "memory.scores_set"]
    assert event.payload["id"] == item and event.payload["scores"] == {"importance": pytest.approx(0.6 * 0.5**0.5)}
    assert "importance settles 0.600" in event.payload["reason"]


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), "30"])
def test_a_bad_half_life_is_refused(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="settle_half_life_days"):
        DreamConfig(settle_half_life_days=bad)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    importance=st.floats(0.0, 1.0),
    spans=st.lists(st.floats(0.0, 400.0), min_size=1, max_size=8),
    half_life=st.floats(0.5, 200.0),
)
def test_settling_composes_over_any_split_of_the_interval(
    importance: float, spans: list[float], half_life: float
) -> None:
    stepwise = importance
    for days in spans:
        stepwise = upkeep.settled_importance(stepwise, days, half_life, 0.1)
    at_once = upkeep.settled_importance(importance, sum(spans), half_life, 0.1)
    assert stepwise == pytest.approx(at_once, abs=1e-5)
    assert stepwise <= importance and (stepwise >= 0.1 or stepwise == importance)
