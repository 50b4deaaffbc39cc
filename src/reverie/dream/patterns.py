"""Temporal patterns: the same kind of event recurring on a weekday, at a time of day, every N
days, at month end, or drifting steadily in time of day. Pure: no I/O, no clock.

"Same kind of event" is a *template*: the event's words case-folded, lightly stemmed, with
every slot a template should not care about dropped — numbers, times, dates, ids (any token
holding a digit), weekday and month names, stop words. "The deploy failed at 09:14 (build
4411)" and "deploy fails again, build 4420" share the template ``deploy fail`` (plus "again",
merged by the near-template join below). Negators and state words are kept: "the deploy
passed" is another kind of event than "the deploy failed".

Each rule tests one hypothesis against chance and reports ``strength = support / expected``:
how many of the kind's events fit the rule, over how many would fit it if the events fell at
random (uniform weekday, hour, day of month; Poisson gaps for intervals; no trend for drift).
A rule fires only when the fit is large (``share``; ``interval_share`` of the gaps), significant
(a one-sided binomial tail under ``alpha``, multiplied by the 7 weekdays or 24 hours the peak was
picked from; Fisher's z under ``drift_alpha`` for a drift, on at least ``drift_min_events``) and
spread over several periods (``min_periods`` distinct weeks / days / months), so a burst of notes
typed in one Monday session is not "a Monday pattern". Where two rules describe one rhythm, the
more specific one is kept (``_without_echoes``: a weekday pattern's weekly interval, a drift's
middle hour). Measured by ``bench/patterns.py``.
"""

from __future__ import annotations

import calendar
import hashlib
import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from reverie.model.redact import unslotted

#: Kinds of claim read as time-stamped events (a fact like "Alice lives in Paris" has no rhythm).
EVENT_KINDS = frozenset({"episodic", "observation"})
WEEKDAYS = tuple(calendar.day_name[i].lower() for i in range(7))
_MONTHS = tuple(calendar.month_name[i].lower() for i in range(1, 13))
_SKIP = (
    "a an the is are was were be been being am of to in at by for with from as and or but it its this that "
    "these those there here i me my mine we our you your he him his she her they them their "
    "do does did has have had will would shall "
    "should can could may might must so than then also just s t d ll re ve m on today yesterday tonight "
    "morning afternoon evening night am pm utc week month day year daily weekly monthly again"
)
STOP = frozenset(_SKIP.split()) | set(WEEKDAYS) | {w[:3] for w in WEEKDAYS} | set(_MONTHS)
_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_DIGIT = re.compile(r"\d")
_SUFFIXES = ("ing", "ed", "es", "s")


def template(text: str) -> frozenset[str]:
    """The kind of event ``text`` describes: its content words without slots (see module doc)."""
    words: set[str] = set()
    for tok in _TOKEN.findall(text.casefold()):
        if _DIGIT.search(tok) or tok in STOP:
            continue
        words.add(_stem(tok))
    return frozenset(words)


#: Words that only acknowledge ("Ok thanks.", "Noted.", "Sounds good!"): an event of these alone
#: says nothing happened, however regularly it is said (stemmed as ``template`` stems).
_ACKS = (
    "ok okay okey k kk thanks thank thx ty noted sure got cool great good nice perfect alright right "
    "understood yes yep yeah yup no nope sounds fine welcome np problem cheers awesome hi hello hey bye "
    "goodbye please lol haha hmm ah oh acknowledged roger gotcha done agreed absolutely exactly excellent "
    "lovely much very appreciate appreciated sorry see later soon talk will do"
)


def content_free(text: str) -> bool:
    """True when ``text`` holds no content word beyond acknowledgements and slots ("Ok thanks.",
    "Bot: Noted." without its label): such a message forms no pattern, however regular it is
    (a daily "Noted." is the assistant's habit, not something the user does or asks)."""
    return template(text) <= ACKNOWLEDGEMENTS


