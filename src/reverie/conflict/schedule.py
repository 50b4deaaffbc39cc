"""One recurring event's slot, said twice: the time of day or the weekday of a schedule.

Why: schedules are a large share of what agents are told about systems and people ("the
nightly backup runs at 02:00", "the book club meets on Tuesdays", "the deploy window opens
on Wednesday at 13:00"), and they are said in many ways ("kicks off every night at 04:30",
"is scheduled for 15:00 each day"). The word aligner needs the same verb on both sides, and
the dated reading (``anchored``) needs one date and one named phase, so "runs at 02:00" /
"kicks off at 04:30" and "Tuesday … starts at 7 am" (two date units) pass both by.

A schedule has one slot per occurrence: a daily job has one time of day, a weekly one a
weekday (and a time). Two claims about the same holder's schedule conflict when:

- the times of day differ, on the same weekday or with no weekday named on one side, and the
  two claims do not name different frequencies ("nightly" / "every Sunday" are two jobs); or
- the weekdays differ and one claim says the event happens once a week ("once a week",
  "weekly", "each week", "only"): without that, "yoga on Mondays" / "yoga on Thursdays" is one
  class twice a week, not a conflict.

What blocks, because a wrong conflict costs more than a missed one: a hedge, a condition, a
record line, a change over time, a negation on one side only, two past reports (two
occasions), "again", a calendar date or year (another reading owns those), any quantity
other than the frequency itself, names one side lacks, two holders ("the staging window" /
"the production window"), two phases ("starts at 9" / "ends at 17"), and words of their own
on both sides beyond the vocabulary of scheduling ("the backup runs at 2" / "the backup is
verified at 4" are two events of one holder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from reverie.conflict.anchored import names_a_phase, phases
from reverie.conflict.claim_frame import Frame, frame_of, function_word
from reverie.conflict.core import Span
from reverie.conflict.dates import DateValue
from reverie.conflict.frame import Analysis, Unit, analyse
from reverie.conflict.meaning import Found, unmatched_names
from reverie.conflict.temporal import reports_an_occasion, says_again
from reverie.conflict.text import stem

# How often: a closed class of English frequency words. Two claims naming two different
# frequencies describe two events ("the nightly backup" / "the weekly backup").
_DAILY = frozenset({"nightly", "daily", "day", "night", "morning", "evening", "afternoon", "everyday"})
_WEEKLY = frozenset({"weekly", "week"})
_MONTHLY = frozenset({"monthly", "month"})
_EVERY = frozenset({"every", "each", "per", "once", "nightly", "daily", "weekly", "monthly"})

# Words that only say that something happens on a schedule: they may differ between two
# claims of one schedule ("runs" / "kicks off" / "is scheduled for" / "takes place").
_NEUTRAL = frozenset(
    stem(w)
    for w in (
        "run", "runs", "running", "schedule", "scheduled", "happen", "happens", "take", "takes", "place",
        "held", "hold", "occur", "occurs", "fire", "fires", "trigger", "triggers", "triggered", "set", "go",
        "goes", "out", "off", "kick", "kicks", "get", "gets", "done", "due", "time", "timed", "slot",
        "every", "each", "once", "only", "single", "sole", "regular", "usual", "usually", "always",
        "nightly", "daily", "weekly", "monthly", "night", "day", "week", "month", "morning", "evening",
        "afternoon", "midnight", "noon", "job", "utc", "local", "clock", "sharp",
    )
)  # fmt: skip

_ONCE_A = re.compile(r"\b(once (?:a|per|every|each)) (day|night|week|month)\b", re.IGNORECASE)
_ONCE_AS = {"day": "daily", "night": "nightly", "week": "weekly", "month": "monthly"}

# Words saying the event happens once per week, so two weekdays cannot both be its day.
_ONCE_A_WEEK = frozenset({"weekly", "once", "only", "single", "sole"})


@dataclass(frozen=True)
class _When:
    weekdays: frozenset[int] | None
    minute: int | None
    twelve_hour: bool
    recurring: bool  # "on Mondays": a habit, not one day
    unit: Unit  # the last date unit, for the span


def judge(x0: Analysis, y0: Analysis) -> Found | None:
    """The conflict of two statements of one schedule (see module docstring), or None.

    Read with "once a week" said as "weekly" (the frame reads a bare "once" as "formerly"); the
    spans are cut again from the texts as written."""
    x, y = analyse(_frequency_words(x0.text)), analyse(_frequency_words(y0.text))
    found = _judge(x, y)
    if found is None:
        return None
    return replace(found, spans_a=_respan(x0, found.spans_a), spans_b=_respan(y0, found.spans_b))


def _frequency_words(text: str) -> str:
    return _ONCE_A.sub(lambda m: _ONCE_AS[m.group(2).lower()], text)


def _respan(side: Analysis, spans: tuple[Span, ...]) -> tuple[Span, ...]:
    out = []
    for sp in spans:
        at = side.text.find(sp.text)
        out.append(Span(at, at + len(sp.text), sp.text) if at >= 0 else sp)
    return tuple(out)


def _judge(x: Analysis, y: Analysis) -> Found | None:
    fa, fb = frame_of(x.text), frame_of(y.text)
    if not (_plain(fa) and _plain(fb)) or fa.negated != fb.negated:
        return None
    if says_again(x) or says_again(y):
        return None
    if reports_an_occasion(x) and reports_an_occasion(y):
        return None  # "ran at 01:30" / "took it at 08:00" / "… at 14:00": two occasions
    wa, wb = _when(fa, x), _when(fb, y)
    if wa is None or wb is None:
        return None
    freq_a, freq_b = _frequency(x), _frequency(y)
    if freq_a and freq_b and freq_a != freq_b:
        return None
    for side, f, freq, when in ((x, fa, freq_a, wa), (y, fb, freq_b, wb)):
        if _past(side, f) and not (freq or (when.weekdays is not None and when.recurring)):
            return None  # "Cleaned panel 1 at 00:00": one past moment, a report or the dated reading's business
    verdict = _slot_conflict(wa, wb, x, y, freq_a | freq_b)
    if verdict is None:
        return None
    if unmatched_names(fa, fb) or unmatched_names(fb, fa) or not _same_holder(fa, fb):
        return None
    pa, pb = phases(x), phases(y)
    if pa and pb and pa != pb:
        return None  # "starts at 9" / "ends at 17": two events
    if _own_words(x, fb) or _own_words(y, fa):
        return None  # "runs at 2" / "is verified at 4": two events of one holder
    if not (fa.concepts & fb.concepts - _NEUTRAL) and not (fa.stems & fb.stems - _NEUTRAL - _FUNCTION_STEMS):
        return None  # nothing but scheduling words in common: no holder to compare
    reason = f"The same recurring event, said in other words, at {verdict} that cannot both hold."
    return Found("temporal", 0.6, reason, (_span(x, wa.unit),), (_span(y, wb.unit),))


_FUNCTION_STEMS = frozenset({"the", "a", "an", "at", "on", "in", "is", "are", "of", "for", "to", "by"})


def _plain(f: Frame) -> bool:
    return not (f.hedged or f.record or f.change or f.sequenced or f.compared)


def _when(f: Frame, side: Analysis) -> _When | None:
    """The claim's weekday(s) and time of day, when that is all the dates it names."""
    units = [u for u in (*f.dates, *f.years) if u.date is not None]
    if not units or f.years:
        return None
    weekdays: frozenset[int] | None = None
    minute: int | None = None
    twelve = recurring = False
    for u in units:
        d = u.date
        assert d is not None
        if not _weekday_or_clock(d):
            return None
        if d.weekdays is not None:
            if weekdays is not None:
                return None  # "Mondays … and Thursdays": two slots
            weekdays, recurring = d.weekdays, d.recurring
        if d.minute is not None:
            if minute is not None:
                return None  # "from 9:00 to 17:00": a span, two phases
            minute, twelve = d.minute, d.twelve_hour
    if minute is None and weekdays is None:
        return None
    if any(not _frequency_amount(side, q) for q in f.quantities):
        return None  # an amount beside the time ("3 GB at 02:00") is another reading's business
    return _When(weekdays, minute, twelve, recurring, units[-1])


