"""Quantities: a number (or range, or bound) with a unit, compared as intervals.

Why intervals: "about 100", "between 90 and 110", "at least 12", "up to 1,000" and "100" are
all statements about where a value lies. Two claims about the same quantity disagree exactly
when their intervals cannot overlap, after converting units and allowing for rounding. That
one rule covers exact numbers, approximations, ranges and bounds, and it explains itself:
"100-110 vs 500".

Why units carry a dimension: "30 seconds" and "30 minutes" disagree, "1 hour" and "60 minutes"
agree, and "3 kids" and "2 daughters" are not the same quantity at all. A count noun is its own
dimension, so only counts of the same thing are compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reverie.conflict import units
from reverie.conflict.lexicon import VERB_FORMS
from reverie.conflict.text import FILLERS, Token, is_structural, stem, tokenize

_APPROX = frozenset({"about", "around", "roughly", "approximately", "approx", "~", "circa", "some"})
_LOWER_BOUNDS: tuple[tuple[str, ...], ...] = (
    ("at", "least"), ("more", "than"), ("greater", "than"), ("no", "less", "than"), ("upwards", "of"),
    ("over",), ("above",), ("minimum",), ("min",), (">",),
)  # fmt: skip
_UPPER_BOUNDS: tuple[tuple[str, ...], ...] = (
    ("at", "most"), ("up", "to"), ("less", "than"), ("fewer", "than"), ("no", "more", "than"),
    ("under",), ("below",), ("maximum",), ("max",), ("<",),
)  # fmt: skip


def _by_first_word(phrases: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The phrases grouped by their first word, each group in the original order.

    Every token of every claim is tried as the start of a quantity, and almost none starts a
    bound: one dict lookup turns those away instead of a slice per phrase. A phrase can only
    match where its first word is, so the first match in the original order is unchanged.
    """
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        out.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(group) for first, group in out.items()}


_LOWER_BY_FIRST = _by_first_word(_LOWER_BOUNDS)
_UPPER_BY_FIRST = _by_first_word(_UPPER_BOUNDS)
_NEARLY = frozenset({"nearly", "almost"})
_RANGE_JOINERS = frozenset({"-", "–", "to"})
_PER = frozenset({"per", "a", "an", "each", "every", "/"})
_APPROX_TOLERANCE = 0.1
_STRICT = frozenset({"more", "greater", "over", "above", ">", "less", "fewer", "under", "below", "<"})
# Lower-case words after a number that do not count anything: "1 after the alert", "5521 today".
_NOT_NOUNS = frozenset(
    {"old", "each", "more", "less", "times", "percent", "of", "and", "after", "before", "ago", "later",
     "earlier", "today", "tonight", "tomorrow", "yesterday", "again", "too", "only", "instead", "all"}
)  # fmt: skip
# Periods that read as "per X" after "a"/"per" without being time units ("5 hours a night").
_PER_PERIODS = {"night": 86400.0, "morning": 86400.0, "evening": 86400.0, "daily": 86400.0}


@dataclass(frozen=True)
class Quantity:
    """A value interval in base units, with what it measures (``dim``) and how it was said."""

    lo: float
    hi: float
    lo_open: bool
    hi_open: bool
    dim: str
    key: str  # canonical unit ("min", "gb/s"): a different key means a conversion happened
    unit: str  # the words as written, for reasons
    exact: str | None  # the digits of an exact unit-less number: versions compare as text
    approx: bool


@dataclass(frozen=True)
class QuantityMention:
    """A quantity found in a claim: token range [first, stop) and character span."""

    first: int
    stop: int
    start: int
    end: int
    value: Quantity


def find_quantities(tokens: tuple[Token, ...], taken: frozenset[int]) -> list[QuantityMention]:
    """Every quantity in the tokens, skipping token indices already claimed (dates)."""
    out: list[QuantityMention] = []
    i = 0
    while i < len(tokens):
        found = None if i in taken else _parse_at(tokens, i, taken)
        if found is None:
            i += 1
            continue
        stop, value = found
        out.append(QuantityMention(i, stop, tokens[i].start, tokens[stop - 1].end, value))
        i = stop
    return out


def parse_value(text: str) -> Quantity | None:
    """A structured slot value ("30 s", "2 min", "100") as one quantity, else None."""
    tokens = tokenize(text)
    if not tokens:
        return None
    found = _parse_at(tokens, 0, frozenset())
    if found is None or found[0] != len(tokens):
        return None
    return found[1]


# ---- parsing -------------------------------------------------------------------------------


