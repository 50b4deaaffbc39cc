"""Alignment by meaning: a second reading for pairs the word-by-word aligner cannot line up.

Why: the aligner in ``align`` demands that every difference between two claims be explained
word by word, so it misses the same conflict said in other words: another verb ("lives in" /
"home is in"), another order (passive "was designed by X" / "Y designed"), a possessive
subject ("Nina's boss is Petra" / "Nina reports to Omar"), units spelled differently. This
module compares two claims read as *frames* (``claim_frame``) instead of sequences:

- names: capitalised words and codes (the subject's identity, or the value of an entity slot);
- concepts: the other content words, stemmed and mapped through ``paraphrase`` classes, as a
  set (order-free, so passives and possessives meet);
- values: quantities and dates, already normalised by ``numeric`` / ``dates`` (units
  converted, "1.5 hours" = "90 minutes");
- polarity: negation parity ("not", "never", "no longer", "n't") and antonym-class sides.

Two frames conflict only when they speak about the same thing — every name on one side is on
the other (except the one value of an entity slot), and most concepts are shared — and
exactly one thing differs: one quantity, one date, one named value of a single-valued
relation, or the polarity. Anything that reads as a hedge, a change over time, a second
occasion or another holder blocks, because a wrong conflict costs more than a missed one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from reverie.conflict import lexicon, paraphrase, sequence, units
from reverie.conflict.claim_frame import (
    ADDITIVE,
    CHANGE,
    NOW,
    Frame,
    change_words,
    frame_of,
    function_word,
    is_year,
    unhyphenated,
)
from reverie.conflict.core import Axis, Span
from reverie.conflict.dates import date_fields_in_conflict, time_in_conflict
from reverie.conflict.derive import base_form
from reverie.conflict.entity import Aliases, same_value
from reverie.conflict.frame import Analysis, Unit, analyse
from reverie.conflict.grammar import (
    ceased_at,
    experience_in_perfect,
    stopped_in_past,
)
from reverie.conflict.numbered import numbered_value
from reverie.conflict.numeric import Quantity, comparable, disagree, limits_disagree
from reverie.conflict.temporal import reports_an_occasion, says_again
from reverie.conflict.text import (
    ARTICLES,
    FILLERS,
    stem,
)

# Words that make a claim state a rule, so a bound it gives is the rule's value ("the password
# must be at least 12 characters" and "… at least 8" are two rules).
_RULE_WORDS = frozenset(
    {"must", "required", "requires", "require", "minimum", "maximum", "limit", "limited", "allowed", "capped",
     "mandatory"}
)  # fmt: skip
# Words that name a second occasion or a part of the day: "the morning round" / "the evening round".
_OCCASION = frozenset(
    {"morning", "afternoon", "evening", "night", "noon", "first", "second", "third", "last", "next",
     "previous", "yesterday", "today", "tomorrow", "weekday", "weekend"}
)  # fmt: skip
# A second person or role next to the subject ("Lars's brother", "Grace's colleague").
_ROLE_WORDS = lexicon.KINSHIP | frozenset(
    {"colleague", "friend", "neighbour", "neighbor", "mentor", "boss", "manager", "assistant", "partner",
     "family", "parent", "parents", "child", "teammate", "roommate", "coworker", "client"}
)  # fmt: skip
# Events that happen once in a thing's life: their date does not change with the tense it is
# told in ("was born in 1988" / "birth year is 1992", "was founded in 1902" / "dates from its
# founding in 1950"), unlike a value that may have moved ("was 100" / "is 500").
_ONE_LIFETIME = frozenset({"@born", "@found", "@die"})
# Roles and properties with one holder at a time ("landlord", "capital"), as the aligner knows them.
_ROLE_NOUNS = frozenset(stem(w) for w in lexicon.FUNCTIONAL_NOUNS) | frozenset(
    stem(base_form(w))
    for w in lexicon.FUNCTIONAL_NOUNS  # "conductor" read as "conduct" (``derive``)
)
_NAME_LINKS = frozenset({"of", "and", "&", "de", "van", "von", "da", "del", "la", "le"})


@dataclass(frozen=True)
class Found:
    """A conflict read by meaning: axis, confidence, reason and the spans that show it."""

    axis: Axis
    confidence: float
    reason: str
    spans_a: tuple[Span, ...]
    spans_b: tuple[Span, ...]


def bounds_meet(fa: Frame, fb: Frame) -> bool:
    """A claim that names its value a minimum (maximum) speaks of the same thing as another claim
    only if that claim names the same bound, gives a bound in that direction ("at least 12"), or
    states a rule ("limited to 2 GB"). Against a plain reading ("the temperature was 25 °C") the
    maximum is another attribute."""
    if fa.bound is None and fb.bound is None:
        return True
    if fa.bound is not None and fb.bound is not None:
        return fa.bound == fb.bound
    named, other = (fa, fb) if fa.bound is not None else (fb, fa)
    if other.words & _RULE_WORDS:
        return True
    qty = [u.qty for u in other.quantities if u.qty is not None]
    if len(qty) != 1:
        return False
    q = qty[0]
    return (q.hi == math.inf) if named.bound == "lower" else (q.lo == -math.inf)


def _as_bound(q: Quantity, side: Frame, other: Quantity) -> Quantity:
    """A value its claim names a minimum (maximum) read as a lower (upper) bound, when the other
    claim gives a bound in the same direction: "the minimum length is 8" / "at least 12". Against
    a plain value it stays a value ("limited to 2 GB" / "the maximum size is 5 GB")."""
    if side.bound is None or q.lo != q.hi or not math.isfinite(q.lo):
        return q
    if side.bound == "lower" and other.hi == math.inf and math.isfinite(other.lo):
        return replace(q, hi=math.inf, exact=None)
    if side.bound == "upper" and other.lo == -math.inf and math.isfinite(other.hi):
        return replace(q, lo=-math.inf, exact=None)
    return q


def axes_differ(fa: Frame, fb: Frame) -> bool:
    """Both claims name the extent their length runs along, and the extents differ."""
    return bool(fa.axes and fb.axes and not fa.axes & fb.axes)


def _perfect(side: Analysis) -> bool:
    """ "Ravi has lived in Mumbai": experience over a life, so several values may each be true."""
    return experience_in_perfect([t.low for t in side.tokens], lexicon.PAST_VERB_FORMS)


# ---- judging a pair ------------------------------------------------------------------------


def judge(x: Analysis, y: Analysis, aliases: Aliases | None) -> Found | None:
    """The one disagreement two claims about the same thing have, or None.

    Read on the claims with number-unit hyphens opened ("3-hour" as "3 hour"); the spans are
    cut again from the texts as written."""
    tx, ty = unhyphenated(x.text), unhyphenated(y.text)
    if tx == x.text and ty == y.text:
        return _judge(x, y, aliases)
    found = _judge(analyse(tx), analyse(ty), aliases)
    if found is None:
        return None
    spans_a = tuple(Span(sp.start, sp.end, x.text[sp.start : sp.end]) for sp in found.spans_a)
    spans_b = tuple(Span(sp.start, sp.end, y.text[sp.start : sp.end]) for sp in found.spans_b)
    return replace(found, spans_a=spans_a, spans_b=spans_b)


def _judge(x: Analysis, y: Analysis, aliases: Aliases | None) -> Found | None:
    fa, fb = frame_of(x.text), frame_of(y.text)
    if fa.predicate >= len(x.tokens) or fb.predicate >= len(y.tokens):
        return None  # no verb found: subject and value cannot be told apart, so say nothing
    if fa.hedged or fb.hedged or fa.record or fb.record:
        return None
    if not bounds_meet(fa, fb):
        return None  # "the maximum stay" / "the minimum stay", "the maximum temperature" / "a reading"
    if sequence.reversed_order(x, y):
        reason = "The claims put the same two events in opposite orders (said in other words)."
        return Found("temporal", 0.65, reason, _cue_spans(x), _cue_spans(y))
    only_a, only_b = unmatched_names(fa, fb), unmatched_names(fb, fa)
    if any(any(ch.isdigit() for ch in n) for _, n in (*only_a, *only_b)):
        found = numbered_value(x, y, fa, fb, only_a, only_b)  # else another numbered or coded thing
        return None if found is None else Found("numeric", 0.7, found[0], (_span(x, found[1]),), (_span(y, found[2]),))
    if _other_holder(fa, fb):
        return None
    never = _never_versus_event(x, y, fa, fb, only_a, only_b)
    if never is not None:
        return never
    if _still_versus_stopped(fa, fb, only_a) or _still_versus_stopped(fb, fa, only_b):
        reason = "One claim says it still goes on; the other says it stopped."
        return Found("polarity", 0.65, reason, _still_spans(x), _still_spans(y))
    if _substituted(fa, fb):
        if only_a or only_b:
            return None
        return _prefixed(x, y, fa, fb) or _word_value(x, y, fa, fb)
    shared = fa.concepts & fb.concepts
    if not shared and not (fa.names and fb.names and len(only_a) < len(fa.names)):
        return None
    moved_q = _moved_quantities(fa, fb)
    moved_d = _moved_dates(x, y, fa, fb)
    if moved_q is None or moved_d is None:
        return None
    differences = len(moved_q) + len(moved_d)
    if differences > 1:
        return None
    if differences == 1 and _phases_differ(fa, fb):
        return None
    if differences == 1 and fa.past != fb.past and not (moved_d and shared & _ONE_LIFETIME):
        return None  # "was 100" / "is 500": a change; "closes at 6" / "closed at 3 on Friday": one day
    if differences == 1:
        if _flips(fa, fb) or fa.negated != fb.negated or fa.sequenced or fb.sequenced:
            return None
        if only_a or only_b or _changed(x, y, fa, fb) or not _same_topic(fa, fb, 0.5):
            return None
        if occasions_differ(fa, fb):
            return None
        if moved_q:
            qa, qb = moved_q[0]
            if qa.tok < fa.predicate and qb.tok < fb.predicate:
                return None  # "Aisle 6" / "Aisle 9": the number says which thing, not how much
            reason = f"Same quantity said in other words, values that cannot both hold: '{qa.text}' vs '{qb.text}'."
            return Found("numeric", 0.7, reason, (_span(x, qa),), (_span(y, qb),))
        da, db = moved_d[0]
        if da.tok < fa.predicate or db.tok < fb.predicate:
            return None  # a time inside the subject says which occasion, not when it was
        reason = f"Same event said in other words, at dates that cannot both hold: '{da.text}' vs '{db.text}'."
        return Found("temporal", 0.7, reason, (_span(x, da),), (_span(y, db),))
    if only_a and only_b:
        return _entity(x, y, fa, fb, only_a, only_b, aliases)
    now = bool((fa.words | fb.words) & NOW)  # "still lives" / "moved out and no longer lives"
    if fa.past != fb.past and not (now or _perfect_or_passive(x) or _perfect_or_passive(y)):
        return None
    if only_a or only_b:
        return None
    return _polarity(x, y, fa, fb)


# Events that name a work as done: a start of the same work is another moment of it.
_DONE = frozenset({"@made-build", "@finish", "@open", "@found"})


def _changed(x: Analysis, y: Analysis, fa: Frame, fb: Frame) -> bool:
    """A claim placed next to another state ("moved", "until", "became"): a change, not a
    conflict. Except one event said both times: "first moved to Toronto in 2016" and "his
    first move to Toronto was in 2019" date the same move; "was discontinued in 2017" and "was
    sold until it was discontinued in 2022" date the same discontinuation."""
    if not (fa.change or fb.change):
        return False
    marks = {stem(w) for w in (change_words(list(fa.words)) | change_words(list(fb.words))) & CHANGE}
    shared = fa.concepts & fb.concepts
    if "first" in fa.words and "first" in fb.words:
        return not marks <= shared
    if marks <= shared | _UNTIL_STEMS and marks & shared <= _ONCE_CHANGES:
        ends = [e for e in (_until_event(x, fb), _until_event(y, fa)) if e is not None]
        dated_once = bool(marks & shared) and not marks & _UNTIL_STEMS
        return not (ends or dated_once)
    return True


