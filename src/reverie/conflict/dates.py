"""Finding dates and times in a claim, as partial values that can be compared field by field.

A claim rarely states a full timestamp: "May 3", "in Q2", "at 3pm on Thursday", "Mondays".
So a date here is a bag of optional fields, and two dates disagree only on a field *both*
state. That makes "in May" vs "on May 3" a refinement, not a conflict, and "Friday" vs
"March 3" unknown (we do not guess the year), which the detector treats as no conflict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from reverie.conflict.text import Token
from reverie.conflict.units import NUMBER_WORDS, lookup

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12,
    "dec": 12,
}  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_SETS = {
    "weekday": frozenset(range(5)),
    "weekdays": frozenset(range(5)),
    "weekend": frozenset({5, 6}),
    "weekends": frozenset({5, 6}),
}
_ORDINAL_SUFFIX = frozenset({"st", "nd", "rd", "th"})
_MERIDIEM = {"am": 0, "a.m": 0, "pm": 12, "p.m": 12}
_TIMEZONES = frozenset({"utc", "gmt", "cet", "cest", "pst", "pdt", "est", "edt", "bst", "ist", "jst", "ct", "pt"})
_YEAR_LEFT = frozenset(
    {"in", "since", "until", "till", "by", "from", "of", "during", "before", "after", "circa", "around",
     "early", "late", "mid", "year", "summer", "winter", "spring", "autumn", "fall"}
)  # fmt: skip
_CONNECTORS = frozenset({"at", "on", "of", "the"})
_APPROX = frozenset({"around", "about", "approximately", "roughly", "~", "circa"})
_PARTS = {"early": "early", "mid": "mid", "late": "late"}
#: The only tokens a date part can start on (``_part_at``): numbers, ISO dates and clock times,
#: or one of these words (named times, months, weekdays, quarters, parts of a month).
_DATE_KINDS = frozenset({"num", "iso", "clock"})
#: Hours said in words ("seven o'clock", "half past six"), and minutes before "past" / "to".
_HOUR_WORDS = {w: int(v) for w, v in NUMBER_WORDS.items() if v in range(1, 13) and w not in {"dozen", "a", "an"}}
_MINUTE_WORDS = {w: int(v) for w, v in NUMBER_WORDS.items() if v in range(1, 30) and w not in {"dozen", "a", "an"}}
_MINUTE_WORDS.update({"half": 30, "quarter": 15, "twenty-five": 25})
#: What places a spoken hour in the day: am / pm, or a part of the day after it.
_DAY_PARTS = {("in", "the", "morning"): "am", ("in", "the", "afternoon"): "pm", ("in", "the", "evening"): "pm",
              ("at", "night"): "night"}  # fmt: skip
_DATE_WORDS = frozenset(
    {"noon", "midday", "midnight", *_MONTHS, *_WEEKDAY_SETS, *_WEEKDAYS, *(d + "s" for d in _WEEKDAYS), *_PARTS}
    | {f"q{n}" for n in "1234"}
)
#: Words a time said in words can start on ("a quarter past", "seven o'clock"): only that parser.
_SPOKEN_WORDS = frozenset({"a", *_HOUR_WORDS, *_MINUTE_WORDS})


@dataclass(frozen=True)
class DateValue:
    """What a claim says about when: every field optional, compared only where both speak."""

    year: int | None = None
    month: int | None = None
    day: int | None = None
    day_to: int | None = None  # the last day of a span of days ("6 to 8 May"), inclusive
    weekdays: frozenset[int] | None = None
    minute: int | None = None  # minute of the day
    twelve_hour: bool = False  # "half past six": minute is on a 12-hour clock (0-719), am or pm unknown
    quarter: int | None = None
    part: str | None = None  # early / mid / late (of a month)
    tz: str | None = None
    approx: bool = False
    recurring: bool = False
    era: tuple[int, int] | None = None  # a decade or century: first and last year, inclusive


@dataclass(frozen=True)
class DateMention:
    """A date found in a claim: token range [first, stop) and character span."""

    first: int
    stop: int
    start: int
    end: int
    value: DateValue


def find_dates(tokens: tuple[Token, ...]) -> list[DateMention]:
    """Every date or time mention, adjacent parts merged ("May 3, 2025 at 3pm" is one)."""
    out: list[DateMention] = []
    i = 0
    while i < len(tokens):
        found = _part_at(tokens, i)
        if found is None:
            i += 1
            continue
        value, stop = found
        value, stop = _merge_following(tokens, value, stop)
        first = i - 1 if i > 0 and tokens[i - 1].low in _APPROX and value.minute is not None else i
        if first < i:
            value = replace(value, approx=True)
        out.append(DateMention(first, stop, tokens[first].start, tokens[stop - 1].end, value))
        i = stop
    return out


def _merge_following(tokens: tuple[Token, ...], value: DateValue, stop: int) -> tuple[DateValue, int]:
    """Absorb date parts that follow, possibly across "at"/"on"/"of"/"the", and a time zone."""
    while True:
        value, stop = _absorb_timezone(tokens, value, stop)
        j = stop
        while j < len(tokens) and j - stop < 2 and tokens[j].low in _CONNECTORS:
            j += 1
        nxt = _part_at(tokens, j) if j < len(tokens) else None
        if nxt is None:
            return value, stop
        merged = _merge(value, nxt[0])
        if merged is None:
            return value, stop
        value, stop = merged, nxt[1]


def _absorb_timezone(tokens: tuple[Token, ...], value: DateValue, stop: int) -> tuple[DateValue, int]:
    if value.minute is None or stop >= len(tokens):
        return value, stop
    tok = tokens[stop]
    if tok.low in _TIMEZONES:
        return replace(value, tz=tok.low), stop + 1
    if stop + 1 < len(tokens) and tokens[stop + 1].low == "time" and (tok.low == "local" or tok.cap):
        return replace(value, tz=tok.low), stop + 2
    return value, stop


def _merge(a: DateValue, b: DateValue) -> DateValue | None:
    """Combine two parts when they state different fields; None when they overlap."""
    fields = ("year", "month", "day", "weekdays", "minute", "quarter", "part", "era")
    merged: dict[str, object] = {}
    for name in fields:
        va, vb = getattr(a, name), getattr(b, name)
        if va is not None and vb is not None:
            return None
        merged[name] = va if va is not None else vb
    return DateValue(
        year=_opt_int(merged["year"]),
        month=_opt_int(merged["month"]),
        day=_opt_int(merged["day"]),
        day_to=a.day_to if a.day_to is not None else b.day_to,
        weekdays=a.weekdays if a.weekdays is not None else b.weekdays,
        minute=_opt_int(merged["minute"]),
        twelve_hour=a.twelve_hour or b.twelve_hour,
        quarter=_opt_int(merged["quarter"]),
        part=a.part or b.part,
        tz=a.tz or b.tz,
        approx=a.approx or b.approx,
        recurring=a.recurring or b.recurring,
        era=a.era or b.era,
    )


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _part_at(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    """One date part starting exactly at token ``i``."""
    tok = tokens[i]
    if tok.kind not in _DATE_KINDS and tok.low not in _DATE_WORDS:
        if tok.low in _SPOKEN_WORDS:
            return _spoken_time(tokens, i)
        if "-" in tok.low and _HYPHEN_ERA.fullmatch(tok.low):
            return _era(tokens, i)
        return None  # no parser below starts on any other token: skip trying each in turn
    for parser in (_iso, _era, _clock, _meridiem, _named_time, _spoken_time, _month_first, _day_first, _lone_day,
                   _weekday, _quarter, _part):  # fmt: skip
        found = parser(tokens, i)
        if found is not None:
            return found
    return _year(tokens, i)


def _small_int(tok: Token, hi: int) -> int | None:
    """A plain integer token in [0, hi]; longer digit strings are never days or hours."""
    if tok.kind != "num" or not tok.low.isdigit() or len(tok.low) > 4:
        return None
    n = int(tok.low)
    return n if n <= hi else None


def _iso(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    tok = tokens[i]
    if tok.kind != "iso":
        return None
    y, m, d = (int(p) for p in tok.low.split("-"))
    if not (1 <= m <= 12 and 1 <= d <= 31):
        return None
    return DateValue(year=y, month=m, day=d), i + 1


def _clock(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    tok = tokens[i]
    if tok.kind != "clock":
        return None
    h, m = (int(p) for p in tok.low.split(":"))
    stop = i + 1
    if stop < len(tokens) and tokens[stop].low in _MERIDIEM and h <= 12:
        h = h % 12 + _MERIDIEM[tokens[stop].low]
        stop += 1
    if h > 23 or m > 59:
        return None
    return DateValue(minute=h * 60 + m), stop


def _meridiem(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    h = _small_int(tokens[i], 12)
    if h is None or i + 1 >= len(tokens) or tokens[i + 1].low not in _MERIDIEM:
        return None
    return DateValue(minute=(h % 12 + _MERIDIEM[tokens[i + 1].low]) * 60), i + 2


def _named_time(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    low = tokens[i].low
    if low == "noon" or low == "midday":
        return DateValue(minute=12 * 60), i + 1
    if low == "midnight":
        return DateValue(minute=0), i + 1
    return None


def _spoken_time(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    """A time of day in words: "a quarter to ten", "half past six pm", "seven o'clock in the evening",
    "eleven at night". Without am / pm or a part of the day, a "past" / "to" / "o'clock" time is on a
    12-hour clock (``twelve_hour``); a bare number with neither is not a time at all."""
    offset, j = _minutes_before_hour(tokens, i)
    hour = _spoken_hour(tokens[j]) if j < len(tokens) else None
    if hour is None:
        return None
    j += 1
    oclock = j < len(tokens) and tokens[j].low == "o'clock"
    j += oclock
    part, j = _day_part(tokens, j)
    if part is None and not offset and not oclock:
        return None  # "seven", "at 7": a number, not a time
    if part is None:
        return DateValue(minute=(hour % 12 * 60 + offset) % 720, twelve_hour=True), j
    base = hour % 12 + (12 if part == "pm" or (part == "night" and 6 <= hour < 12) else 0)
    return DateValue(minute=(base * 60 + offset) % 1440), j


def _minutes_before_hour(tokens: tuple[Token, ...], i: int) -> tuple[int, int]:
    """ "a quarter past" / "twenty to" / "10 minutes past": (signed minutes, index of the hour);
    (0, i) when the time starts on the hour itself."""
    j = i + (tokens[i].low == "a" and i + 1 < len(tokens) and tokens[i + 1].low == "quarter")
    tok = tokens[j]
    minutes = _MINUTE_WORDS.get(tok.low)
    if minutes is None and tok.kind == "num" and tok.low.isdigit() and 0 < int(tok.low) < 60:
        minutes = int(tok.low)
    if minutes is None:
        return 0, i
    k = j + 1
    said_minutes = k < len(tokens) and tokens[k].low in {"minute", "minutes"} and tok.low not in {"half", "quarter"}
    k += said_minutes
    if tok.kind == "num" and not said_minutes:
        return 0, i  # "5 to 6", "7 past" : digits alone before past / to are a range or a count
    if k >= len(tokens) or tokens[k].low not in {"past", "after", "to"}:
        return 0, i
    if tokens[k].low == "to" and tok.low not in {"quarter", "a"} and not said_minutes and _range_follows(tokens, k + 2):
        return 0, i  # "ten to twelve people", "five to six hours": a range, not a time
    return (-minutes if tokens[k].low == "to" else minutes), k + 1


def _range_follows(tokens: tuple[Token, ...], j: int) -> bool:
    """After "ten to twelve": a word that is not a time's ("people", "hours"), so a range."""
    if j >= len(tokens) or tokens[j].kind != "word" or tokens[j].low in {"o'clock", *_MERIDIEM}:
        return False
    return not any(tuple(t.low for t in tokens[j : j + len(w)]) == w for w in _DAY_PARTS) and tokens[j].low not in {
        "on", "in", "at", "every", "each", "and", "or", "but", "sharp", "today", "tonight", "tomorrow", "this", "the"
    }  # fmt: skip


