"""Seeded event streams with planted temporal patterns, and the score of what a detector found.

Used by tests/metacog and bench/patterns.py. Every planted kind of event has its own words
(a subject and a verb no other kind uses) and every event text carries a run number, so no two
events are the same claim (a repeated text would corroborate one item instead of adding one).
Noise kinds fall at uniformly random times over the same span.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from reverie.dream.patterns import WEEKDAYS, Event, Pattern, template

START = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday
SPAN_DAYS = 180
RULES = ("weekday", "hour", "interval", "month_end", "drift")
_SUBJECTS = [
    "deploy",
    "billing",
    "backup",
    "invoice",
    "standup",
    "payroll",
    "crawler",
    "ingest",
    "report",
    "audit",
    "cache",
    "replica",
    "ticket",
    "rollout",
    "export",
    "import",
    "sync",
    "digest",
    "newsletter",
    "refund",
]
_VERBS = [
    "failed",
    "stalled",
    "spiked",
    "restarted",
    "timed-out",
    "paused",
    "overflowed",
    "crashed",
    "lagged",
    "retried",
]
_NOISE_SUBJECTS = [
    "lunch",
    "coffee",
    "meeting",
    "email",
    "review",
    "call",
    "walk",
    "gym",
    "errand",
    "chat",
    "note",
    "idea",
]
_NOISE_VERBS = ["happened", "went", "ran", "began", "wrapped", "moved", "got"]


@dataclass(frozen=True, slots=True)
class Planted:
    """One planted pattern: its kind of event (template), rule and value."""

    kind: tuple[str, ...]
    rule: str
    value: str


def _at(day: float, minute: float) -> datetime:
    return START + timedelta(days=int(day), minutes=minute)


def _times(rng: random.Random, rule: str) -> tuple[list[datetime], str]:
    if rule == "weekday":
        wd = rng.randrange(7)
        weeks = rng.sample(range(SPAN_DAYS // 7), rng.randint(8, 14))
        times = [_at(w * 7 + wd, rng.uniform(0, 1440)) for w in weeks]
        times += [_at(rng.uniform(0, SPAN_DAYS), rng.uniform(0, 1440)) for _ in range(rng.randint(0, 2))]
        return times, WEEKDAYS[wd]
    if rule == "hour":
        h = rng.randrange(2, 22)
        days = rng.sample(range(SPAN_DAYS), rng.randint(10, 16))
        return [_at(d, h * 60 + rng.uniform(-25, 25)) for d in days], f"{h:02d}"
    if rule == "interval":
        n = rng.choice((2, 3, 4, 5, 6, 10, 12, 15))
        first = rng.uniform(0, 10)
        count = min(14, int((SPAN_DAYS - 10) / n))
        return [START + timedelta(days=first + i * n + rng.uniform(-0.2, 0.2)) for i in range(count)], str(n)
    if rule == "month_end":
        times = []
        for m in range(1, 7):
            last = (datetime(2026, m + 1, 1, tzinfo=UTC) - timedelta(days=1)).day
            times.append(
                datetime(2026, m, last - rng.randrange(3), tzinfo=UTC) + timedelta(minutes=rng.uniform(0, 1440))
            )
        return times, "month_end"
    # drift: irregular days, time of day sliding a few minutes per day
    day, times = 0.0, []
    slope = rng.choice((-1, 1)) * rng.uniform(2.0, 4.0)
    base = 720.0 - slope * 40
    while day < 80 and len(times) < 14:
        times.append(_at(day, base + slope * day + rng.uniform(-10, 10)))
        day += rng.randint(2, 9)
    return times, "later" if slope > 0 else "earlier"


def stream(seed: int, rules: tuple[str, ...], *, noise_kinds: int = 12) -> tuple[list[Event], list[Planted]]:
    """Events of one planted pattern per rule in ``rules`` plus ``noise_kinds`` random kinds."""
    rng = random.Random(seed)
    subjects = rng.sample(_SUBJECTS, len(rules))
    events: list[Event] = []
    planted: list[Planted] = []
    run = 0
    for subj, rule in zip(subjects, rules, strict=True):
        verb = rng.choice(_VERBS)
        times, value = _times(rng, rule)
        text0 = f"The {subj} job {verb}"
        planted.append(Planted(tuple(sorted(template(text0))), rule, value))
        for at in times:
            run += 1
            events.append(Event(f"e{run:05d}", at, template(text0), f"{text0} (run {run})"))
    pairs = [(s, v) for s in _NOISE_SUBJECTS for v in _NOISE_VERBS]
    for subj, verb in rng.sample(pairs, noise_kinds):
        text0 = f"The {subj} {verb} fine"
        for _ in range(rng.randint(3, 9)):
            run += 1
            at = START + timedelta(days=rng.uniform(0, SPAN_DAYS))
            events.append(Event(f"e{run:05d}", at, template(text0), f"{text0} (run {run})"))
    rng.shuffle(events)
    return events, planted


def matches(found: Pattern, planted: Planted) -> bool:
    """The same kind, rule and value (an hour within one, an interval within one day)."""
    if found.template != planted.kind or found.rule != planted.rule:
        return False
    if found.rule in ("hour", "interval"):
        return abs(int(found.value) - int(planted.value)) <= 1
    return found.value == planted.value


def score(found: list[Pattern], planted: list[Planted]) -> tuple[int, int, int]:
    """(true positives, found, planted): a found pattern is right if it matches a planted one."""
    tp = sum(1 for f in found if any(matches(f, p) for p in planted))
    hit = sum(1 for p in planted if any(matches(f, p) for f in found))
    return tp, len(found), hit