def _concept_of_word(low: str) -> str:
    """The concept one word stands for when read alone (its paraphrase class, else its root)."""
    root = stem(base_form(low))
    return paraphrase.concept_of(stem(low)) or paraphrase.concept_of(root) or root


# Changes that happen once to what they are said of: the same word dated twice is one event.
_ONCE_CHANGES = frozenset({stem("discontinued"), stem("introduced")})
_UNTIL_STEMS = frozenset({stem("until"), stem("till")})


def _until_event(side: Analysis, other: Frame) -> str | None:
    """ "worked until his retirement in 2020": "until" ends one state at an event the other
    claim names and dates ("retired in 2015"); the date belongs to that event, so the two
    claims date one event. The concept of that event, or None."""
    lows = [t.low for t in side.tokens]
    for i, low in enumerate(lows):
        if low not in {"until", "till"}:
            continue
        date = next((u for u in side.units if (u.kind == "date" or is_year(u)) and u.tok > i), None)
        if date is None:
            return None
        between = {_concept_of_word(w) for w in lows[i + 1 : date.tok] if not function_word(w)}
        event = next(iter(sorted(between & other.concepts)), None)
        if event is not None and other.predicate < len(lows):
            return event
    return None


def _phases_differ(fa: Frame, fb: Frame) -> bool:
    """ "Construction started in 1866" / "was built in 1871": the start and the end of one work."""
    for fs, fo in ((fa, fb), (fb, fa)):
        if "@start" in fs.concepts and "@start" not in fo.concepts and fo.concepts & _DONE:
            return True
    return False


