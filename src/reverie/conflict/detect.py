"""The entry point: do two claims contradict, on which axis, and why?

Order of checks, each a reason to stop early:

1. validity — claims valid at different times never conflict;
2. structured slot — same ``key``, different ``value``: decided without reading the text;
3. tense — "lived" vs "lives" is a change over time, not a contradiction;
4. swapped relations — "A before B" vs "B before A";
5. alignment — every difference must be explained (see ``align``), then exactly one kind
   of disagreement must remain: one value (numeric, entity or temporal) *or* one polarity
   flip. Two disagreements at once ("not 100" vs "500"; "in 2019 … Paris" vs "in 2023 …
   Berlin") mean the claims are about different situations, so no conflict.

``detect`` puts the pair in a canonical order first, so detect(a, b) and detect(b, a) always
agree (spans swapped back).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from reverie.conflict import anchored, lexicon, meaning, schedule, scope
from reverie.conflict.align import Alignment, align
from reverie.conflict.clauses import Clause, clauses
from reverie.conflict.core import Axis, Claim, Conflict, Span
from reverie.conflict.dates import DateValue, date_fields_in_conflict, time_in_conflict
from reverie.conflict.entity import Aliases, compare_hunk, inverted_slot, same_value, value_phrase, value_text
from reverie.conflict.frame import Analysis, Unit, analyse
from reverie.conflict.numeric import comparable, disagree, parse_value
from reverie.conflict.polarity import cues, describe, flipped
from reverie.conflict.swap import find_swap
from reverie.conflict.temporal import date_reason, order_reason, pins_one_date, reports_an_occasion, says_again
from reverie.conflict.text import tokenize
from reverie.model.values import amount

_HEDGE_FACTOR = 0.8


def detect(a: Claim, b: Claim, *, aliases: Callable[[str], frozenset[str]] | None = None) -> Conflict | None:
    """The conflict between two claims, or None when they can both hold.

    The decision is always taken with the pair in one canonical order, so it cannot depend
    on which claim came first. The explanation is then taken from the pair as given (when
    that run agrees on the axis), so "'Paris' and 'Berlin'" reads in the caller's order.
    """
    if _order_key(b) >= _order_key(a):
        return _detect(a, b, aliases)
    found = _detect(b, a, aliases)
    if found is None:
        return None
    direct = _detect(a, b, aliases)
    return direct if direct is not None and direct.axis == found.axis else found.swapped()


def _stamp(moment: datetime | None) -> str:
    return "" if moment is None else moment.isoformat()


def _order_key(c: Claim) -> tuple[str, str, str, str, str]:
    return (c.text, c.key or "", c.value or "", _stamp(c.valid_from), _stamp(c.valid_to))


#: The longest claim text the word rules read. A claim is a sentence or a few; past this it is a
#: document, where "exactly one thing differs" cannot be told, and the readings (alignment of
#: two unit sequences, clause splits) cost more than linear time, so a long text written next
#: to a similar one would hold the write lock for seconds. Such a claim is still compared by
#: its structured slot (``key`` / ``value``).
MAX_RULE_TEXT = 2_000


def _detect(a: Claim, b: Claim, aliases: Aliases | None) -> Conflict | None:
    if disjoint(a, b):
        return None
    if _same_slot(a, b):
        settled, conflict = _slot_conflict(a, b, aliases)
        if settled:
            return conflict
    if len(a.text) > MAX_RULE_TEXT or len(b.text) > MAX_RULE_TEXT:
        return None
    return _text_conflict(a, b, aliases) or _by_clause(a, b, aliases)


# ---- compound claims -----------------------------------------------------------------------


def _by_clause(a: Claim, b: Claim, aliases: Aliases | None) -> Conflict | None:
    """A compound claim read clause by clause against the other claim (see ``clauses``).

    Only when the whole pair found nothing, and only when the conflicting clauses are all of one
    claim: clauses of both claims conflicting are too loose a reading to report. Several clauses
    of one claim may each deny the other claim — "I don't live in Boston anymore, I live in
    Denver" against "lives in Boston" (outside probe 7, finding 2: that pair said nothing,
    though each clause alone conflicts) — and then the most confident (the first of equals) is
    reported.
    The spans point into the original texts; the reason says which clause."""
    found: list[tuple[bool, Conflict]] = []
    for one, other, flip in ((a, b, False), (b, a, True)):
        for part in clauses(one.text):
            sub = Claim(part.text, valid_from=one.valid_from, valid_to=one.valid_to)
            hit = _text_conflict(sub, other, aliases)
            if hit is None:
                continue
            spans = _clause_spans(part, hit.spans_a, one.text)
            hit = Conflict(hit.axis, round(hit.confidence * 0.9, 3), hit.reason, spans, hit.spans_b, hit.mutable)
            found.append((flip, hit.swapped() if flip else hit))
    if not found or len({flip for flip, _ in found}) != 1:
        return None
    hit = max((h for _, h in found), key=lambda h: h.confidence)  # max keeps the first of equals
    many = "one clause" if len(found) == 1 else f"{len(found)} clauses (the surest shown)"
    return Conflict(hit.axis, hit.confidence, f"In {many}: {hit.reason}", hit.spans_a, hit.spans_b, hit.mutable)


def _clause_spans(part: Clause, spans: tuple[Span, ...], text: str) -> tuple[Span, ...]:
    """Spans found in a clause, moved to the claim's text (a borrowed subject is dropped)."""
    out = []
    for sp in spans:
        if sp.start < part.borrowed:
            continue
        start, end = sp.start - part.borrowed + part.offset, sp.end - part.borrowed + part.offset
        out.append(Span(start, end, text[start:end]))
    return tuple(out)


