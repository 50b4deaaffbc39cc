"""Per-kind forgetting curves, applied at query time.

Why at query time: a decayed score written back to the store would be wrong a second later, would
differ between replicas that decayed at different moments, and could not be undone when the policy
changes. So the store keeps what was said and when; recall multiplies a hit's value by
:func:`decay_factor` for "now". Importance (salience) is never decayed here: an old, important
memory fades only through age, and its floor keeps it findable.

Kinds age at very different speeds: what happened on Tuesday (episodic) matters for days, what is
true about the user (semantic) for months, how to do things (procedural, policy) for years.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Literal, get_args

__all__ = [
    "DEFAULT_DECAY",
    "Curve",
    "DecayPolicy",
    "DecayRule",
    "decay_at",
    "decay_factor",
    "effective_age_days",
    "trust_factor",
]

Curve = Literal["exponential", "linear", "step"]
_CURVES: frozenset[str] = frozenset(get_args(Curve))
_SECONDS_PER_DAY = 86_400.0

#: How far durability stretches a half-life: ``effective = half_life * (1 + DURABILITY_STRETCH * d)``,
#: so a fully durable item (d = 1) fades five times more slowly than a fleeting one (d = 0).
DURABILITY_STRETCH = 4.0


def _days_between(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds() / _SECONDS_PER_DAY


def _require_aware(name: str, value: datetime | None) -> None:
    """Refuse naive datetimes: subtracting one from an aware one would raise, or silently shift."""
    if value is not None and value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware, got naive {value!r}")


def _require_number(name: str, value: float) -> None:
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got NaN")


def _require_positive(name: str, value: float | None, *, allow_inf: bool = False) -> None:
    if value is None:
        return
    if not (value > 0.0 and (allow_inf or math.isfinite(value))):
        raise ValueError(f"{name} must be a positive, finite number of days, got {value!r}")


@dataclass(frozen=True, slots=True)
class DecayRule:
    """How one kind of memory fades with age.

    - ``half_life_days``: age at which the factor halves (exponential) or reaches the midpoint
      between 1 and ``floor`` (linear); ``None`` means the kind does not decay at all.
    - ``curve``: ``exponential`` (smooth, never quite forgets), ``linear`` (reaches ``floor`` at
      twice the half-life), ``step`` (1 until the half-life, 0.5 until twice it, then ``floor``).
    - ``floor``: the factor never drops below this, so a very old memory can still be recalled
      when nothing fresher matches.
    - ``access_window_days``: how long a recall keeps the item young (see :func:`effective_age_days`);
      ``None`` means use does not refresh it.
    """

    half_life_days: float | None
    curve: Curve = "exponential"
    floor: float = 0.0
    access_window_days: float | None = None

    def __post_init__(self) -> None:
        _require_positive("half_life_days", self.half_life_days)
        _require_positive("access_window_days", self.access_window_days)
        if self.curve not in _CURVES:
            raise ValueError(f"curve must be one of {sorted(_CURVES)}, got {self.curve!r}")
        if not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"floor must be within [0, 1], got {self.floor!r}")


@dataclass(frozen=True, slots=True)
class DecayPolicy:
    """Decay rules by item kind, a rule for kinds not listed, and the half-life of trust.

    ``rules`` is copied into a read-only mapping, so a policy cannot change under a running recall.
    """

    rules: Mapping[str, DecayRule]
    default: DecayRule
    trust_half_life_days: float = 365.0

    def __post_init__(self) -> None:
        _require_positive("trust_half_life_days", self.trust_half_life_days, allow_inf=True)
        object.__setattr__(self, "rules", MappingProxyType(dict(self.rules)))

    def __hash__(self) -> int:
        # The generated hash would fail on the mapping; a policy is a fine cache key otherwise.
        return hash((tuple(sorted(self.rules.items())), self.default, self.trust_half_life_days))

    def rule_for(self, kind: str) -> DecayRule:
        """The rule for ``kind``; unknown kinds get ``default`` rather than an error, so a new kind
        written by a newer version still recalls on an older one."""
        return self.rules.get(kind, self.default)


def _slow(half_life: float, *, floor: float) -> DecayRule:
    """A kind that lives for months; a use within two months keeps it fresh."""
    return DecayRule(half_life, floor=floor, access_window_days=60.0)


#: The shipped policy. Episodic memories halve weekly, observations monthly, beliefs and their
#: derivatives half-yearly, procedures and policies over a decade. Access windows are one to two
#: half-lives for fast kinds and two months for slow ones, so a memory in use stays fresh.
DEFAULT_DECAY = DecayPolicy(
    rules={
        "episodic": DecayRule(7.0, floor=0.02, access_window_days=14.0),
        "observation": DecayRule(30.0, floor=0.05, access_window_days=30.0),
        "semantic": _slow(180.0, floor=0.2),
        "assertion": _slow(180.0, floor=0.2),
        "trait": _slow(180.0, floor=0.2),
        "derivation": _slow(180.0, floor=0.1),
        "hypothesis": _slow(180.0, floor=0.1),
        "assumption": _slow(180.0, floor=0.1),
        "simulation": _slow(180.0, floor=0.1),
        "procedural": DecayRule(3650.0, floor=0.5),
        "policy": DecayRule(3650.0, floor=0.5),
    },
    default=_slow(90.0, floor=0.1),
    trust_half_life_days=365.0,
)


def decay_factor(rule: DecayRule, *, age_days: float, durability: float) -> float:
    """The multiplier in ``[rule.floor, 1]`` for a memory ``age_days`` old.

    Durability ``d`` (clamped to [0, 1]) stretches the half-life:
    ``h = half_life_days * (1 + 4 * d)``. Then, with ``a`` the age (negative ages, from clock
    skew, count as 0):

    - exponential: ``0.5 ** (a / h)``
    - linear: ``1 - (1 - floor) * a / (2 * h)``, reaching ``floor`` at ``a = 2h``
    - step: ``1`` for ``a < h``, ``0.5`` for ``a < 2h``, then ``floor``

    and the result is never below ``floor``.
    """
    _require_number("age_days", age_days)
    _require_number("durability", durability)
    if rule.half_life_days is None:
        return 1.0
    age = max(age_days, 0.0)
    half_life = rule.half_life_days * (1.0 + DURABILITY_STRETCH * min(max(durability, 0.0), 1.0))
    raw = _CURVE_FUNCTIONS[rule.curve](age / half_life, rule.floor)
    return min(1.0, max(rule.floor, raw))


def _exponential(half_lives: float, floor: float) -> float:
    return math.pow(0.5, half_lives)


def _linear(half_lives: float, floor: float) -> float:
    return 1.0 - (1.0 - floor) * half_lives / 2.0


def _step(half_lives: float, floor: float) -> float:
    if half_lives < 1.0:
        return 1.0
    return 0.5 if half_lives < 2.0 else floor


_CURVE_FUNCTIONS: dict[str, Callable[[float, float], float]] = {
    "exponential": _exponential,
    "linear": _linear,
    "step": _step,
}


def effective_age_days(
    *, now: datetime, recorded_at: datetime, last_used_at: datetime | None, rule: DecayRule
) -> float:
    """How old a memory counts as at ``now``, in days: its true age, made younger by recent use.

    Let ``W`` be ``rule.access_window_days``, ``u`` the days since the last use and ``r`` the days
    since it was recorded. A use resets the clock, for a while:

    - ``u <= W``: the age is ``u`` (the item is as young as its last use);
    - ``W < u < 2W``: the age catches up linearly, from ``W`` to ``r``;
    - ``u >= 2W``, no use, ``W is None``, or a use not after ``recorded_at``: the age is ``r``.

    The catch-up phase exists so that a ranking never jumps when a window ends: the age is
    continuous and non-decreasing in ``now``, and a more recent use never makes an item older.
    All times must be timezone-aware; ages before ``recorded_at`` count as 0.
    """
    for name, value in (("now", now), ("recorded_at", recorded_at), ("last_used_at", last_used_at)):
        _require_aware(name, value)
    true_age = max(_days_between(recorded_at, now), 0.0)
    window = rule.access_window_days
    if window is None or last_used_at is None or last_used_at <= recorded_at:
        return true_age
    since_use = min(max(_days_between(last_used_at, now), 0.0), true_age)
    if since_use <= window:
        return since_use
    if since_use >= 2.0 * window:
        return true_age
    catch_up = (since_use - window) / window  # 0 -> 1 across the second window
    return since_use + (true_age - since_use) * catch_up


def trust_factor(authority: float, *, evidence_age_days: float, policy: DecayPolicy) -> float:
    """Authority discounted by the age of its evidence: ``authority * 0.5 ** (age / trust_half_life)``.

    Why: "the user said so" is strong evidence today and weak evidence in three years, whatever
    the kind of memory. Negative ages count as 0.
    """
    _require_number("authority", authority)
    _require_number("evidence_age_days", evidence_age_days)
    if math.isinf(policy.trust_half_life_days):
        return authority  # trust that never fades, even for evidence of unknown (infinite) age
    age = max(evidence_age_days, 0.0)
    return authority * math.pow(0.5, age / policy.trust_half_life_days)


def decay_at(
    policy: DecayPolicy,
    kind: str,
    *,
    now: datetime,
    recorded_at: datetime,
    last_used_at: datetime | None,
    durability: float,
) -> float:
    """The decay factor for one item of ``kind`` at ``now``: the rule lookup, age and curve in one call."""
    rule = policy.rule_for(kind)
    age = effective_age_days(now=now, recorded_at=recorded_at, last_used_at=last_used_at, rule=rule)
    return decay_factor(rule, age_days=age, durability=durability)