def _perfect_or_passive(side: Analysis) -> bool:
    """ "has signed" / "has been paid": a present that reports a past event, so it may meet a
    simple past ("was signed") about the same event."""
    return any(t.low in {"has", "have"} for t in side.tokens)


def _never_versus_event(
    x: Analysis,
    y: Analysis,
    fa: Frame,
    fb: Frame,
    only_a: tuple[tuple[int, str], ...],
    only_b: tuple[tuple[int, str], ...],
) -> Found | None:
    """ "Ingrid has never tasted durian" / "Ingrid ate durian at a market": an event that the
    other claim says never happened. The event side may add where, when and how long; the
    never side must say nothing the event side does not."""
    reason = "One claim says it never happened; the other reports it happening."
    if _never_denies(fa, fb, only_a):
        return Found("polarity", 0.65, reason, _neg_spans(x), _neg_spans(y))
    if _never_denies(fb, fa, only_b):
        return Found("polarity", 0.65, reason, _neg_spans(x), _neg_spans(y))
    return None


# Words that make a stop temporary or undone: "stopped … but started again", "stopped for a month".
_RESUMED = frozenset({"again", "resumed", "restarted", "returned", "back", "but", "temporarily", "briefly", "until"})


def _still_versus_stopped(fs: Frame, ft: Frame, only_s: tuple[tuple[int, str], ...]) -> bool:
    """ "Bogdan still works night shifts" / "Bogdan stopped working night shifts last year": the
    activity ``fs`` says still goes on, ``ft`` says stopped. ``fs`` must say nothing ``ft`` does
    not (``ft`` may add when it stopped); neither may name another occasion or amount."""
    if "still" not in fs.words or fs.negated or fs.past or not ft.stopped or fs.stopped:
        return False
    if only_s or not fs.concepts or fs.change or fs.sequenced or ft.sequenced:
        return False
    if ft.words & _RESUMED or fs.quantities or ft.quantities or fs.dates or fs.years:
        return False
    return fs.concepts <= ft.concepts | ft.stems