def _spoken_hour(tok: Token) -> int | None:
    if tok.kind == "num":
        return _small_int(tok, 12) or None
    return _HOUR_WORDS.get(tok.low)


def _day_part(tokens: tuple[Token, ...], j: int) -> tuple[str | None, int]:
    if j < len(tokens) and tokens[j].low in _MERIDIEM:
        return ("am" if _MERIDIEM[tokens[j].low] == 0 else "pm"), j + 1
    for words, part in _DAY_PARTS.items():
        if tuple(t.low for t in tokens[j : j + len(words)]) == words:
            return part, j + len(words)
    return None, j


def _month_at(tokens: tuple[Token, ...], i: int) -> int | None:
    """A month name; capitalised, so "may" the modal and "march" the verb stay words."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok.kind != "word" or not tok.text[:1].isupper():
        return None
    return _MONTHS.get(tok.low)


def _day_at(tokens: tuple[Token, ...], i: int) -> tuple[int, int] | None:
    """A day of month ("3", "3rd") at ``i``: (day, next index)."""
    if i >= len(tokens):
        return None
    day = _small_int(tokens[i], 31)
    if day is None or day == 0:
        return None
    nxt = i + 1
    if nxt < len(tokens) and tokens[nxt].low in _ORDINAL_SUFFIX and tokens[nxt].start == tokens[i].end:
        nxt += 1
    return day, nxt


_SPAN_WORDS = frozenset({"to", "-", "–", "—", "through", "until", "till"})


def _day_span_at(tokens: tuple[Token, ...], i: int) -> tuple[int, int | None, int] | None:
    """A day of month, or a span of days ("6 to 8", "6-8", "6th through 8th") at ``i``:
    (first day, last day or None, next index)."""
    first = _day_at(tokens, i)
    if first is None:
        return None
    j = first[1]
    if j + 1 < len(tokens) and tokens[j].low in _SPAN_WORDS:
        last = _day_at(tokens, j + 1)
        if last is not None and last[0] > first[0]:
            return first[0], last[0], last[1]
    return first[0], None, j


def _year_at(tokens: tuple[Token, ...], i: int) -> int | None:
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok.kind != "num" or not tok.low.isdigit() or len(tok.low) != 4:
        return None
    n = int(tok.low)
    return n if 1800 <= n <= 2199 else None


def _month_first(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    month = _month_at(tokens, i)
    if month is None:
        return None
    day = _day_span_at(tokens, i + 1)
    if tokens[i].low == "may" and day is None and _year_at(tokens, i + 1) is None and i == 0:
        return None
    stop = i + 1 if day is None else day[2]
    year = _year_at(tokens, stop)
    first, last = (None, None) if day is None else day[:2]
    return DateValue(year=year, month=month, day=first, day_to=last), stop + (year is not None)


def _day_first(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    day = _day_span_at(tokens, i)
    if day is None:
        return None
    j = day[2]
    if j < len(tokens) and tokens[j].low == "of":
        j += 1
    month = _month_at(tokens, j)
    if month is None:
        return None
    year = _year_at(tokens, j + 1)
    return DateValue(year=year, month=month, day=day[0], day_to=day[1]), j + 1 + (year is not None)


def _weekday(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    low = tokens[i].low
    if low in _WEEKDAY_SETS:
        return DateValue(weekdays=_WEEKDAY_SETS[low], recurring=True), i + 1
    plural = low.endswith("s") and low[:-1] in _WEEKDAYS
    name = low[:-1] if plural else low
    if name not in _WEEKDAYS:
        return None
    return DateValue(weekdays=frozenset({_WEEKDAYS.index(name)}), recurring=plural), i + 1


def _quarter(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    low = tokens[i].low
    if len(low) == 2 and low[0] == "q" and low[1] in "1234":
        return DateValue(quarter=int(low[1])), i + 1
    return None


def _part(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    part = _PARTS.get(tokens[i].low)
    if part is None:
        return None
    j = i + 1
    if j < len(tokens) and tokens[j].low == "-":
        j += 1
    month = _month_at(tokens, j)
    if month is None:
        return None
    return DateValue(month=month, part=part), j + 1


def _era(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    """ "the 1990s" (a decade), "the 1800s" / "the 19th century" (a century): a span of years;
    "the early 1940s" / "the mid-1980s" / "late 2000s": the part of it named.

    A two-digit decade only after "the", so "in her 80s" (an age) and "19th" alone (an ordinal)
    stay numbers. A round hundred ("the 1900s") may mean a decade or the century; the century,
    the wider reading, is taken, so it conflicts with fewer years."""
    hyphenated = _HYPHEN_ERA.fullmatch(tokens[i].low)
    if hyphenated is not None:  # "mid-1980s" is one token
        return _decade(int(hyphenated.group(2)), hyphenated.group(1)), i + 1
    part = _PARTS.get(tokens[i].low)
    j = i + 1 if part is not None else i
    if j + 1 >= len(tokens) or (part is None and (i == 0 or tokens[i - 1].low != "the")):
        return None
    tok, nxt = tokens[j], tokens[j + 1]
    if tok.kind != "num" or not tok.low.isdigit() or nxt.start != tok.end:
        return None
    n = int(tok.low)
    if nxt.low == "s" and len(tok.low) == 4 and n % 10 == 0 and 1000 <= n < 2200:
        return _decade(n, part), j + 2
    century = j + 2 < len(tokens) and tokens[j + 2].low == "century"
    if part is None and century and nxt.low in _ORDINAL_SUFFIX and 1 <= n <= 22:
        return DateValue(era=(100 * (n - 1), 100 * n)), j + 3
    return None


_HYPHEN_ERA = re.compile(r"(early|mid|late)-(1[0-9]{2}0|2[01][0-9]0)s")
#: Which years of a decade (or century, scaled by ten) "early", "mid" and "late" cover: thirds
#: that overlap, because people round ("the early 1940s" takes in 1943).
_ERA_PARTS = {"early": (0, 4), "mid": (3, 7), "late": (5, 9)}


def _decade(n: int, part: str | None) -> DateValue:
    """A round hundred ("the 2000s") is read both as a decade and as a century, and the span
    covering both is kept: "the late 2000s" is 2005-2009 to one reader, 2050-2099 to another."""
    readings = [(n, 10)] + ([(n, 100)] if n % 100 == 0 else [])
    spans = [_part_of(start, size, part) for start, size in readings]
    return DateValue(era=(min(lo for lo, _ in spans), max(hi for _, hi in spans)))


def _part_of(start: int, size: int, part: str | None) -> tuple[int, int]:
    if part is None:
        return start, start + size - 1
    lo, hi = _ERA_PARTS[part]
    scale = size // 10
    return start + lo * scale, start + hi * scale + scale - 1


# Words that may follow a lone day of month ("due on the 15th of …", "on the 3rd at noon").
_AFTER_LONE_DAY = frozenset({"of", "at", "and", "or", "this", "next", "last", "instead", "but"})


def _lone_day(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    """ "on the 15th": a day of the month with no month named. Only after "on the", with an
    ordinal suffix, and not before a noun ("on the 5th floor" is a floor)."""
    if i < 2 or tokens[i - 1].low != "the" or tokens[i - 2].low != "on":
        return None
    day = _day_at(tokens, i)
    if day is None or day[1] == i + 1:
        return None  # no ordinal suffix: "on the 3 servers"
    stop = day[1]
    if stop < len(tokens) and tokens[stop].kind == "word" and tokens[stop].low not in _AFTER_LONE_DAY:
        return None
    return DateValue(day=day[0]), stop


def _year(tokens: tuple[Token, ...], i: int) -> tuple[DateValue, int] | None:
    """A bare four-digit year, only where the words around it say it is one."""
    year = _year_at(tokens, i)
    if year is None:
        return None
    before = tokens[i - 1].low if i > 0 else ""
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if after is not None and lookup(after.low) is not None:
        return None  # "2048 MiB", "1500 km": an amount of something, not a year
    if before in _YEAR_LEFT or after is None or after.kind != "word" or after.cap:
        return DateValue(year=year), i + 1
    return None


# ---- comparison ----------------------------------------------------------------------------

_PART_DAYS = {"early": range(1, 11), "mid": range(11, 21), "late": range(21, 32)}


def date_fields_in_conflict(a: DateValue, b: DateValue) -> tuple[str, ...]:
    """Calendar fields both dates state with different values."""
    bad: list[str] = []
    for name in ("year", "month", "day", "quarter"):
        va, vb = getattr(a, name), getattr(b, name)
        if va is not None and vb is not None and va != vb:
            if name == "day" and _days_overlap(a, b):
                continue  # "6 to 8 May" / "7 May": a day inside the span
            bad.append(name)
    if a.weekdays is not None and b.weekdays is not None and not a.weekdays & b.weekdays:
        bad.append("weekday")
    if _era_conflict(a, b) or _era_conflict(b, a):
        bad.append("year")
    for x, y in ((a, b), (b, a)):
        if x.quarter is not None and y.month is not None and (y.month - 1) // 3 + 1 != x.quarter:
            bad.append("quarter")
        if x.part is not None and y.day is not None and y.day not in _PART_DAYS[x.part]:
            bad.append("day")
    return tuple(dict.fromkeys(bad))


def _days_overlap(a: DateValue, b: DateValue) -> bool:
    """Two days or spans of days that share a day (a lone day is a span of one)."""
    if a.day is None or b.day is None:
        return False
    a_last = a.day if a.day_to is None else a.day_to
    b_last = b.day if b.day_to is None else b.day_to
    return a.day <= b_last and b.day <= a_last


def _era_conflict(a: DateValue, b: DateValue) -> bool:
    """``a`` names a decade or century that ``b``'s era or year falls outside of."""
    if a.era is None:
        return False
    lo, hi = a.era
    if b.era is not None:
        return b.era[1] < lo or b.era[0] > hi
    return b.year is not None and not lo <= b.year <= hi