def _match_phrase(tokens: tuple[Token, ...], i: int, by_first: dict[str, tuple[tuple[str, ...], ...]]) -> int:
    """Length of the first phrase (``_by_first_word`` groups) that starts at ``i``, 0 if none."""
    for phrase in by_first.get(tokens[i].low, ()):
        if tuple(t.low for t in tokens[i : i + len(phrase)]) == phrase:
            return len(phrase)
    return 0


def _modifier(tokens: tuple[Token, ...], i: int) -> tuple[str, int]:
    """A hedge or bound in front of a number: (kind, tokens used)."""
    low = tokens[i].low
    if low in _APPROX:
        return "approx", 1
    if low in _NEARLY:
        return "nearly", 1
    if low == "between":
        return "between", 1
    if low == "exactly":
        return "exact", 1
    n = _match_phrase(tokens, i, _LOWER_BY_FIRST)
    if n:
        return "lower", n
    n = _match_phrase(tokens, i, _UPPER_BY_FIRST)
    if n:
        return "upper", n
    return "", 0


def _parse_at(tokens: tuple[Token, ...], i: int, taken: frozenset[int]) -> tuple[int, Quantity] | None:
    kind, used = _modifier(tokens, i)
    j = i + used
    currency = units.currency_symbol(tokens[j].low) if j < len(tokens) else None
    j += currency is not None
    number = _number_at(tokens, j, taken)
    if number is None:
        return None
    lo, j, exact = number
    if _and_a_half(tokens, j) and j + 2 not in taken:  # "two and a half km"
        lo, j, exact = lo + 0.5, j + 3, None
    hi = lo
    second = _range_end(tokens, j, taken, between=kind == "between")
    if second is not None:
        hi, j = second
        exact = None
        if hi < lo:
            return None
        kind = "range"
    unit, j = _unit_at(tokens, j, currency, taken)
    if unit is not None and lo == hi == round(lo) and _and_a_half(tokens, j) and j + 2 not in taken:
        lo = hi = lo + 0.5  # "an hour and a half"
        exact, j = None, j + 3
    if unit is None and tokens[i + used].kind != "num":
        return None  # a number word without a unit ("the old one") is not a quantity
    if _age(unit, tokens, j):
        # "12 years old" is how people say an age they also write bare ("Ahmed's son is 15").
        unit, j = None, j + 1
        exact = None if kind else f"{lo:g}"
    return j, _build(lo, hi, kind, unit, exact, tokens, i, j)


def _age(unit: units.Unit | None, tokens: tuple[Token, ...], j: int) -> bool:
    return unit is not None and unit.key == "yr" and j < len(tokens) and tokens[j].low == "old"


def _number_at(tokens: tuple[Token, ...], i: int, taken: frozenset[int]) -> tuple[float, int, str | None] | None:
    """A number at ``i``: (value, next index, exact digits or None)."""
    if i >= len(tokens) or i in taken:
        return None
    tok = tokens[i]
    if tok.kind == "num":
        digits = tok.low.replace(",", "")
        value = float(digits)
        j = i + 1
        if j < len(tokens) and j not in taken:
            mult = units.MULTIPLIERS.get(tokens[j].low)
            if mult is not None and (tokens[j].low != "k" or tokens[j].start == tok.end):
                return value * mult, j + 1, None
        return value, j, digits
    return _number_word_at(tokens, i)


def _number_word_at(tokens: tuple[Token, ...], i: int) -> tuple[float, int, str | None] | None:
    low = tokens[i].low
    if low == "half" and i + 2 < len(tokens) and tokens[i + 1].low in {"a", "an"}:
        # "half a kilo", "half an hour", "half a dozen": half of one of what follows.
        one = _number_word_at(tokens, i + 1)
        return None if one is None else (one[0] / 2, one[1], None)
    if low in {"a", "an"} and i + 1 < len(tokens):
        nxt = tokens[i + 1].low
        if nxt in {"dozen", "hundred", "thousand"}:
            return units.NUMBER_WORDS[nxt], i + 2, None
        if units.time_unit(nxt) is not None or _spelled_measure(nxt):
            return 1.0, i + 1, None  # "an hour", "a kilo": one, and the unit follows
        return None
    if "-" in low:
        parts = low.split("-")
        if len(parts) == 2 and all(p in units.NUMBER_WORDS for p in parts):
            return units.NUMBER_WORDS[parts[0]] + units.NUMBER_WORDS[parts[1]], i + 1, None
        return None
    if low in units.NUMBER_WORDS and low not in {"dozen", "hundred", "thousand"}:
        value = units.NUMBER_WORDS[low]
        if i + 1 < len(tokens) and tokens[i + 1].low in {"hundred", "thousand"}:
            return value * units.NUMBER_WORDS[tokens[i + 1].low], i + 2, None
        return value, i + 1, None
    return None