def _still_spans(side: Analysis) -> tuple[Span, ...]:
    stopped = stopped_in_past([t.low for t in side.tokens])
    return tuple(Span(t.start, t.end, t.text) for i, t in enumerate(side.tokens) if t.low == "still" or i in stopped)


def _never_denies(fn: Frame, fe: Frame, only_n: tuple[tuple[int, str], ...]) -> bool:
    """``fn`` says "never", ``fe`` reports the event, and ``fn`` says nothing ``fe`` does not."""
    if "never" not in fn.words or not fn.negated or fe.negated or not fe.past:
        return False
    if not (fn.past or fn.words & {"has", "have", "had"}):
        return False  # "never drinks coffee" is a habit, which one cup does not undo
    objects = len(fn.concepts - fn.subject) + sum(i >= fn.predicate for i, _ in fn.names)
    if objects < 2:
        return False  # "has never crashed": with no object, any crash of anything would match
    if only_n or fe.change or fe.sequenced or fn.sequenced:
        return False
    return bool(fn.concepts) and fn.concepts <= fe.concepts


def _prefixed(x: Analysis, y: Analysis, fa: Frame, fb: Frame) -> Found | None:
    """ "locked" / "unlocked", "paved" / "unpaved gravel": one word is the other with a
    negative prefix, everything else shared (the negated side may add a word)."""
    if fa.negated != fb.negated or fa.change or fb.change or _flips(fa, fb):
        return None
    if len(fa.dates) + len(fa.years) != len(fb.dates) + len(fb.years) or len(fa.quantities) != len(fb.quantities):
        return None  # "paid the invoice" / "the invoice for March is unpaid": one names which
    if occasions_differ(fa, fb):
        return None  # "the parcel" / "the second parcel"
    only_a, only_b = fa.concepts - fb.concepts, fb.concepts - fa.concepts
    if min(len(only_a), len(only_b)) != 1 or len(only_a | only_b) > 3:
        return None
    words_a, words_b = fa.stems - fb.stems, fb.stems - fa.stems
    pairs = [(p, q) for p in words_a for q in words_b if _negative_of(p, q) or _negative_of(q, p)]
    if len(pairs) != 1:
        return None
    p, q = pairs[0]
    reason = f"Same statement said in other words, one side negated by a prefix: '{p}' vs '{q}'."
    return Found("polarity", 0.6, reason, _value_words(x, frozenset({p})), _value_words(y, frozenset({q})))


def _negative_of(plain: str, negated: str) -> bool:
    """ "unlock" is "lock" negated (stems, so "unlocked" / "locked" meet too)."""
    for prefix in lexicon.NEGATIVE_PREFIXES:
        if prefix == "a":
            continue
        rest = negated[len(prefix) :]
        if not negated.startswith(prefix) or len(rest) < 3 or rest in lexicon.PREFIX_FALSE_FRIENDS:
            continue
        if rest == plain or stem(rest) == plain:  # "unpaid": "paid" stems to "pay", as "has paid" does
            return True
    return False


def _flips(fa: Frame, fb: Frame) -> bool:
    sides_a, sides_b = dict(fa.classes), dict(fb.classes)
    return any(k in sides_b and sides_b[k] != v for k, v in sides_a.items())