# ---- validity ------------------------------------------------------------------------------


def disjoint(a: Claim, b: Claim) -> bool:
    """Both claims carry validity bounds and the intervals do not overlap."""
    if (a.valid_from is None and a.valid_to is None) or (b.valid_from is None and b.valid_to is None):
        return False
    try:
        return _before(a.valid_to, b.valid_from) or _before(b.valid_to, a.valid_from)
    except (OverflowError, ValueError):
        return False  # bounds we cannot compare say nothing about overlap


def _before(end: datetime | None, start: datetime | None) -> bool:
    """Half-open intervals: one ending exactly when the next starts do not overlap."""
    if end is None or start is None:
        return False
    return _utc(end) <= _utc(start)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


# ---- structured slot -----------------------------------------------------------------------


def _same_slot(a: Claim, b: Claim) -> bool:
    return (
        a.key is not None
        and b.key is not None
        and a.value is not None
        and b.value is not None
        and a.key.strip().lower() == b.key.strip().lower()
    )


def _norm(value: str) -> str:
    return " ".join(value.strip().strip("'\"").lower().split())


def _slot_conflict(a: Claim, b: Claim, aliases: Aliases | None) -> tuple[bool, Conflict | None]:
    """Judge two values of one slot. (settled, conflict): unsettled means "read the text".

    Two spellings of one number (``1024`` / ``1024.0``, ``"10"`` / ``"10.00"``) are one value, as
    they are to corroboration (``model.values.amount``): the quantity rule below keeps a version's
    trailing digits (``3.1`` / ``3.10``) apart in free text, and must not call equal amounts different.
    """
    va, vb = _norm(a.value or ""), _norm(b.value or "")
    if va == vb or (amount(va) is not None and amount(va) == amount(vb)):
        return False, None
    key = a.key or ""
    mutable = _mutable_words(re.split(r"[._\-\s]+", key.lower()) + _words(a.text) + _words(b.text))
    qa, qb = parse_value(va), parse_value(vb)
    if qa is not None and qb is not None and comparable(qa, qb):
        if not disagree(qa, qb):
            return True, None
        return True, _slot(
            a, b, "numeric", f"Same slot '{key}' holds different amounts: '{a.value}' vs '{b.value}'.", mutable
        )
    da, db = _single_date(va), _single_date(vb)
    if da is not None and db is not None:
        if not (date_fields_in_conflict(da, db) or time_in_conflict(da, db)):
            return True, None
        return True, _slot(
            a, b, "temporal", f"Same slot '{key}' holds different dates: '{a.value}' vs '{b.value}'.", mutable
        )
    if same_value(va, vb, aliases):
        return True, None
    return True, _slot(
        a, b, "entity", f"Same slot '{key}' holds different values: '{a.value}' vs '{b.value}'.", mutable
    )