#: Dimensions whose units, spelled out, can follow "a" / "an" as an amount of one ("a litre").
_MEASURES = frozenset({"length", "mass", "volume"})


def _spelled_measure(word: str) -> bool:
    unit = units.lookup(word)
    return unit is not None and unit.dim in _MEASURES and len(word) > 2


def _and_a_half(tokens: tuple[Token, ...], j: int) -> bool:
    """ "and a half" at ``j`` ("two and a half years", "an hour and a half")."""
    return [t.low for t in tokens[j : j + 3]] == ["and", "a", "half"]


def _range_end(tokens: tuple[Token, ...], j: int, taken: frozenset[int], *, between: bool) -> tuple[float, int] | None:
    """The upper end of "90-110", "7 to 8", "between 99.5% and 99.9%" (a unit may follow either end)."""
    k = j
    if k < len(tokens) and units.lookup(tokens[k].low) is not None and k + 1 < len(tokens):
        k += 1  # "5 km to 10 km": the unit repeated after the first number
    if k >= len(tokens):
        return None
    joiner = tokens[k].low
    if not (joiner in _RANGE_JOINERS or (between and joiner == "and")):
        return None
    k += 1
    if k < len(tokens) and units.currency_symbol(tokens[k].low) is not None:
        k += 1
    number = _number_at(tokens, k, taken)
    if number is None:
        return None
    return number[0], number[1]


def _unit_at(
    tokens: tuple[Token, ...], j: int, currency: str | None, taken: frozenset[int]
) -> tuple[units.Unit | None, int]:
    """The unit after a number, folded with any rate denominator ("per minute")."""
    unit: units.Unit | None = units.currency_unit(currency) if currency else None
    if unit is None:
        found = _simple_unit(tokens, j, taken)
        if found is None:
            den = _denominator(tokens, j, taken) if j < len(tokens) and tokens[j].low == "/" else None
            if den is None:
                return None, j
            return units.Unit(f"bare/{den[0].dim}", f"/{den[0].key}", 1.0 / den[0].factor), den[1]
        unit, j = found
    den = _denominator(tokens, j, taken)
    if den is None:
        return unit, j
    den_unit, j = den
    rate = units.Unit(
        dim=f"{unit.dim}/{den_unit.dim}",
        key=f"{unit.key}/{den_unit.key}",
        factor=unit.factor / den_unit.factor,
    )
    return rate, j


def _simple_unit(tokens: tuple[Token, ...], j: int, taken: frozenset[int]) -> tuple[units.Unit, int] | None:
    if j >= len(tokens) or j in taken:
        return None
    tok = tokens[j]
    if tok.low in {"st", "nd", "rd", "th"} and j > 0 and tok.start == tokens[j - 1].end:
        return units.Unit("ordinal", "ord", 1.0), j + 1
    if tok.low == "°" and j + 1 < len(tokens):
        scale = units.lookup("°" + tokens[j + 1].low)
        if scale is not None:
            return scale, j + 2
    if tok.low in {"square", "sq"} and j + 1 < len(tokens) and j + 1 not in taken:
        length = units.lookup(tokens[j + 1].low) or (units.lookup("metres") if tokens[j + 1].low == "m" else None)
        if length is not None and length.dim == "length":
            return units.squared(length), j + 2  # "65 square metres", "700 sq ft"
    unit = units.lookup(tok.low)
    if unit is not None:
        return unit, j + 1
    if tok.low == "m" and any(t.low in _EXTENT_WORDS for t in tokens):
        # A bare "m" is metres, minutes, months or millions; in a claim about how long, high or
        # deep something is it can only be metres ("2000 m long" = "2 km long").
        return units.lookup("metres") or units.Unit("length", "m", 1.0), j + 1
    if _count_noun(tok) and tok.start - tokens[j - 1].end <= 1:
        # Only a noun right after the number counts it: "3: all normal" is no count of "all".
        noun = units.count_key(stem(tok.low))
        return units.Unit(f"count:{noun}", noun, 1.0), j + 1
    return None


_EXTENT_WORDS = frozenset(
    {"long", "high", "tall", "wide", "deep", "away", "across", "length", "height", "width", "depth", "distance"}
)


def _count_noun(tok: Token) -> bool:
    """A plain lower-case noun after a number counts things of that kind ("3 kids").

    Right after a number, "calls" or "runs" is a plural noun, not a verb; only participles
    ("3 meeting rooms") are kept out.
    """
    return (
        tok.kind == "word"
        and tok.text.islower()
        and tok.low.isalpha()
        and not is_structural(tok.low)
        and tok.low not in FILLERS
        and not (tok.low in VERB_FORMS and tok.low.endswith(("ed", "ing")))
        and tok.low not in _NOT_NOUNS
    )