def _other_holder(fa: Frame, fb: Frame) -> bool:
    """One subject names a thing or person the other does not ("Lars's brother", "main span"),
    or goes one possessive further ("Omar's boss's boss")."""
    if max(fa.possessives, fb.possessives) >= 2 and fa.possessives != fb.possessives:
        return True
    return bool((fa.subject - fb.concepts - fb.stems - _GROUPS) or (fb.subject - fa.concepts - fa.stems - _GROUPS))


# People as a class ("wheelchair users cannot access the trail", "visitors may not park there"):
# the claim is about what the place or service allows them, not about another holder of it.
_GROUPS = frozenset(
    stem(w) for w in ("user", "users", "visitor", "visitors", "customer", "customers", "guest", "guests",
                      "passenger", "passengers", "resident", "residents", "student", "students",
                      "subscriber", "subscribers", "member", "members", "attendee", "attendees", "people")
)  # fmt: skip


def _substituted(fa: Frame, fb: Frame) -> bool:
    """Each claim has a concept the other lacks: another attribute or event, not another value."""
    return bool(fa.concepts - fb.concepts - fb.stems) and bool(fb.concepts - fa.concepts - fa.stems)


def unmatched_names(fa: Frame, fb: Frame) -> tuple[tuple[int, str], ...]:
    """Names of one claim the other never mentions, in any case."""
    return tuple((i, n) for i, n in fa.names if n not in fb.words and stem(n) not in fb.stems)


def _same_topic(fa: Frame, fb: Frame, floor: float) -> bool:
    """Most concepts shared (of the smaller claim), and no second holder or occasion added."""
    shared = fa.concepts & fb.concepts
    smaller = min(len(fa.concepts), len(fb.concepts))
    if smaller == 0:
        # names alone ("Mia … in 1990" / "Mia … in 2015") do not say which event; an extent both
        # name ("is 1.80 m tall" / "stands 1.65 metres tall") says which measure
        return bool(fa.axes) and fa.axes == fb.axes and not (fa.concepts ^ fb.concepts)
    if len(shared) / smaller < floor:
        return False
    extra = (fa.concepts ^ fb.concepts) & {stem(w) for w in _ROLE_WORDS}
    return not extra


# Adverbs of a part of the day: "the nightly report" is the report of every night.
_PART_OF_DAY_ADVERBS = {"nightly": "night"}


def _occasions(words: frozenset[str]) -> frozenset[str]:
    return (words & _OCCASION) | frozenset(v for k, v in _PART_OF_DAY_ADVERBS.items() if k in words)


def occasions_differ(fa: Frame, fb: Frame) -> bool:
    """ "the morning round" / "the evening round", "first" / "second language": two occasions
    or members, each with its own value. "first" said on one side only ("first opened") is
    emphasis, not another occasion."""
    oa, ob = _occasions(fa.words), _occasions(fb.words)
    if oa == ob:
        return False
    return bool(oa and ob) or bool((oa | ob) - {"first"})


def _moved_quantities(fa: Frame, fb: Frame) -> list[tuple[Unit, Unit]] | None:
    """The one pair of comparable quantities that disagree; None when the quantities do not pair up."""
    qa = [u for u in fa.quantities if u.qty is not None]
    qb = [u for u in fb.quantities if u.qty is not None]
    if not qa and not qb:
        return []
    if fa.compared or fb.compared:
        return None  # "10 euros more than the bus fare": the size of a difference, not the value
    if axes_differ(fa, fb):
        return None  # "300 m long" / "40 m high": two extents of one thing
    if len(qa) != 1 or len(qb) != 1:
        return None if (qa or qb) and (len(qa) > 1 or len(qb) > 1 or not (qa and qb)) else []
    a, b = qa[0].qty, qb[0].qty
    assert a is not None and b is not None
    a, b = _as_rate(a, fa, b), _as_rate(b, fb, a)
    a, b = _as_bound(a, fa, b), _as_bound(b, fb, a)
    counting = bool(fa.concepts & fb.concepts & _COUNTING) and "person" in (a.key, b.key)
    a, b = _as_count(a, fa, b, counting), _as_count(b, fb, a, counting)
    if "every" in fa.words | fb.words:
        return None  # "every 6 hours" is a frequency, and is said other ways too
    ages = "@age" in fa.concepts & fb.concepts
    a, b = _in_unit_of(a, b, fa, fb), _in_unit_of(b, a, fb, fa)
    if (a.dim == "bare" or b.dim == "bare") and not (a.dim == b.dim and (fa.concepts == fb.concepts or ages)):
        return None  # a bare number may count anything, unless all else is the same, or both are ages
    if not comparable(a, b):
        return None
    ruled = bool(fa.words & _RULE_WORDS and fb.words & _RULE_WORDS)
    return [(qa[0], qb[0])] if disagree(a, b) or (ruled and limits_disagree(a, b)) else []