def _stem(word: str) -> str:
    """Tense and number folded ("failed", "fails", "failing" → "fail"); short words kept whole."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiousl":
        word = word[:-1]  # "stopp(ed)" → "stop"
    return word


ACKNOWLEDGEMENTS = frozenset(_stem(w) for w in _ACKS.split())


@dataclass(frozen=True, slots=True)
class Event:
    """One time-stamped claim: its id, when it happened, its template and its text."""

    id: str
    at: datetime
    kind: frozenset[str]
    text: str


@dataclass(frozen=True, slots=True)
class PatternConfig:
    """Thresholds of every rule (documented in the module docstring)."""

    min_events: int = 5  # events of one kind before any rule is tried
    min_support: int = 4  # events that must fit a rule
    min_periods: int = 3  # distinct weeks / days / months the fitting events span
    share: float = 0.6  # fraction of the kind's events that must fit
    alpha: float = 1e-4  # binomial tail under chance
    hour_window: int = 1  # hours either side of the peak hour
    month_end_days: int = 3  # the last N days of a month
    interval_tolerance: float = 0.15  # a gap fits an interval within ±15 % (and at least ±0.5 day)
    drift_r2: float = 0.85  # variance of time of day explained by a linear trend
    drift_minutes: float = 90.0  # minimum total drift over the span
    drift_alpha: float = 1e-5  # one-sided p of the trend's correlation (Fisher's z)
    drift_min_events: int = 8  # Fisher's z is loose on few points: six random times reached R² 0.97
    interval_share: float = 0.8  # gaps that must fit: a Poisson null is weak against jittery-regular gaps
    interval_min_gaps: int = 6
    join: float = 0.6  # Jaccard at which two templates are one kind of event


@dataclass(frozen=True, slots=True)
class Pattern:
    """One recurring pattern: its rule and value, the events behind it, and how far above chance.

    ``key`` is stable across passes for the same (kind of event, rule, value): the dream pass
    updates the pattern item carrying it instead of adding another.
    """

    template: tuple[str, ...]
    rule: str  # weekday | hour | interval | month_end | drift
    value: str  # "monday", "09", "10", "month_end", "later" / "earlier"
    members: tuple[str, ...]  # support set, ids sorted
    total: int  # events of this kind
    expected: float  # events fitting the rule by chance
    example: str  # the text of the most recent member
    detail: str = ""
    key: str = field(default="")

    def __post_init__(self) -> None:
        digest = hashlib.sha256(f"{' '.join(self.template)}|{self.rule}|{self.value}".encode()).hexdigest()
        object.__setattr__(self, "key", f"pat_{digest[:16]}")

    @property
    def support(self) -> int:
        return len(self.members)

    @property
    def strength(self) -> float:
        """support / expected: how many times more events fit the rule than chance would place."""
        return round(self.support / max(self.expected, 1e-9), 3)

    def describe(self) -> str:
        """When it happens, in words a "when" / "usually" / "how often" question matches."""
        if self.rule == "weekday":
            return f"usually on {self.value.capitalize()}s"
        if self.rule == "hour":
            return f"usually around {int(self.value):02d}:00 (time of day)"
        if self.rule == "interval":
            return f"recurs every {self.value} days, how often: about every {self.value} days"
        if self.rule == "month_end":
            return "usually at month end (the last days of the month)"
        return f"drifting {self.value} in the day, each time a little {self.value}"

    def text(self) -> str:
        """The pattern claim: the kind of event, when it happens, and its support."""
        return (
            f'Recurring pattern: events like "{_unslotted(self.example)}" — {self.describe()} '
            f"({self.support} of {self.total} events; {self.strength:g}x chance)"
        )

    def to_meta(self) -> dict[str, object]:
        return {
            "key": self.key,
            "template": list(self.template),
            "rule": self.rule,
            "value": self.value,
            "support": self.support,
            "total": self.total,
            "expected": round(self.expected, 4),
            "strength": self.strength,
            "detail": self.detail,
        }


def _unslotted(text: str) -> str:
    """An example event without its slots (numbers, ids, times): "the deploy failed on build …".

    Why: a quoted "error 502" would let write-time detection read the pattern as contradicting
    a later "error 503" member on the numeric axis. The rule lives in the model
    (``redact.unslotted``) so that a purge recognises this quote as a copy of its event.
    """
    return unslotted(text)


def find_patterns(events: Iterable[Event], config: PatternConfig | None = None) -> list[Pattern]:
    """Every pattern among ``events``, sorted by key (deterministic for the same input)."""
    cfg = config or PatternConfig()
    out: list[Pattern] = []
    for kind, group in group_kinds(events, cfg.join):
        if len(group) < cfg.min_events:
            continue
        group.sort(key=lambda e: (e.at, e.id))
        found = [p for rule in _RULES if (p := rule(kind, group, cfg)) is not None]
        out.extend(_without_echoes(found))
    return sorted(out, key=lambda p: p.key)


def group_kinds(events: Iterable[Event], join: float) -> list[tuple[tuple[str, ...], list[Event]]]:
    """Events grouped by kind: exact templates first, then each smaller template joined to the
    largest earlier one it overlaps by ``join`` (Jaccard) — "deploy fail" and "deploy fail
    again build". Why greedy by size: deterministic, and the most common wording names the kind.

    Why a prefix index: two sets with Jaccard >= j share a token among the first
    ``|t| - ceil(j·|t|) + 1`` of either in one global order (rarest first), so only those are
    indexed and probed; probing every token made 100k templated events take 20 s, mostly on
    words every kind shares ("job", "fine").
    """
    exact: dict[frozenset[str], list[Event]] = {}
    for e in events:
        if e.kind:
            exact.setdefault(e.kind, []).append(e)
    df: dict[str, int] = {}
    for t in exact:
        for tok in t:
            df[tok] = df.get(tok, 0) + 1
    order = sorted(exact, key=lambda t: (-len(exact[t]), sorted(t)))
    roots: list[frozenset[str]] = []
    index: dict[str, list[int]] = {}
    merged: dict[frozenset[str], list[Event]] = {}
    for t in order:
        prefix = _prefix(t, df, join)
        best = _best_root(t, prefix, roots, index, join)
        if best is None:
            for tok in prefix:
                index.setdefault(tok, []).append(len(roots))
            roots.append(t)
            merged[t] = list(exact[t])
        else:
            merged[roots[best]].extend(exact[t])
    return [(tuple(sorted(t)), merged[t]) for t in roots]


def _prefix(t: frozenset[str], df: dict[str, int], join: float) -> list[str]:
    ranked = sorted(t, key=lambda tok: (df[tok], tok))
    return ranked[: len(t) - math.ceil(join * len(t)) + 1]


#: Roots compared per probed token (a bound on pathological logs; prefixes are rare words).
_JOIN_CANDIDATES = 32


def _best_root(
    t: frozenset[str], prefix: list[str], roots: Sequence[frozenset[str]], index: dict[str, list[int]], join: float
) -> int | None:
    seen: set[int] = set()
    best: tuple[float, int] | None = None
    for tok in prefix:
        for row in index.get(tok, ())[:_JOIN_CANDIDATES]:
            if row in seen:
                continue
            seen.add(row)
            r = roots[row]
            score = len(t & r) / len(t | r)
            if score >= join and (best is None or (score, -row) > (best[0], -best[1])):
                best = (score, row)
    return None if best is None else best[1]


# -- the rules -----------------------------------------------------------------------------
def _weekday(kind: tuple[str, ...], events: list[Event], cfg: PatternConfig) -> Pattern | None:
    counts = [0] * 7
    for e in events:
        counts[e.at.weekday()] += 1
    day = max(range(7), key=lambda d: (counts[d], -d))
    fit = [e for e in events if e.at.weekday() == day]
    weeks = {e.at.isocalendar()[:2] for e in fit}
    return _judge(kind, events, fit, 1 / 7, len(weeks), "weekday", WEEKDAYS[day], cfg, f"{len(weeks)} weeks", 7)


def _hour(kind: tuple[str, ...], events: list[Event], cfg: PatternConfig) -> Pattern | None:
    w = cfg.hour_window
    counts = [0] * 24
    for e in events:
        counts[e.at.hour] += 1
    window = [sum(counts[(h + d) % 24] for d in range(-w, w + 1)) for h in range(24)]
    peak = max(range(24), key=lambda h: (window[h], counts[h], -h))
    near = {(peak + d) % 24 for d in range(-w, w + 1)}
    fit = [e for e in events if e.at.hour in near]
    days = {e.at.date() for e in fit}
    p0 = len(near) / 24
    return _judge(kind, events, fit, p0, len(days), "hour", f"{peak:02d}", cfg, f"{len(days)} days, ±{w} h", 24)


def _month_end(kind: tuple[str, ...], events: list[Event], cfg: PatternConfig) -> Pattern | None:
    n = cfg.month_end_days
    fit = [e for e in events if calendar.monthrange(e.at.year, e.at.month)[1] - e.at.day < n]
    months = {(e.at.year, e.at.month) for e in fit}
    return _judge(kind, events, fit, n / 30.44, len(months), "month_end", "month_end", cfg, f"{len(months)} months")


def _interval(kind: tuple[str, ...], events: list[Event], cfg: PatternConfig) -> Pattern | None:
    """Gaps between consecutive events cluster around one period of at least a day.

    Expected: under a Poisson process of the same rate (mean gap ``m``), the chance a gap lands
    within the tolerance of the period is ``e^-(g-tol)/m − e^-(g+tol)/m``.
    """
    gaps = [(b.at - a.at).total_seconds() / 86400 for a, b in itertools.pairwise(events)]
    gaps_pos = sorted(g for g in gaps if g > 0)
    if len(gaps_pos) < cfg.min_support:
        return None
    period = round(gaps_pos[len(gaps_pos) // 2])
    if period < 1:
        return None
    tol = max(0.5, cfg.interval_tolerance * period)
    hits = [i for i, g in enumerate(gaps) if abs(g - period) <= tol]
    mean = sum(gaps) / len(gaps)
    p0 = math.exp(-max(0.0, period - tol) / mean) - math.exp(-(period + tol) / mean) if mean > 0 else 1.0
    fit_ids = {events[i + 1].id for i in hits} | {events[i].id for i in hits}
    fit = [e for e in events if e.id in fit_ids]
    if len(hits) < max(cfg.min_support, cfg.interval_min_gaps) or len(hits) / len(gaps) < cfg.interval_share:
        return None
    if _tail(len(gaps), len(hits), p0) > cfg.alpha:
        return None
    return Pattern(
        kind,
        "interval",
        str(period),
        tuple(sorted(e.id for e in fit)),
        len(events),
        expected=max(p0 * len(gaps), 1e-9) * len(fit) / max(len(hits), 1),
        example=events[-1].text,
        detail=f"{len(hits)} of {len(gaps)} gaps within ±{tol:g} days of {period}",
    )


def _drift(kind: tuple[str, ...], events: list[Event], cfg: PatternConfig) -> Pattern | None:
    """Time of day moving steadily later (or earlier): a linear trend explaining most variance.

    Strength: support / expected with support = the explained share of variance (R²) and
    expected = what a random order explains on average (1 / (n − 1)).
    """
    n = len(events)
    if n < max(cfg.min_events, cfg.drift_min_events):
        return None
    t0 = events[0].at
    xs = [(e.at - t0).total_seconds() / 86400 for e in events]
    ys = [e.at.hour * 60 + e.at.minute + e.at.second / 60 for e in events]
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    r2 = sxy * sxy / (sxx * syy)
    total = abs(slope) * (xs[-1] - xs[0])
    days = {e.at.date() for e in events}
    if r2 < cfg.drift_r2 or total < cfg.drift_minutes or len(days) < cfg.min_periods:
        return None
    # Significance of the correlation (Fisher's z): R² 0.9 over six points happens by chance.
    z = math.atanh(min(math.sqrt(r2), 1 - 1e-12)) * math.sqrt(n - 3)
    if 0.5 * math.erfc(z / math.sqrt(2)) > cfg.drift_alpha:
        return None
    direction = "later" if slope > 0 else "earlier"
    expected = len(events) / (n - 1) / max(r2, 1e-9)  # support / expected == r2 · (n − 1)
    return Pattern(
        kind,
        "drift",
        direction,
        tuple(sorted(e.id for e in events)),
        n,
        expected=expected,
        example=events[-1].text,
        detail=f"{slope * 7:+.0f} min per week over {len(days)} days (R² {r2:.2f})",
    )


def _judge(
    kind: tuple[str, ...],
    events: list[Event],
    fit: list[Event],
    p0: float,
    periods: int,
    rule: str,
    value: str,
    cfg: PatternConfig,
    spread: str,
    looks: int = 1,
) -> Pattern | None:
    """The common test of the weekday, hour and month-end rules (see the module docstring).

    ``looks``: how many values the rule chose its peak from (7 weekdays, 24 hours): the tail is
    multiplied by it (Bonferroni), since the best of 24 hours is above chance more often than one.
    """
    n, k = len(events), len(fit)
    if k < cfg.min_support or k / n < cfg.share or periods < cfg.min_periods:
        return None
    if looks * _tail(n, k, p0) > cfg.alpha:
        return None
    members = tuple(sorted(e.id for e in fit))
    detail = f"{k} of {n} events ({spread}); chance would place {p0 * n:.1f}"
    return Pattern(kind, rule, value, members, n, expected=p0 * n, example=fit[-1].text, detail=detail)


def _tail(n: int, k: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed in log space (exact, no scipy)."""
    if p >= 1.0:
        return 1.0
    if p <= 0.0:
        return 0.0 if k > 0 else 1.0
    lp, lq = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
        for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def _without_echoes(found: list[Pattern]) -> list[Pattern]:
    """Drop what a more specific rule already explains: weekly gaps of a weekday pattern,
    ~monthly gaps of a month-end one, daily gaps of a time-of-day one, and the middle hour of a
    drifting time of day."""
    rules = {p.rule for p in found}
    out = []
    for p in found:
        if p.rule == "hour" and "drift" in rules:
            continue  # a drifting time of day clusters around its middle hour: the drift is the pattern
        if p.rule == "interval":
            period = int(p.value)
            low, high = period * (1 - 0.15), period * (1 + 0.15)
            if "weekday" in rules and any(low <= 7 * k <= high for k in range(1, period // 7 + 2)):
                continue
            if "month_end" in rules and 27 <= period <= 32:
                continue
            if "hour" in rules and period == 1:
                continue
        out.append(p)
    return out


_RULES = (_weekday, _hour, _interval, _month_end, _drift)


def event_time(valid_from: datetime | None, recorded_at: datetime) -> datetime:
    """When the event happened: its valid-from time if the writer gave one, else when recorded."""
    return valid_from if valid_from is not None else recorded_at


__all__ = [
    "ACKNOWLEDGEMENTS",
    "EVENT_KINDS",
    "Event",
    "Pattern",
    "PatternConfig",
    "content_free",
    "event_time",
    "find_patterns",
    "group_kinds",
    "template",
]
