"""Wordings that make two values of one attribute different readings of it, not a conflict.

Why: the word rules (``align``) and the meaning rules (``meaning``, ``anchored``) decide "same
attribute, different value". A few wordings show that the two values answer different questions
about the attribute, which no comparison of the values can see. Each reading here is a general
mechanism of English, not a list of examples:

- **capacity vs content**: "holds", "seats", "sleeps", "carries", "fits", "accommodates" and
  "capacity" give what a thing *can* take; with a cue of the present occasion ("currently", "now",
  "right now", "at the moment", "today") the verb gives what it takes *now*. One claim of each
  reading can both hold ("holds 200 litres" / "currently holds 50 litres"); two capacities, or two
  present contents, are still compared.
- **a restricted statement vs a plain one**: "opens at 7 am on weekdays" holds on some days
  (recurring days, weekends, seasons, peak hours) only; a plain "opens at 9 am" is the usual
  statement, which the restricted one may be the exception to (the weekend hours, say). The pair
  is ambiguous rather than contradictory, and detection puts precision first, so it is not
  reported. Two restricted claims (same or other days) are left to the date and value rules.
- **a part vs the total**: "120 rooms and 40 suites" lists parts; a lone "160 rooms" equal to the
  sum of the listed counts reads as their total. Any other value disagrees under both readings
  (the part is 120, the total 160), so it still conflicts.
- **founding one's own organisation vs an employer event**: "started his own company" is a
  founding; "started at the firm" / "joined the company" is an employer event. They are different
  events unless the other claim is a founding too ("founded", "set up", "own").
"""

from __future__ import annotations

import itertools

from reverie.conflict.frame import Analysis

_CAPACITY = frozenset(
    {"hold", "holds", "seat", "seats", "sleep", "sleeps", "carry", "carries", "fit", "fits", "accommodate",
     "accommodates", "capacity"}
)  # fmt: skip
_NOW_WORDS = frozenset({"currently", "now", "today", "tonight", "presently"})
_NOW_PHRASES = (("at", "the", "moment"), ("at", "present"), ("right", "now"), ("at", "the", "minute"))

_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RESTRICTIONS = frozenset(
    {f"{d}s" for d in _DAY_NAMES}
    | {"weekdays", "weekday", "weekends", "weekend", "weeknights", "summer", "winter", "spring", "autumn",
       "holidays", "peak", "off-peak", "rush", "evenings", "mornings", "nights"}
)  # fmt: skip

# "last spring", "this summer", "next weekend": one occasion, not the part of every year or week
# a restriction names.
_ONE_OCCASION = frozenset({"last", "this", "next", "that", "past"})

# "every Sunday" restricts as "on Sundays" does ("every night" is every day, not "works nights").
_EVERY = frozenset({"every", "each"})
_EVERY_RESTRICTS = frozenset(_DAY_NAMES) | {"weekend", "weekday", "summer", "winter", "spring", "autumn"}

_UNIVERSAL_WORDS = frozenset({"daily", "always", "year-round", "everyday"})
_UNIVERSAL_PHRASES = frozenset(
    {("every", "day"), ("each", "day"), ("all", "week"), ("all", "year"), ("year", "round"), ("7", "days"),
     ("seven", "days")}
)  # fmt: skip

_LIST_LINKS = frozenset({"and", ",", "plus"})

_ORGS = frozenset(
    {"company", "firm", "business", "practice", "studio", "agency", "startup", "start-up", "shop", "label",
     "consultancy", "restaurant", "bakery", "clinic"}
)  # fmt: skip
_FOUNDING = frozenset({"own", "founded", "found", "co-founded", "cofounded", "established", "set", "launched"})


def different_readings(x: Analysis, y: Analysis) -> bool:
    """True when the claims read their shared attribute differently (see the module docstring)."""
    return _capacity_vs_content(x, y) or _restricted_vs_plain(x, y) or _part_vs_total(x, y) or _founding(x, y)


def _lows(side: Analysis) -> tuple[str, ...]:
    return tuple(t.low for t in side.tokens)


def _now(side: Analysis) -> bool:
    lows = _lows(side)
    if set(lows) & _NOW_WORDS:
        return True
    return any(lows[i : i + len(p)] == p for p in _NOW_PHRASES for i in range(len(lows)))


def _capacity_vs_content(x: Analysis, y: Analysis) -> bool:
    if not (set(_lows(x)) | set(_lows(y))) & _CAPACITY:
        return False
    return _now(x) != _now(y)


def _restricted(side: Analysis) -> bool:
    """A restricting word outside any quantity ("5 nights" is a length, "works nights" a restriction)."""
    spans = [(u.start, u.end) for u in side.units if u.kind == "qty"]
    return any(
        (t.low in _RESTRICTIONS or (i and t.low in _EVERY_RESTRICTS and side.tokens[i - 1].low in _EVERY))
        and not any(lo <= t.start < hi for lo, hi in spans)
        and not (i and side.tokens[i - 1].low in _ONE_OCCASION)
        for i, t in enumerate(side.tokens)
    )


def _universal(side: Analysis) -> bool:
    """ "every day", "daily", "always", "all year": the claim covers the restricted days too."""
    lows = _lows(side)
    pairs = set(itertools.pairwise(lows))
    return bool(set(lows) & _UNIVERSAL_WORDS) or bool(pairs & _UNIVERSAL_PHRASES)


def _restricted_vs_plain(x: Analysis, y: Analysis) -> bool:
    if _restricted(x) == _restricted(y):
        return False
    plain = y if _restricted(x) else x
    return not _universal(plain)


def _listed_counts(side: Analysis) -> list[tuple[str, float]] | None:
    """The counts of a list "N As and M Bs" (dimension, value), or None when there is none."""
    qty = [u for u in side.units if u.kind == "qty" and u.qty is not None]
    for first, second in itertools.pairwise(qty):
        between = side.tokens[first.tok : second.tok]
        links = [t.low for t in between if t.kind != "num"]
        if first.qty is None or second.qty is None or not any(w in _LIST_LINKS for w in links):
            continue
        if all(q.qty is not None and q.qty.dim.startswith("count") and q.qty.lo == q.qty.hi for q in qty):
            return [(q.qty.dim, q.qty.lo) for q in qty if q.qty is not None]
    return None


def _part_vs_total(x: Analysis, y: Analysis) -> bool:
    for listed, lone in ((x, y), (y, x)):
        parts = _listed_counts(listed)
        if parts is None or _listed_counts(lone) is not None:
            continue
        total = sum(value for _, value in parts)
        dims = {dim for dim, _ in parts}
        for unit in lone.units:
            q = unit.qty
            if unit.kind == "qty" and q is not None and q.dim in dims and q.lo == q.hi == total:
                return True
    return False


def _own_org(side: Analysis) -> bool:
    """The claim names an organisation of one's own and no other ("left the firm to start his own
    company" names the employer too, so its date is still the employer event's)."""
    lows = _lows(side)
    own = {j for i, w in enumerate(lows) if w == "own" for j in (i + 1, i + 2) if j < len(lows) and lows[j] in _ORGS}
    others = {i for i, w in enumerate(lows) if w in _ORGS} - own
    return bool(own) and not others


def _founding(x: Analysis, y: Analysis) -> bool:
    return any(_own_org(own) and not set(_lows(other)) & _FOUNDING for own, other in ((x, y), (y, x)))