# Adjectives that make a plain amount a rate: "the monthly budget is 1,000 euros" is "1,000 euros a month".
_PERIOD_WORDS = {"hourly": "h", "daily": "d", "nightly": "d", "weekly": "wk", "monthly": "mo", "yearly": "yr",
                 "annual": "yr", "annually": "yr"}  # fmt: skip


def _as_rate(plain: Quantity, side: Frame, rate: Quantity) -> Quantity:
    """``plain`` read as a rate when its own claim names a period by an adjective and the other
    claim states a rate of the same thing.

    "300 euros a month" and "the monthly budget … 1,000 euros" measure one thing; so do "an annual
    fee of 120 dollars" and "10 dollars a month" (which agree). Without the adjective a plain
    amount stays a total ("1,000 euros" is not "1,000 euros a month")."""
    base, slash, per = rate.dim.partition("/")
    if not slash or per != "time" or plain.dim != base:
        return plain
    period = next((_PERIOD_WORDS[w] for w in sorted(side.words) if w in _PERIOD_WORDS), None)
    seconds = units.lookup(period) if period is not None else None
    if seconds is None:
        return plain
    return replace(
        plain,
        lo=plain.lo / seconds.factor,
        hi=plain.hi / seconds.factor,
        dim=rate.dim,
        key=f"{plain.key}/{seconds.key}",
        exact=None,
    )


# Relations whose value is a head count: "employs 300 people" / "a headcount of 1,200", "holds
# 2,000 people" / "its capacity is 800" (people only: "holds 2,000 cars" may be its car park).
_COUNTING = frozenset({"@employ", "@capacity"})


def _in_unit_of(bare: Quantity, measured: Quantity, fs: Frame, fo: Frame) -> Quantity:
    """ "Her resting heart rate is 58" against "a resting pulse of 85 beats per minute": a bare
    number said of exactly the attribute the other claim measures is in the other claim's unit.
    Only with the same concepts on both sides (the attribute said fully both times), never a
    plain count ("3" against "3 rooms" is left to ``_as_count``), and only for units whose
    factor is known (no offsets: temperatures stay apart)."""
    if bare.dim != "bare" or measured.dim == "bare" or (measured.dim.startswith("count:") and "/" not in measured.dim):
        return bare
    if not fs.concepts or fs.concepts != fo.concepts:
        return bare
    factor = _factor(measured)
    if factor is None:
        return bare
    return replace(bare, dim=measured.dim, key=measured.key, exact=None, lo=bare.lo * factor, hi=bare.hi * factor)


def _factor(q: Quantity) -> float | None:
    """Base units per written unit of ``q`` ("beat/min": 1/60), or None when a part is unknown."""
    numer, _, denom = q.key.partition("/")
    top = 1.0 if q.dim.startswith("count:") else _unit_factor(numer)
    bottom = _unit_factor(denom) if denom else 1.0
    if top is None or bottom is None:
        return None
    return top / bottom


def _unit_factor(key: str) -> float | None:
    unit = units.lookup(key)
    if unit is None or unit.offset:
        return None
    return unit.factor


def _as_count(bare: Quantity, side: Frame, counted: Quantity, counting: bool = False) -> Quantity:
    """A bare number read as a count of the other claim's counted thing when its own claim names
    that thing ("the partition count … is 12" against "48 partitions"), or when both claims state
    a relation whose value is a count (``counting``)."""
    if bare.dim != "bare" or not counted.dim.startswith("count:") or "/" in counted.dim:
        return bare
    if stem(counted.key) not in side.stems and not counting:
        return bare
    return replace(bare, dim=counted.dim, key=counted.key, exact=None)


def _moved_dates(x: Analysis, y: Analysis, fa: Frame, fb: Frame) -> list[tuple[Unit, Unit]] | None:
    da = [u for u in (*fa.dates, *fa.years) if u.date is not None]
    db = [u for u in (*fb.dates, *fb.years) if u.date is not None]
    if not da and not db:
        return []
    if len(da) != 1 or len(db) != 1:
        return None
    a, b = da[0].date, db[0].date
    assert a is not None and b is not None
    fields = date_fields_in_conflict(a, b)
    clock = time_in_conflict(a, b)
    if fields and clock:
        return None
    if not (fields or clock):
        return []
    if not fields and reports_an_occasion(x) and reports_an_occasion(y):
        return None
    if says_again(x) or says_again(y):
        return None  # "went again in August": one more occasion
    if a.recurring or b.recurring:
        return None  # "swims on Mondays" / "on Fridays": habits, and several may hold
    return [(da[0], db[0])]