def _single_date(value: str) -> DateValue | None:
    units = analyse(value).units
    if len(units) == 1 and units[0].kind == "date":
        return units[0].date
    return None


def _slot(a: Claim, b: Claim, axis: Axis, reason: str, mutable: bool) -> Conflict:
    return Conflict(axis, 0.95, reason, _find(a.text, a.value or ""), _find(b.text, b.value or ""), mutable)


def _find(text: str, needle: str) -> tuple[Span, ...]:
    """Where a slot value appears in the claim's text (case-insensitive), if it does."""
    if not needle.strip():
        return ()
    m = re.search(re.escape(needle.strip()), text, flags=re.IGNORECASE)
    return () if m is None else (Span(m.start(), m.end(), m.group()),)


# ---- text ----------------------------------------------------------------------------------


def _text_conflict(a: Claim, b: Claim, aliases: Aliases | None) -> Conflict | None:
    x, y = analyse(a.text), analyse(b.text)
    timed = schedule.judge(x, y)  # a schedule's day or time: before ``scope`` reads "on Fridays" as a restriction
    if timed is not None:
        return _finish(x, y, timed.axis, timed.confidence, timed.reason, timed.spans_a, timed.spans_b)
    if scope.different_readings(x, y):
        return None  # capacity vs content, restricted vs plain, part vs total, own firm vs employer
    if x.past != y.past:
        return _by_meaning(x, y, aliases)
    swap = find_swap(x, y)
    if swap is not None:
        if not swap.contradicts:
            return None
        reason = (
            f"'{value_text(swap.moved_a)}' and '{value_text(swap.moved_b)}' trade places around '{swap.pivot_a.text}'."
        )
        spans_a = _spans(x, (swap.pivot_a, *swap.moved_a))
        spans_b = _spans(y, (swap.pivot_b, *swap.moved_b))
        return _finish(x, y, swap.axis, 0.75, reason, spans_a, spans_b)
    al = align(x, y)
    if al.blocked is not None or al.shared == 0:
        return _by_meaning(x, y, aliases)
    return _judge(x, y, al, aliases)


def _by_meaning(x: Analysis, y: Analysis, aliases: Aliases | None) -> Conflict | None:
    """Second reading when the claims do not align word for word: frames (see ``meaning``).

    Also when they align but no difference could be named. Never when the word rules decided
    "no conflict" for a reason (two reports at two times, two disagreements at once, an open
    slot): that verdict stands.
    """
    found = meaning.judge(x, y, aliases) or anchored.judge(x, y, aliases)
    if found is None:
        return None
    return _finish(x, y, found.axis, found.confidence, found.reason, found.spans_a, found.spans_b)


# One disagreement the word rules named: axis, confidence, reason and the spans of each side.
_Slot = tuple[Axis, float, str, tuple[Span, ...], tuple[Span, ...]]