def _past(side: Analysis, f: Frame) -> bool:
    """Past by tense, or a log line that opens with a past verb ("Cleaned the filter at 08:00")."""
    first = side.tokens[0] if side.tokens else None
    log_style = first is not None and first.kind == "word" and first.low.endswith("ed")
    return side.past or f.past or log_style


def _weekday_or_clock(d: DateValue) -> bool:
    """Only a weekday and/or a time of day: no calendar date, era, quarter or part of a month."""
    return (
        d.year is None
        and d.month is None
        and d.day is None
        and d.quarter is None
        and d.part is None
        and d.era is None
        and not d.approx
        and (d.weekdays is not None or d.minute is not None)
    )


def _frequency_amount(side: Analysis, q: Unit) -> bool:
    """ "once a week", "per day": the amount is the frequency itself, not a measured value."""
    words = side.text[q.start : q.end].lower().split()
    before = next((t.low for t in reversed(side.tokens) if t.end <= q.start), "")
    return len(words) <= 2 and words[-1] in _DAILY | _WEEKLY | _MONTHLY and before in {"once", "per", ""} | {"a"}


def _frequency(side: Analysis) -> frozenset[str]:
    """Which frequencies the claim names: daily, weekly, monthly (empty when it says none)."""
    lows = [t.low for t in side.tokens]
    found: set[str] = set()
    for i, w in enumerate(lows):
        prev = lows[i - 1] if i else ""
        marked = w in {"nightly", "daily", "weekly", "monthly", "everyday"} or prev in _EVERY or prev == "a"
        if not marked:
            continue
        if w in _DAILY:
            found.add("daily")
        elif w in _WEEKLY:
            found.add("weekly")
        elif w in _MONTHLY:
            found.add("monthly")
    return frozenset(found)