def _entity(
    x: Analysis,
    y: Analysis,
    fa: Frame,
    fb: Frame,
    only_a: tuple[tuple[int, str], ...],
    only_b: tuple[tuple[int, str], ...],
    aliases: Aliases | None,
) -> Found | None:
    """One named value each, for a relation that holds one value at a time."""
    if fa.additive or fb.additive or fa.change or fb.change or fa.negated != fb.negated:
        return None
    if fa.sequenced or fb.sequenced or _perfect(x) or _perfect(y) or occasions_differ(fa, fb):
        return None
    if not (_value_position(x, fa, only_a, y) and _value_position(y, fb, only_b, x)):
        return None
    run_a, run_b = _run(x, only_a), _run(y, only_b)
    if run_a is None or run_b is None:
        return None
    va, vb = x.text[run_a.start : run_a.end], y.text[run_b.start : run_b.end]
    if same_value(va, vb, aliases) or _refined(fa, fb) or _prefix(va, vb):
        return None
    if not _same_topic(fa, fb, 0.5):
        return None
    shared = fa.concepts & fb.concepts
    roles = _ROLE_NOUNS if (x.copula or y.copula) else frozenset()  # "X is Ravi's landlord"
    relation = sorted(shared & (paraphrase.SINGLE_VALUED | roles))
    made = any(r.startswith("@made-") for r in relation)
    if fa.past != fb.past and not made and not (fa.exclusive or fb.exclusive):
        return None  # "lived in Paris" / "lives in Berlin": a move; who made a thing never changes
    if not relation and not (fa.exclusive or fb.exclusive):
        return None
    if not (_introduced(x, fa, only_a, relation) and _introduced(y, fb, only_b, relation)):
        return None
    cue = relation[0].lstrip("@") if relation else "only"
    reason = f"'{cue}' holds one value at a time, but the claims (in other words) give '{va}' and '{vb}'."
    return Found("entity", 0.7, reason, (run_a,), (run_b,))


def _introduced(side: Analysis, fs: Frame, names: tuple[tuple[int, str], ...], relation: list[str]) -> bool:
    """The value is introduced the way the relation takes it: a place after "in" / "at" ("the
    venue is the Arena" names a building, not the city), a maker after "by" or as the doer
    ("developed with funding from Orin" names no maker)."""
    first = min(i for i, _ in names)
    before = next((t.low for t in reversed(side.tokens[:first]) if t.low not in ARTICLES | FILLERS), "")
    if relation and all(r == "@where" for r in relation):
        return before in {"in", "at"}
    if relation and all(r.startswith("@made-") for r in relation):
        return before == "by" or first < fs.predicate
    return True


# Words that place a value inside a larger one ("downtown Austin", "the port of Rotterdam").
_REFINING = frozenset(
    {"downtown", "central", "suburb", "suburbs", "outskirts", "district", "port", "region", "area", "near",
     "outside", "part", "northern", "southern", "eastern", "western", "province", "state", "county", "borough",
     "neighbourhood", "neighborhood", "quarter", "arrondissement", "village", "town", "city", "country"}
)  # fmt: skip


def _refined(fa: Frame, fb: Frame) -> bool:
    """One side names a place inside or near a region: a refinement, not another place."""
    return bool((fa.words ^ fb.words) & _REFINING)


def open_ended(x: Analysis, y: Analysis) -> bool:
    """Two named values that may both hold: one narrows a place ("in downtown Milan" under "in
    Italy"), or a claim speaks of experience over a life ("has lived in Lyon": and elsewhere).
    A claim that adds a member ("also", "too") leaves room for both. The word aligner asks this
    too before it calls a differing name a conflict."""
    a, b = frozenset(t.low for t in x.tokens), frozenset(t.low for t in y.tokens)
    additive = bool((a | b) & ADDITIVE) or ("as" in a | b and "well" in a | b)  # "is also taught by"
    return additive or bool((a ^ b) & _REFINING) or _perfect(x) or _perfect(y)


def _prefix(va: str, vb: str) -> bool:
    """ "Go" / "Golang": one value is the other written out (a shared opening of 2+ letters)."""
    a, b = va.lower(), vb.lower()
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 2 and long.startswith(short) and " " not in long


def _word_value(x: Analysis, y: Analysis, fa: Frame, fb: Frame) -> Found | None:
    """A lower-case value in other words: "is made of bronze" / "is carved from marble",
    "her only dog is a beagle". The relation must be shared and single-valued (or one side
    says "only"), and each side's own words must be plain values after the verb: no
    relation word, no second occasion, no change, the same polarity."""
    if fa.negated != fb.negated or fa.change or fb.change or fa.additive or fb.additive or _flips(fa, fb):
        return None
    if fa.sequenced or fb.sequenced or _perfect(x) or _perfect(y) or occasions_differ(fa, fb):
        return None
    if fa.past != fb.past or fa.quantities or fb.quantities or fa.dates or fb.dates:
        return None
    own_a, own_b = fa.concepts - fb.concepts, fb.concepts - fa.concepts
    if len(own_a) > 2 or len(own_b) > 2 or not (_plain(own_a) and _plain(own_b)):
        return None
    relation = sorted(fa.concepts & fb.concepts & paraphrase.WORD_VALUED)
    if not relation and not (fa.exclusive or fb.exclusive):
        return None
    cue = relation[0].lstrip("@") if relation else "only"
    va, vb = _value_words(x, own_a), _value_words(y, own_b)
    reason = f"'{cue}' holds one value at a time, but the claims (in other words) give '{_show(va)}' and '{_show(vb)}'."
    return Found("entity", 0.6, reason, va, vb)


