"""Query-time decay: per-kind curves, durability, access windows, trust."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie.recall.decay import (
    DEFAULT_DECAY,
    DecayPolicy,
    DecayRule,
    decay_at,
    decay_factor,
    effective_age_days,
    trust_factor,
)

T0 = datetime(2024, 5, 3, 12, 0, tzinfo=UTC)


def days(n: float) -> timedelta:
    return timedelta(days=n)


def factor(kind: str, age: float, durability: float = 0.0) -> float:
    return decay_factor(DEFAULT_DECAY.rule_for(kind), age_days=age, durability=durability)


# --- the default policy ------------------------------------------------------------------------


def test_episodic_fades_faster_than_semantic_and_policy_barely_fades() -> None:
    for age in (3, 14, 30, 90):
        assert factor("episodic", age) < factor("observation", age) < factor("semantic", age)
        assert factor("semantic", age) < factor("policy", age)
    assert factor("episodic", 7) == pytest.approx(0.5)
    assert factor("observation", 30) == pytest.approx(0.5)
    assert factor("semantic", 180) == pytest.approx(0.5)
    assert factor("policy", 365) > 0.9
    assert factor("procedural", 365) > 0.9


def test_default_policy_covers_every_documented_kind() -> None:
    kinds = {"episodic", "observation", "semantic", "assertion", "trait", "derivation", "hypothesis"}
    kinds |= {"assumption", "simulation", "procedural", "policy"}
    assert kinds <= set(DEFAULT_DECAY.rules)
    assert DEFAULT_DECAY.trust_half_life_days == 365.0


def test_policies_compare_and_hash_by_value() -> None:
    a = DecayPolicy(rules={"x": DecayRule(1.0), "y": DecayRule(None)}, default=DecayRule(None))
    b = DecayPolicy(rules={"y": DecayRule(None), "x": DecayRule(1.0)}, default=DecayRule(None))
    assert a == b
    assert hash(a) == hash(b)
    assert hash(DEFAULT_DECAY) == hash(DEFAULT_DECAY)


def test_unknown_kind_gets_the_default_rule() -> None:
    assert DEFAULT_DECAY.rule_for("something-new") is DEFAULT_DECAY.default


def test_policy_rules_cannot_be_changed_after_construction() -> None:
    rules = {"episodic": DecayRule(7.0)}
    policy = DecayPolicy(rules=rules, default=DecayRule(None))
    rules["episodic"] = DecayRule(1.0)  # the caller's dict changes; the policy must not
    assert policy.rule_for("episodic").half_life_days == 7.0
    with pytest.raises(TypeError):
        policy.rules["x"] = DecayRule(None)  # type: ignore[index]


# --- curves --------------------------------------------------------------------------------------


def test_no_half_life_means_no_decay() -> None:
    assert decay_factor(DecayRule(None), age_days=1e9, durability=0.0) == 1.0


def test_exponential_halves_every_half_life() -> None:
    rule = DecayRule(10.0)
    assert decay_factor(rule, age_days=0, durability=0) == 1.0
    assert decay_factor(rule, age_days=10, durability=0) == pytest.approx(0.5)
    assert decay_factor(rule, age_days=20, durability=0) == pytest.approx(0.25)


def test_linear_reaches_the_floor_at_twice_the_half_life() -> None:
    rule = DecayRule(10.0, curve="linear", floor=0.2)
    assert decay_factor(rule, age_days=0, durability=0) == 1.0
    assert decay_factor(rule, age_days=10, durability=0) == pytest.approx(0.6)  # midpoint of 1 and 0.2
    assert decay_factor(rule, age_days=20, durability=0) == pytest.approx(0.2)
    assert decay_factor(rule, age_days=500, durability=0) == pytest.approx(0.2)


def test_step_holds_then_halves_then_drops_to_the_floor() -> None:
    rule = DecayRule(10.0, curve="step", floor=0.1)
    values = [decay_factor(rule, age_days=age, durability=0) for age in (0, 9.99, 10, 19.99, 20, 400)]
    assert values == [1.0, 1.0, 0.5, 0.5, 0.1, 0.1]


def test_floor_bounds_the_exponential_curve() -> None:
    rule = DecayRule(1.0, floor=0.3)
    assert decay_factor(rule, age_days=100, durability=0) == 0.3


def test_durability_stretches_the_half_life_fivefold_at_most() -> None:
    rule = DecayRule(10.0)
    assert decay_factor(rule, age_days=30, durability=0.5) == pytest.approx(0.5)  # h = 10 * 3
    assert decay_factor(rule, age_days=50, durability=1.0) == pytest.approx(0.5)  # h = 10 * 5
    assert decay_factor(rule, age_days=50, durability=7.0) == pytest.approx(0.5)  # clamped to 1
    assert decay_factor(rule, age_days=10, durability=-3.0) == pytest.approx(0.5)  # clamped to 0


def test_future_ages_from_clock_skew_count_as_zero() -> None:
    assert decay_factor(DecayRule(1.0), age_days=-5, durability=0) == 1.0


def test_nan_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="age_days"):
        decay_factor(DecayRule(1.0), age_days=math.nan, durability=0)
    with pytest.raises(ValueError, match="durability"):
        decay_factor(DecayRule(1.0), age_days=1, durability=math.nan)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"half_life_days": 0.0},
        {"half_life_days": -1.0},
        {"half_life_days": math.inf},
        {"half_life_days": math.nan},
        {"half_life_days": 1.0, "floor": 1.5},
        {"half_life_days": 1.0, "floor": -0.1},
        {"half_life_days": 1.0, "curve": "cubic"},
        {"half_life_days": 1.0, "access_window_days": 0.0},
    ],
)
def test_invalid_rules_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        DecayRule(**kwargs)  # type: ignore[arg-type]


def test_invalid_trust_half_life_is_refused() -> None:
    with pytest.raises(ValueError):
        DecayPolicy(rules={}, default=DecayRule(None), trust_half_life_days=0.0)


rules = st.builds(
    DecayRule,
    half_life_days=st.one_of(st.none(), st.floats(0.01, 10_000)),
    curve=st.sampled_from(["exponential", "linear", "step"]),
    floor=st.floats(0.0, 1.0),
    access_window_days=st.one_of(st.none(), st.floats(0.01, 1_000)),
)
ages = st.floats(-100, 1e7, allow_nan=False)
durabilities = st.floats(-1.0, 2.0, allow_nan=False)


@given(rule=rules, age=ages, durability=durabilities)
def test_factor_is_within_floor_and_one(rule: DecayRule, age: float, durability: float) -> None:
    value = decay_factor(rule, age_days=age, durability=durability)
    assert rule.floor <= value <= 1.0


@given(rule=rules, age=ages, extra=st.floats(0, 1e6), durability=durabilities)
def test_factor_never_grows_with_age(rule: DecayRule, age: float, extra: float, durability: float) -> None:
    younger = decay_factor(rule, age_days=age, durability=durability)
    older = decay_factor(rule, age_days=age + extra, durability=durability)
    assert older <= younger


@given(rule=rules, age=ages, low=st.floats(0, 1), high=st.floats(0, 1))
def test_more_durable_never_decays_faster(rule: DecayRule, age: float, low: float, high: float) -> None:
    low, high = sorted((low, high))
    assert decay_factor(rule, age_days=age, durability=high) >= decay_factor(rule, age_days=age, durability=low)


# --- access windows ------------------------------------------------------------------------------

WINDOWED = DecayRule(7.0, access_window_days=10.0)


def age_at(now_days: float, used_days: float | None, rule: DecayRule = WINDOWED) -> float:
    """Effective age at T0 + now_days of an item recorded at T0 and last used at T0 + used_days."""
    used = None if used_days is None else T0 + days(used_days)
    return effective_age_days(now=T0 + days(now_days), recorded_at=T0, last_used_at=used, rule=rule)


def test_age_without_use_is_the_true_age() -> None:
    assert age_at(100, None) == pytest.approx(100)


def test_use_inside_the_window_resets_the_clock() -> None:
    assert age_at(100, 95) == pytest.approx(5)
    assert age_at(100, 90) == pytest.approx(10)


def test_use_older_than_two_windows_no_longer_counts() -> None:
    assert age_at(100, 80) == pytest.approx(100)
    assert age_at(100, 10) == pytest.approx(100)


def test_age_catches_up_with_the_true_age_during_the_second_window() -> None:
    assert age_at(100, 85) == pytest.approx(15 + (100 - 15) * 0.5)
    assert 10 < age_at(100, 89) < age_at(100, 85) < age_at(100, 81) < 100


def test_rule_without_access_window_ignores_use() -> None:
    assert age_at(100, 99, DecayRule(7.0)) == pytest.approx(100)


def test_use_before_recording_or_in_the_future_is_handled() -> None:
    assert age_at(100, -5) == pytest.approx(100)  # used "before" it was recorded: bad data, ignored
    assert age_at(100, 150) == pytest.approx(0)  # used in the future (clock skew): as fresh as now
    assert age_at(-3, None) == 0.0  # recorded in the future


def test_recent_use_keeps_an_old_episodic_memory_recallable() -> None:
    now = T0 + days(200)
    kwargs = {"now": now, "recorded_at": T0, "durability": 0.0}
    unused = decay_at(DEFAULT_DECAY, "episodic", last_used_at=None, **kwargs)  # type: ignore[arg-type]
    used = decay_at(DEFAULT_DECAY, "episodic", last_used_at=now - days(2), **kwargs)  # type: ignore[arg-type]
    assert unused == DEFAULT_DECAY.rule_for("episodic").floor
    assert used == pytest.approx(0.5 ** (2 / 7))


def test_naive_datetimes_are_refused() -> None:
    naive = datetime(2024, 5, 3, 12, 0)
    with pytest.raises(ValueError, match="timezone-aware"):
        effective_age_days(now=naive, recorded_at=T0, last_used_at=None, rule=WINDOWED)
    with pytest.raises(ValueError, match="last_used_at"):
        effective_age_days(now=T0, recorded_at=T0, last_used_at=naive, rule=WINDOWED)


def test_timezones_do_not_change_the_age() -> None:
    tokyo = timezone(timedelta(hours=9))
    now = (T0 + days(3)).astimezone(tokyo)
    assert effective_age_days(now=now, recorded_at=T0, last_used_at=None, rule=WINDOWED) == pytest.approx(3)


windows = st.floats(0.01, 100)
offsets = st.floats(0, 1_000)


@given(window=windows, used=offsets, now=offsets, later=st.floats(0, 500))
def test_effective_age_is_continuous_and_never_decreases_with_time(
    window: float, used: float, now: float, later: float
) -> None:
    rule = DecayRule(7.0, access_window_days=window)
    first = age_at(now, used, rule)
    second = age_at(now + later, used, rule)
    assert second >= first - 1e-9
    assert 0.0 <= first <= max(now, 0.0) + 1e-9


@given(window=windows, used=offsets, fresher=st.floats(0, 100), now=offsets)
def test_a_more_recent_use_never_makes_an_item_older(window: float, used: float, fresher: float, now: float) -> None:
    rule = DecayRule(7.0, access_window_days=window)
    assert age_at(now, used + fresher, rule) <= age_at(now, used, rule) + 1e-9


@given(window=windows, used=st.floats(0.01, 1_000))
def test_effective_age_has_no_jump_at_the_window_edges(window: float, used: float) -> None:
    rule = DecayRule(7.0, access_window_days=window)
    for edge in (window, 2 * window):
        before = age_at(used + edge - 1e-7, used, rule)
        after = age_at(used + edge + 1e-7, used, rule)
        assert abs(after - before) < 1e-3 * max(1.0, used / window)


# --- trust ---------------------------------------------------------------------------------------


def test_trust_halves_with_each_trust_half_life() -> None:
    assert trust_factor(0.8, evidence_age_days=0, policy=DEFAULT_DECAY) == pytest.approx(0.8)
    assert trust_factor(0.8, evidence_age_days=365, policy=DEFAULT_DECAY) == pytest.approx(0.4)
    assert trust_factor(0.8, evidence_age_days=-10, policy=DEFAULT_DECAY) == pytest.approx(0.8)


def test_trust_can_be_made_permanent() -> None:
    forever = DecayPolicy(rules={}, default=DecayRule(None), trust_half_life_days=math.inf)
    assert trust_factor(0.7, evidence_age_days=math.inf, policy=forever) == 0.7


@given(authority=st.floats(0, 1), age=st.floats(0, 1e6))
def test_trust_stays_within_zero_and_authority(authority: float, age: float) -> None:
    assert 0.0 <= trust_factor(authority, evidence_age_days=age, policy=DEFAULT_DECAY) <= authority