def _judge(x: Analysis, y: Analysis, al: Alignment, aliases: Aliases | None) -> Conflict | None:
    """Exactly one disagreement may remain; name it."""
    slots: list[_Slot] = []  # finished only if it is the one: each finish reads both texts
    for hunk in al.values:
        verdict = compare_hunk(x, y, hunk, aliases)
        if verdict.kind == "open":  # no word rule knows this slot: read it by meaning
            return _by_meaning(x, y, aliases)
        if verdict.kind == "conflict" and verdict.slot is not None:
            if not (_labels(hunk.a) and _labels(hunk.b)) and meaning.open_ended(x, y):
                return None
            va, vb = value_phrase(x, hunk.a), value_phrase(y, hunk.b)
            reason = f"'{verdict.slot.cue}' holds one value at a time, but the claims give '{va}' and '{vb}'."
            # Two numbers that label ("Node 18" / "Node 20") still disagree in a number.
            axis: Axis = "numeric" if _labels(hunk.a) and _labels(hunk.b) else "entity"
            slots.append((axis, verdict.slot.confidence, reason, _spans(x, hunk.a), _spans(y, hunk.b)))
    for hunk in al.inverted:
        va, vb = value_text(hunk.a), value_text(hunk.b)
        if not same_value(va, vb, aliases):
            slot = inverted_slot(x)
            reason = f"'{slot.cue}' has one holder, but the claims name '{va}' and '{vb}'."
            slots.append(("entity", slot.confidence, reason, _spans(x, hunk.a), _spans(y, hunk.b)))
    for qa, qb in al.quantities:
        converted = qa.qty is not None and qb.qty is not None and qa.qty.key != qb.qty.key
        note = " after converting units" if converted else ""
        reason = f"Same quantity, values that cannot both hold{note}: '{qa.text}' vs '{qb.text}'."
        conf = 0.8 if _approximate(qa, qb) else 0.9
        slots.append(("numeric", conf, reason, _spans(x, (qa,)), _spans(y, (qb,))))
    for da, db, fields in al.dates:
        if fields == ("time",) and reports_an_occasion(x) and reports_an_occasion(y):
            return None  # two reports at two times of day are two occasions
        if says_again(x) or says_again(y):
            return None  # "visited her again in August": one more occasion, not a moved date
        if not (pins_one_date(x) and pins_one_date(y)):
            return None
        if schedule.habits_on_several_days(da.date, db.date, x, y):
            return None  # "runs on Mondays" / "runs on Thursdays": it may run on both
        slots.append(("temporal", 0.85, date_reason(da, db, fields), _spans(x, (da,)), _spans(y, (db,))))
    polarity, order = flipped(x, y, al, "polarity"), flipped(x, y, al, "temporal")
    found = len(slots) + polarity + order
    if found == 0:
        return _by_meaning(x, y, aliases)  # aligned, but no difference the word rules can name
    if found != 1:
        return None
    if slots:
        return _finish(x, y, *slots[0])
    return _order(x, y, al) if order else _polarity(x, y, al)


def _labels(units: tuple[Unit, ...]) -> bool:
    return bool(units) and all(u.label for u in units)


def _approximate(qa: Unit, qb: Unit) -> bool:
    return bool((qa.qty and qa.qty.approx) or (qb.qty and qb.qty.approx))


def _polarity(x: Analysis, y: Analysis, al: Alignment) -> Conflict:
    c = cues(x, y, al, "polarity")
    conf = {"negation": 0.9, "antonym": 0.85, "prefix": 0.8}[c.label]
    reason = f"Same statement with opposite polarity: {describe(x.text, c.a)} vs {describe(y.text, c.b)}."
    spans_a = tuple(Span(s, e, x.text[s:e]) for s, e in c.a)
    spans_b = tuple(Span(s, e, y.text[s:e]) for s, e in c.b)
    return _finish(x, y, "polarity", conf, reason, spans_a, spans_b)


def _order(x: Analysis, y: Analysis, al: Alignment) -> Conflict:
    ua, ub = next((p, q) for p, q in al.flips if p.axis == "temporal")
    return _finish(x, y, "temporal", 0.85, order_reason(ua, ub), _spans(x, (ua,)), _spans(y, (ub,)))


def _spans(side: Analysis, units: tuple[Unit, ...]) -> tuple[Span, ...]:
    return tuple(Span(u.start, u.end, side.text[u.start : u.end]) for u in units)


def _finish(
    x: Analysis, y: Analysis, axis: Axis, confidence: float, reason: str, sa: tuple[Span, ...], sb: tuple[Span, ...]
) -> Conflict:
    if x.hedged or y.hedged:
        confidence *= _HEDGE_FACTOR
    return Conflict(axis, round(confidence, 3), reason, sa, sb, _mutable(x, y))


# ---- mutability ----------------------------------------------------------------------------


def _mutable(x: Analysis, y: Analysis) -> bool:
    """Past events are fixed; otherwise look for a cue of a changeable state in either claim."""
    if x.past:
        return False
    words = _words(x.text) + _words(y.text)
    if set(words) & lexicon.IMMUTABLE_FORMS:
        return False
    classes = {u.key[1:] for u in (*x.units, *y.units) if u.kind == "class"}
    return bool(classes & lexicon.MUTABLE_CLASSES) or _mutable_words(words)


def _words(text: str) -> list[str]:
    return [t.low for t in tokenize(text) if t.kind == "word"]


def _mutable_words(words: list[str]) -> bool:
    """A slot that can change: a state cue is present and no cue of a fixed fact is."""
    forms = set(words)
    if forms & lexicon.IMMUTABLE_FORMS:
        return False
    return bool(forms & lexicon.MUTABLE_FORMS)