def time_in_conflict(a: DateValue, b: DateValue) -> bool:
    """Both give a time of day, in the same (or no) time zone, further apart than allowed."""
    if a.minute is None or b.minute is None:
        return False
    if a.tz is not None and b.tz is not None and a.tz != b.tz:
        return False
    tolerance = 30 if a.approx or b.approx else 0
    if a.twelve_hour or b.twelve_hour:  # "half past six" is 6:30 or 18:30: compare on a 12-hour dial
        gap = abs(a.minute % 720 - b.minute % 720)
        return min(gap, 720 - gap) > tolerance
    return abs(a.minute - b.minute) > tolerance


def describe(value: DateValue) -> str:
    """A short canonical rendering for reasons: 2025-05-03, May, 15:00, Mon."""
    bits: list[str] = []
    if value.era is not None:
        bits.append(f"{value.era[0]}-{value.era[1]}")
    if value.year is not None or value.month is not None or value.day is not None:
        day = value.day if value.day_to is None else f"{value.day}..{value.day_to}"
        bits.append("-".join(str(x) for x in (value.year, value.month, day) if x is not None))
    if value.quarter is not None:
        bits.append(f"Q{value.quarter}")
    if value.weekdays is not None:
        bits.append("/".join(_WEEKDAYS[d][:3] for d in sorted(value.weekdays)))
    if value.minute is not None:
        clock = f"{value.minute // 60:02d}:{value.minute % 60:02d}"
        bits.append(f"{clock} or {value.minute // 60 + 12:02d}:{value.minute % 60:02d}" if value.twelve_hour else clock)
    return " ".join(bits)