def _slot_conflict(wa: _When, wb: _When, x: Analysis, y: Analysis, freq: frozenset[str]) -> str | None:
    """Which slot of the schedule the two claims fill differently, or None."""
    if "monthly" in freq:
        return None  # "the first Tuesday of the month": a weekday is not the slot
    days_differ = wa.weekdays is not None and wb.weekdays is not None and not (wa.weekdays & wb.weekdays)
    if days_differ:
        weekly = "weekly" in freq or _says_once(x) or _says_once(y)
        return "weekdays" if weekly else None
    if wa.minute is None or wb.minute is None:
        return None
    if (wa.weekdays is None) != (wb.weekdays is None):
        return None  # "opens at 7 on Saturdays" / "opens at 9": the exception and the rule, or daily and weekly
    if (wa.twelve_hour or wb.twelve_hour) and wa.minute % 720 == wb.minute % 720:
        return None  # "half past six" may be 18:30
    if wa.minute == wb.minute:
        return None
    return "times of day"


def habits_on_several_days(a: DateValue | None, b: DateValue | None, x: Analysis, y: Analysis) -> bool:
    """Two habitual weekdays ("on Mondays" / "on Thursdays") with nothing saying once a week:
    a habit may fall on both days, so the two days are two slots, not two values of one."""
    if a is None or b is None or not (a.recurring and b.recurring):
        return False
    if a.weekdays is None or b.weekdays is None or a.weekdays & b.weekdays:
        return False
    return not ("weekly" in _frequency(x) | _frequency(y) or _says_once(x) or _says_once(y))


def _says_once(side: Analysis) -> bool:
    return any(t.low in _ONCE_A_WEEK for t in side.tokens)


def _same_holder(fa: Frame, fb: Frame) -> bool:
    """The subjects' heads each appear on the other side, and no side names a holder of its own
    ("the staging window" / "the production window")."""
    for f, g in ((fa, fb), (fb, fa)):
        if f.head is not None and f.head not in _NEUTRAL and not _known(f.head, g.concepts | g.stems):
            return False
    own_a = {w for w in fa.subject - _NEUTRAL if not _known(w, fb.concepts | fb.stems)}
    own_b = {w for w in fb.subject - _NEUTRAL if not _known(w, fa.concepts | fa.stems)}
    return not (own_a and own_b)


def _own_words(side: Analysis, other: Frame) -> set[str]:
    """Content words one claim says and the other never does, scheduling and phase words aside."""
    inside = [(u.start, u.end) for u in side.units if u.kind == "date"]
    theirs = other.stems | other.concepts
    own = set()
    for t in side.tokens:
        if t.kind != "word" or t.cap or function_word(t.low) or any(a <= t.start < b for a, b in inside):
            continue
        s = stem(t.low)
        if s in _NEUTRAL or names_a_phase(t.low) or _known(s, theirs):
            continue
        own.add(s)
    return own


def _known(word: str, stems: frozenset[str]) -> bool:
    """The word, or one of its family ("reconciliation" / "reconciled"), is among the stems."""
    return word in stems or any(_kin(word, s) for s in stems)


def _kin(a: str, b: str) -> bool:
    """Two stems of one word family: a long common prefix ("reconciliat" / "reconcil")."""
    shortest = min(len(a), len(b))
    if shortest < 5 or a[:5] != b[:5]:
        return False
    common = 0
    for p, q in zip(a, b, strict=False):
        if p != q:
            break
        common += 1
    return common >= min(shortest, 7) - 1


def _span(side: Analysis, unit: Unit) -> Span:
    return Span(unit.start, unit.end, side.text[unit.start : unit.end])