def _plain(concepts: frozenset[str]) -> bool:
    """Value words only: no paraphrase relation, no verb."""
    return all(not c.startswith("@") and c not in _VERB_STEMS for c in concepts)


_VERB_STEMS = frozenset(stem(w) for w in lexicon.VERB_FORMS)


def _value_words(side: Analysis, concepts: frozenset[str]) -> tuple[Span, ...]:
    return tuple(Span(t.start, t.end, t.text) for t in side.tokens if stem(t.low) in concepts)


def _show(spans: tuple[Span, ...]) -> str:
    return " ".join(s.text for s in spans)


def _value_position(side: Analysis, fs: Frame, names: tuple[tuple[int, str], ...], other: Analysis) -> bool:
    """The differing name sits where a value goes, not where a subject does ("Dana reports to
    Felix" vs "Noor reports to Dana" are about two people). A name before the verb is a value
    only as the holder of a role ("Mrs. Santos is principal of ...") or as the doer in an
    active sentence whose passive twin names its doer with "by" ("Oracle acquired" / "was
    acquired by Salesforce")."""
    if any(i + 1 < len(side.tokens) and side.tokens[i + 1].low == "'s" for i, _ in names):
        return False  # a possessor ("Nina's manager") is whose slot it is, never its value
    if all(i >= fs.predicate for i, _ in names):
        return True
    return side.copula or any(t.low == "by" for t in other.tokens) or _role_doer(side, fs, other)


def _role_doer(side: Analysis, fs: Frame, other: Analysis) -> bool:
    """ "Farhan leads Diego's team" against "Diego's team lead is Akosua": the doer of a verb is
    the holder of the role its noun names ("lead", "conductor"), which the other claim gives
    with a copula."""
    if not other.copula or fs.predicate >= len(side.tokens):
        return False
    verb = side.tokens[fs.predicate].low
    role = paraphrase.concept_of(stem(verb)) or stem(base_form(verb))
    return role in _ROLE_NOUNS and role in frame_of(other.text).concepts


def _run(side: Analysis, names: tuple[tuple[int, str], ...]) -> Span | None:
    """The names as one contiguous value ("Zaha Studio", "Baxter & Co."), or None."""
    idx = [i for i, _ in names]
    lo, hi = min(idx), max(idx)
    between = side.tokens[lo : hi + 1]
    if any(not (t.cap or t.low in _NAME_LINKS or t.low in FILLERS) for t in between):
        return None
    start, end = side.tokens[lo].start, side.tokens[hi].end
    return Span(start, end, side.text[start:end])


def _polarity(x: Analysis, y: Analysis, fa: Frame, fb: Frame) -> Found | None:
    """Same statement, opposite polarity: negation parity or an antonym side differs."""
    if fa.change or fb.change or fa.sequenced or fb.sequenced:
        return None
    diff = fa.concepts ^ fb.concepts
    if len(diff) > 1 or not (fa.concepts & fb.concepts):
        return None
    sides_a, sides_b = dict(fa.classes), dict(fb.classes)
    flips = [k for k in sides_a if k in sides_b and sides_a[k] != sides_b[k]]
    one_sided = set(sides_a) ^ set(sides_b)
    if one_sided:
        return None
    if len(flips) + (fa.negated != fb.negated) != 1:
        return None
    reason = "Same statement said in other words, with opposite polarity."
    return Found("polarity", 0.65, reason, _neg_spans(x), _neg_spans(y))


def _cue_spans(side: Analysis) -> tuple[Span, ...]:
    cues = {"before", "after", "afterwards", "afterward", "then", "first", "prior", "later"}
    return tuple(Span(t.start, t.end, t.text) for t in side.tokens if t.low in cues)


def _neg_spans(side: Analysis) -> tuple[Span, ...]:
    spans = [Span(t.start, t.end, side.text[t.start : t.end]) for t in side.negations]
    ceased = ceased_at([t.low for t in side.tokens])
    spans += [Span(t.start, t.end, t.text) for i, t in enumerate(side.tokens) if i in ceased]
    spans += [Span(u.start, u.end, u.text) for u in side.units if u.kind == "class"]
    return tuple(spans)


def _span(side: Analysis, unit: Unit) -> Span:
    return Span(unit.start, unit.end, side.text[unit.start : unit.end])