def _denominator(tokens: tuple[Token, ...], j: int, taken: frozenset[int]) -> tuple[units.Unit, int] | None:
    """ "per minute", "a month", "/s", "each run": the unit a rate is per."""
    if j + 1 >= len(tokens) or tokens[j].low not in _PER or j + 1 in taken:
        return None
    tok = tokens[j + 1]
    unit = units.time_unit(tok.low)
    if unit is not None:
        return units.Unit("time", unit.key, unit.factor), j + 2
    if tok.low in _PER_PERIODS:
        return units.Unit("time", tok.low, _PER_PERIODS[tok.low]), j + 2
    if (
        tokens[j].low in {"per", "each", "/"}
        and tok.text.islower()
        and tok.low.isalpha()
        and not is_structural(tok.low)
    ):
        noun = units.count_key(stem(tok.low))
        return units.Unit(f"count:{noun}", noun, 1.0), j + 2
    return None


def _build(
    lo: float,
    hi: float,
    kind: str,
    unit: units.Unit | None,
    exact: str | None,
    tokens: tuple[Token, ...],
    i: int,
    j: int,
) -> Quantity:
    """Turn the parsed pieces into an interval in base units."""
    factor, offset = (unit.factor, unit.offset) if unit is not None else (1.0, 0.0)
    lo_b, hi_b = (lo + offset) * factor, (hi + offset) * factor
    lo_open = hi_open = False
    if kind == "approx":
        lo_b, hi_b = lo_b - abs(lo_b) * _APPROX_TOLERANCE, hi_b + abs(hi_b) * _APPROX_TOLERANCE
    elif kind == "nearly":
        lo_b = lo_b - abs(lo_b) * _APPROX_TOLERANCE
    elif kind == "lower":
        hi_b, lo_open = float("inf"), tokens[i].low in _STRICT
    elif kind == "upper":
        lo_b, hi_open = float("-inf"), tokens[i].low in _STRICT
    dim = unit.dim if unit is not None else "bare"
    plain = kind in {"", "exact"} and dim in {"bare", "ordinal"}
    return Quantity(
        lo=lo_b,
        hi=hi_b,
        lo_open=lo_open,
        hi_open=hi_open,
        dim=dim,
        key=unit.key if unit is not None else "",
        unit=" ".join(t.text for t in tokens[i:j]),
        exact=exact if plain else None,
        approx=kind not in {"", "exact"},
    )


# ---- comparison ----------------------------------------------------------------------------


def comparable(a: Quantity, b: Quantity) -> bool:
    """Same kind of quantity: the same dimension (and rate denominator)."""
    return a.dim == b.dim


def disagree(a: Quantity, b: Quantity) -> bool:
    """True when the two intervals cannot both hold, allowing for unit-conversion rounding."""
    if not comparable(a, b):
        return False
    if a.exact is not None and b.exact is not None and a.key == b.key:
        return a.exact != b.exact
    slack = units.tolerance(a.dim, a.key, b.key)
    finite = [abs(x) for x in (a.lo, a.hi, b.lo, b.hi) if math.isfinite(x)]
    allowed = slack.relative * max(finite, default=1.0) + slack.absolute
    lo, hi = max(a.lo, b.lo), min(a.hi, b.hi)
    gap = lo - hi
    if math.isnan(gap):
        return False
    if gap > allowed:
        return True
    if gap >= 0 and slack.relative <= 1e-9 and slack.absolute == 0:
        # The intervals touch at one point: they agree unless that point is excluded.
        open_lo = (a.lo_open and a.lo == lo) or (b.lo_open and b.lo == lo)
        open_hi = (a.hi_open and a.hi == hi) or (b.hi_open and b.hi == hi)
        return open_lo or open_hi
    return False


def limits_disagree(a: Quantity, b: Quantity) -> bool:
    """Two bounds in the same direction with different ends: "at least 12" / "at least 8".

    As facts about a measured amount both may hold (a hall that seats 350 seats at least 200
    and at least 300), so ``disagree`` says no. When the claims state a *rule* ("must be at
    least", "the limit is up to") the bound is itself the slot's value, and two values of one
    rule conflict; the caller decides that the claims state a rule."""
    if not comparable(a, b):
        return False
    lower = math.isfinite(a.lo) and math.isfinite(b.lo) and a.hi == b.hi == math.inf
    upper = math.isfinite(a.hi) and math.isfinite(b.hi) and a.lo == b.lo == -math.inf
    if not (lower or upper):
        return False
    end_a, end_b = (a.lo, b.lo) if lower else (a.hi, b.hi)
    slack = units.tolerance(a.dim, a.key, b.key)
    return abs(end_a - end_b) > slack.relative * max(abs(end_a), abs(end_b)) + slack.absolute
