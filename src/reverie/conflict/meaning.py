"""Alignment by meaning: a second reading for pairs the word-by-word aligner cannot line up.

Why: the aligner in ``align`` demands that every difference between two claims be explained
word by word, so it misses the same conflict said in other words: another verb ("lives in" /
"home is in"), another order (passive "was designed by X" / "Y designed"), a possessive
subject ("Nina's boss is Petra" / "Nina reports to Omar"), units spelled differently. This
module reads each claim as a *frame* instead of a sequence:

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

import itertools
import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from reverie.conflict import lexicon, paraphrase, sequence, units
from reverie.conflict.core import Axis, Span
from reverie.conflict.dates import DateValue, date_fields_in_conflict, time_in_conflict
from reverie.conflict.derive import base_form
from reverie.conflict.entity import Aliases, same_value
from reverie.conflict.frame import Analysis, Unit, analyse
from reverie.conflict.grammar import (
    AXES,
    MEASURE_STEMS,
    ceased_at,
    experience_in_perfect,
    head_of,
    stopped_in_past,
)
from reverie.conflict.numeric import Quantity, comparable, disagree, limits_disagree
from reverie.conflict.temporal import reports_an_occasion, says_again
from reverie.conflict.text import (
    ARTICLES,
    DETERMINERS,
    FILLERS,
    HEDGES,
    NEGATIONS,
    POSSESSIVE_DETERMINERS,
    is_structural,
    stem,
)

# Words that make a claim state a rule, so a bound it gives is the rule's value ("the password
# must be at least 12 characters" and "… at least 8" are two rules).
_RULE_WORDS = frozenset(
    {"must", "required", "requires", "require", "minimum", "maximum", "limit", "limited", "allowed", "capped",
     "mandatory"}
)  # fmt: skip
# Words that make a claim conditional or reported rather than asserted.
_SOFT_HEDGES = HEDGES | frozenset(
    {"may", "might", "could", "considering", "consider", "want", "wants", "would", "rumour", "rumoured",
     "rumor", "rumored", "evaluating", "whether", "if", "thinks", "think", "plans", "planning", "hope",
     "hopes", "expected", "sure", "unless", "possibly", "unsure", "supposedly", "allegedly", "planned",
     "originally", "initially", "proposed", "tentatively"}
)  # fmt: skip
# Words that place a claim on a timeline next to another state: a change, not a conflict.
_CHANGE = frozenset(
    {"until", "till", "since", "formerly", "previously", "later", "earlier", "grown", "grew", "retrained",
     "became", "become", "becomes", "switched", "moved", "then", "replaced", "introduced", "discontinued"}
)  # fmt: skip
# Words that say a claim is about now, whatever changed before ("moved out and no longer lives").
_NOW = frozenset({"longer", "anymore", "still"})
# Words that only say *that* something is measured; the unit of the quantity says *what*.
_MEASURES = frozenset({"@duration", "@tall", "@weigh", "@cost"})
# Words that make a value hold only under a condition ("35 minutes in rush hour").
_CONDITION = frozenset({"if", "unless", "during", "while", "peak", "rush", "except", "excluding", "otherwise"})
# Words that add another member rather than replace one ("also", "another").
_ADDITIVE = frozenset({"also", "too", "another", "other", "include", "includes", "including", "among", "both"})
# Words that say a value is the only one: they make any relation single-valued.
_EXCLUSIVE = frozenset({"only", "instead", "sole", "solely", "exclusively", "alone"})
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
# Content words too general to say what a claim is about.
_GENERIC = frozenset(
    {stem(w) for w in ("there", "it", "own", "total", "just", "about", "over", "around", "roughly",
                        "approximately", "more", "any", "anymore", "longer", "able", "one", "thing", "up",
                        "out", "got", "get", "set", "currently", "right", "now", "still", "again", "all",
                        "every", "each", "day", "whole", "entire", "actually", "already", "yet", "even",
                        "both", "full", "fully", "we", "you", "they", "he", "she", "i", "us", "them",
                        "his", "her", "their", "our", "my", "its", "also", "only", "instead", "exactly",
                        "well", "way", "being", "has", "have", "had", "having", "do", "does", "did",
                        "is", "are", "was", "were", "be", "been", "first", "job", "count", "number", "current")}
)  # fmt: skip
# Events that happen once in a thing's life: their date does not change with the tense it is
# told in ("was born in 1988" / "birth year is 1992", "was founded in 1902" / "dates from its
# founding in 1950"), unlike a value that may have moved ("was 100" / "is 500").
_ONE_LIFETIME = frozenset({"@born", "@found", "@die"})
# Verbs that only place a nominalised event in time: "the signing took place on 2 May", "her
# diagnosis came in 2016", "its completion happened in 1905" say what "was signed on" says.
_LIGHT_BEFORE_DATE = frozenset({"came", "comes", "took", "takes", "happened", "happens", "occurred", "occurs"})
# Negative words that are not in the negation list the aligner uses.
_NEGATIVE_WORDS = frozenset({"unable", "cannot", "without", "lacks", "lack"})
# Roles and properties with one holder at a time ("landlord", "capital"), as the aligner knows them.
_ROLE_NOUNS = frozenset(stem(w) for w in lexicon.FUNCTIONAL_NOUNS) | frozenset(
    stem(base_form(w))
    for w in lexicon.FUNCTIONAL_NOUNS  # "conductor" read as "conduct" (``derive``)
)
_NAME_LINKS = frozenset({"of", "and", "&", "de", "van", "von", "da", "del", "la", "le"})


@dataclass(frozen=True)
class Frame:
    """What a claim says, order-free (see module docstring)."""

    names: tuple[tuple[int, str], ...]  # (token index, lower-cased text) of each name token
    concepts: frozenset[str]
    subject: frozenset[str]  # the concepts said before the predicate: who or what it is about
    quantities: tuple[Unit, ...]
    years: tuple[Unit, ...]  # bare four-digit numbers the date reader left ("died in 1616"), as dates
    dates: tuple[Unit, ...]
    negated: bool
    classes: tuple[tuple[str, int], ...]  # (antonym class, side)
    words: frozenset[str]  # every lower-cased word, to match a name said in lower case elsewhere
    stems: frozenset[str]
    hedged: bool
    change: bool
    additive: bool
    exclusive: bool
    record: bool
    sequenced: bool
    possessives: int  # how many "'s" the claim says
    head: str | None  # the subject's head concept ("heap" in "the maximum heap size for the JVM")
    compared: bool  # "than" after a quantity: "10 euros higher than the fare" is a difference
    axes: frozenset[str]  # which extent a length measures: "long" / "wide" / "high" / "deep"
    predicate: int  # token index of the predicate (``frame.find_predicate``, or a fallback)
    past: bool
    stopped: bool  # "stopped working …" told in the simple past (``grammar.stopped_in_past``)
    bound: str | None  # "lower" / "upper": the claim names its one value a minimum / maximum


@dataclass(frozen=True)
class Found:
    """A conflict read by meaning: axis, confidence, reason and the spans that show it."""

    axis: Axis
    confidence: float
    reason: str
    spans_a: tuple[Span, ...]
    spans_b: tuple[Span, ...]


@lru_cache(maxsize=4096)
def frame_of(text: str) -> Frame:
    """The frame of one claim's text. Cached like ``analyse``: a claim meets many candidates."""
    return frame(analyse(text))


_NUMBER_WORDS = "|".join(sorted(units.NUMBER_WORDS, key=len, reverse=True))
_COMPOUND = re.compile(rf"\b([0-9]+(?:\.[0-9]+)?|{_NUMBER_WORDS})-(?=[a-z])", re.IGNORECASE)


@lru_cache(maxsize=4096)
def unhyphenated(text: str) -> str:
    """ "a 3-hour flight", "a five-year warranty" read as "a 3 hour flight": a number joined to its
    unit by a hyphen is the same quantity. Same length, so every offset still points into the
    original text."""
    return _COMPOUND.sub(lambda m: m.group(1) + " ", text)


def frame(side: Analysis) -> Frame:
    """Read one analysed claim as a frame."""
    tokens = side.tokens
    pred = _predicate(side)
    measured = any(u.kind == "qty" and u.qty is not None and u.qty.dim != "bare" for u in side.units)
    in_value = {i for u in side.units if u.kind in ("qty", "date") for i in range(u.tok, _stop(side, u))}
    labels = {u.tok for u in side.units if u.label}
    classed = {u.tok for u in side.units if u.kind == "class"}
    names: list[tuple[int, str]] = []
    concepts: set[str] = set()
    subject: set[str] = set()
    lows = [t.low for t in tokens]
    stems = [stem(low) for low in lows]
    roots = [stem(base_form(low)) for low in lows]  # "retirement" meets "retired" (see ``derive``)
    in_subject: list[tuple[int, str]] = []
    ceased = ceased_at(lows)
    stopped = stopped_in_past(lows)
    age_cues, age_unit = _age(side, lows)
    dated = any(u.kind == "date" or _year(u) for u in side.units)
    skip = -1
    for i, tok in enumerate(tokens):
        if i in labels:
            names.append((i, tok.low))
            continue
        if i in in_value or tok.kind != "word" or i <= skip or i in ceased or i in stopped or i in age_cues:
            continue
        pair = paraphrase.phrase_concept(stems[i], stems[i + 1]) if i + 1 < len(tokens) else None
        placed = pair == "@happen" and _place_follows(side, i + 2)
        if i == pred and dated and lows[i] in _LIGHT_BEFORE_DATE and pair in (None, "@happen") and not placed:
            skip = i + (pair is not None)  # "the diagnosis came in 2016", "the signing took place on …":
            continue  # the noun is the event, the verb only dates it ("came down" is an event itself)
        if pair is not None:  # "married to": read as a relation even if "married" is a state too
            concepts.add("@where" if placed else pair)
            skip = i + 1
            continue
        able = _able_base(lows[i])
        if i in classed and able is None:  # an antonym state: its class is the topic, its side apart
            concepts.add(next(u.key for u in side.units if u.tok == i and u.kind == "class"))
            event = paraphrase.concept_of(stems[i])
            if event is not None:  # "completed" is a state and also the event "completion" names
                concepts.add(event)
            continue
        if _is_name(side, i, pred):
            names.append((i, tok.low))
            continue
        low = lows[i]
        if _function_word(low) or stems[i] in _GENERIC or units.lookup(low) is not None:
            continue  # a unit word left outside its number ("3-hour") says nothing of the topic
        if low in _EXCLUSIVE:
            continue  # "sole" / "exclusively" say how many values, not what the claim is about
        concept = able or paraphrase.concept_of(stems[i]) or paraphrase.concept_of(roots[i]) or roots[i]
        if measured and (concept in _MEASURES or stems[i] in MEASURE_STEMS):
            continue  # "lasts" / "is … long" / "weighs": the unit already says what is measured
        if measured and low in _STANDS and any(w in AXES for w in lows):
            continue  # "stands 1.65 metres tall", "stands 300 m high": a height, not a place
        concepts.add(concept)
        if i < pred:
            subject.add(concept)
            in_subject.append((i, concept))
    concepts |= _implicit_location(side)
    quantities = tuple(u for u in side.units if u.kind == "qty" and not _year(u))
    past = side.past if pred == side.predicate else _past_verb(tokens[pred].low) if pred < len(tokens) else False
    bound = next((_BOUNDS[low] for i, low in enumerate(lows) if low in _BOUNDS and i not in in_value), None)
    if bound is not None and len(quantities) == 1:
        concepts -= _BOUNDS.keys()
        subject -= _BOUNDS.keys()
    if age_unit is not None:
        concepts.add("@age")
        if age_unit not in quantities:
            quantities = (*quantities, age_unit)
        if any(lows[i] in _TURNED for i in age_cues) and not dated:
            past = False  # "turned 41 this year": an age held now, as "is 41 years old" says
    words = frozenset(lows)
    # "May 10" is a date, not a hedge: hedges are read outside values, "may" only in lower case
    spoken = frozenset(t.low for i, t in enumerate(tokens) if i not in in_value and (t.low != "may" or t.text == "may"))
    return Frame(
        names=tuple(names),
        concepts=frozenset(concepts),
        subject=frozenset(subject),
        quantities=quantities,
        years=tuple(_as_date(u) for u in side.units if _year(u)),
        dates=tuple(u for u in side.units if u.kind == "date"),
        negated=(len(side.negations) + _negative_words(lows) + bool(ceased)) % 2 == 1,
        classes=tuple((u.key, u.side) for u in side.units if u.kind == "class" and _able_base(u.low) is None),
        words=words,
        stems=frozenset(stems) | frozenset(roots),
        hedged=bool(spoken & _SOFT_HEDGES),
        change=(bool(_change_words(lows) & _CHANGE) and not words & _NOW) or ("used" in words and "to" in words),
        record=_record(side),
        sequenced=_sequenced(side) or bool(words & _CONDITION),
        possessives=lows.count("'s"),
        head=head_of(lows, in_subject),
        axes=frozenset(AXES[w] for w in lows if w in AXES),
        compared=any(t.low == "than" and t.start >= u.end for u in side.units if u.kind == "qty" for t in tokens),
        predicate=pred,
        past=past,
        additive=bool(words & _ADDITIVE) or ("as" in words and "well" in words),
        exclusive=bool(words & _EXCLUSIVE) or _by_oneself(lows),
        stopped=bool(stopped),
        bound=bound if bound is not None and len(quantities) == 1 else None,
    )


def _negative_words(lows: list[str]) -> int:
    """Negative words that deny the claim's own statement. "without parking" denies what "has
    parking" says; "shipped without being paid for", "left without paying" deny a second event
    and leave the first standing."""
    count = 0
    for i, low in enumerate(lows):
        if low not in _NEGATIVE_WORDS:
            continue
        nxt = lows[i + 1] if i + 1 < len(lows) else ""
        if low == "without" and (nxt in {"being", "ever", "having"} or (nxt.endswith("ing") and len(nxt) > 5)):
            continue
        count += 1
    return count


_STANDS = frozenset({"stand", "stands", "stood"})
_ONESELF = frozenset({"himself", "herself", "themselves", "itself", "myself"})


def _by_oneself(lows: list[str]) -> bool:
    """ "baked the cake by himself": nobody else did it, as "alone" says."""
    return any(a == "by" and b in _ONESELF for a, b in itertools.pairwise(lows))


_TURNED = frozenset({"turned", "turns"})
_AGE_VERBS = _TURNED | {"aged"}


def _age(side: Analysis, lows: list[str]) -> tuple[frozenset[int], Unit | None]:
    """An age said as "is six years old", "turned 41", "turns two", "aged 40": the cue words and
    the age as a bare quantity (a spelled number after "turned" is read here; the number reader
    leaves a lone "two"). Both claims then measure one thing, the age, whatever verb says it."""
    for unit in side.units:
        q = unit.qty
        if unit.kind == "qty" and q is not None and q.dim == "bare" and unit.low.endswith(("years old", "year old")):
            return frozenset(), unit
    for i, low in enumerate(lows[:-1]):
        if low not in _AGE_VERBS:
            continue
        nxt = next((u for u in side.units if u.tok == i + 1), None)
        if nxt is not None and nxt.kind == "qty" and nxt.qty is not None and nxt.qty.dim == "bare":
            return frozenset({i}), nxt
        value = units.NUMBER_WORDS.get(lows[i + 1])
        if (nxt is None or nxt.kind == "word") and value is not None and value < 150:
            token = side.tokens[i + 1]
            q = Quantity(value, value, False, False, "bare", "", token.text, str(int(value)), False)
            return frozenset({i}), Unit(token.low, "qty", token.low, False, i + 1, token.start, token.end,
                                        token.text, qty=q)  # fmt: skip
    return frozenset(), None


# "The minimum password length is 8": the value is a lower bound, as "at least 8" says.
_BOUNDS = {"minimum": "lower", "min": "lower", "maximum": "upper", "max": "upper"}


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


def _change_words(lows: list[str]) -> frozenset[str]:
    """The words that may mark a change; "until" after "valid" is an end date, not a change."""
    return frozenset(w for i, w in enumerate(lows) if not (w == "until" and i > 0 and lows[i - 1] in {"valid", "good"}))


def _place_follows(side: Analysis, i: int) -> bool:
    """ "took place in Riga": "in" / "at" and a name that is not a date or number. Where one
    event happened is one place, as "was held in" / "was hosted in" say."""
    tokens = side.tokens
    if i + 1 >= len(tokens) or tokens[i].low not in {"in", "at"}:
        return False
    j = i + 1 + (tokens[i + 1].low in ARTICLES and i + 2 < len(tokens))
    valued = {k for u in side.units if u.kind in ("qty", "date") for k in range(u.tok, _stop(side, u))}
    return tokens[j].kind == "word" and tokens[j].cap and j not in valued


def axes_differ(fa: Frame, fb: Frame) -> bool:
    """Both claims name the extent their length runs along, and the extents differ."""
    return bool(fa.axes and fb.axes and not fa.axes & fb.axes)


def _year(unit: Unit) -> bool:
    """A bare number that reads as a year: four digits, 1000-2199, no unit, no thousands comma
    ("1,100" is a count)."""
    q = unit.qty
    return (
        unit.kind == "qty"
        and "," not in unit.text
        and q is not None
        and q.dim == "bare"
        and q.exact is not None
        and len(q.exact) == 4
        and q.exact.isdigit()
        and 1000 <= int(q.exact) < 2200
    )


def _as_date(unit: Unit) -> Unit:
    """A bare year as the date it names, so it meets "in 1791" read as a date on the other side."""
    assert unit.qty is not None and unit.qty.exact is not None
    return replace(unit, key="<date>", kind="date", qty=None, date=DateValue(year=int(unit.qty.exact)))


def _able_base(low: str) -> str | None:
    """ "reachable" → "reach", "accessible" → "access": can-be-X is X said as an adjective, so
    "is reachable" meets "can be reached" and "cannot be reached" negates it."""
    for suffix in ("able", "ible"):
        base = low[: -len(suffix)]
        if low.endswith(suffix) and len(base) >= 4 and base.isalpha():
            return stem(base)
    return None


def _stop(side: Analysis, unit: Unit) -> int:
    """The token index just after a value unit."""
    return next((i for i, t in enumerate(side.tokens) if t.start >= unit.end), len(side.tokens))


def function_word(low: str) -> bool:
    """A word that says nothing of what a claim is about (articles, prepositions, hedges …)."""
    return _function_word(low)


def _function_word(low: str) -> bool:
    return (
        is_structural(low)
        or low in FILLERS
        or low in NEGATIONS
        or low in ARTICLES
        or low in POSSESSIVE_DETERMINERS
        or low in _SOFT_HEDGES
        or low in {"'s", "n't", "longer", "than", "whose", "whom", "where", "when"}
    )


def _predicate(side: Analysis) -> int:
    """Where the predicate starts. The aligner's verb lexicon is small; when it finds no verb,
    take the first lower-case past form ("Luis Ortega painted …") or the first word of a
    paraphrase phrase ("sessions time out …") or a paraphrase word in its -s form."""
    tokens = side.tokens
    if side.predicate < len(tokens):
        return side.predicate
    for i in range(1, len(tokens)):
        tok, prev = tokens[i], tokens[i - 1]
        if tok.kind != "word" or not tok.text.islower() or prev.low in DETERMINERS or prev.low == "'s":
            continue
        low = tok.low
        if _past_verb(low):
            return i
        if i + 1 < len(tokens) and paraphrase.phrase_concept(stem(low), stem(tokens[i + 1].low)) is not None:
            return i
        if low.endswith("s") and not low.endswith("ss") and paraphrase.concept_of(stem(low)) is not None:
            return i
    return len(tokens)


def _past_verb(low: str) -> bool:
    return low in lexicon.PAST_VERB_FORMS or (len(low) > 3 and low.endswith("ed"))


def _is_name(side: Analysis, i: int, pred: int) -> bool:
    """A capitalised word or code; the first word only when it is plainly a name. A word of a
    paraphrase class ("PhD", "CEO", "TTL") is a concept however it is written."""
    tokens = side.tokens
    tok = tokens[i]
    if not tok.cap or tok.low in FILLERS or paraphrase.concept_of(stem(tok.low)) is not None:
        return False
    if stem(tok.low) in _GENERIC:
        return False  # "There are four cats …"
    if i > 0:
        return True
    if tok.low in ARTICLES or tok.low in POSSESSIVE_DETERMINERS or is_structural(tok.low):
        return False
    nxt = next((t for t in tokens[1:] if t.low not in FILLERS), None)
    if nxt is None:
        return False
    verb_next = nxt.text.islower() and (nxt.low in lexicon.VERB_FORMS or nxt.low.endswith("ed"))
    return pred == 1 or verb_next or nxt.low == "'s" or nxt.cap


def _perfect(side: Analysis) -> bool:
    """ "Ravi has lived in Mumbai": experience over a life, so several values may each be true."""
    return experience_in_perfect([t.low for t in side.tokens], lexicon.PAST_VERB_FORMS)


def _record(side: Analysis) -> bool:
    """A templated record ("Thermostat log 06:00: heating on"): a header, then an observation.

    Records of one template are many occasions of one kind; their values differ by design.
    """
    return ": " in side.text or side.text.rstrip().endswith(":")


def _implicit_location(side: Analysis) -> set[str]:
    """ "X is in Paris" says where X is, as "X is located in Paris" does; "the accord was signed
    in Vienna" says where its one signing was, as "the signing took place in Geneva" does."""
    tokens = side.tokens
    p = side.predicate
    if side.copula and p + 2 < len(tokens) and tokens[p + 1].low in _ONCE_PLACED:
        p += 1
    place = p + 2 < len(tokens) and tokens[p + 2].kind == "word" and tokens[p + 2].cap
    if side.copula and place and tokens[p + 1].low in {"in", "at"}:
        return {"@where"}
    return set()


# Events that happen once to what they are said of, so "in <Place>" after them is its one place.
_ONCE_PLACED = frozenset(
    {"signed", "born", "founded", "buried", "crowned", "baptised", "baptized", "ratified", "held", "hosted"}
)


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
        return None  # another numbered or coded thing: a different subject, not another value
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
    now = bool((fa.words | fb.words) & _NOW)  # "still lives" / "moved out and no longer lives"
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
    marks = {stem(w) for w in (_change_words(list(fa.words)) | _change_words(list(fb.words))) & _CHANGE}
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
        date = next((u for u in side.units if (u.kind == "date" or _year(u)) and u.tok > i), None)
        if date is None:
            return None
        between = {_concept_of_word(w) for w in lows[i + 1 : date.tok] if not _function_word(w)}
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


def _sequenced(side: Analysis) -> bool:
    """ "before the reorg" / "after the reorg": a value placed next to another event, so both
    may hold. "after 90 s" / "before 9 am" are a duration and a time, not an event."""
    starts = {u.tok for u in side.units if u.kind in ("qty", "date")}
    tokens = side.tokens
    for i, tok in enumerate(tokens):
        if tok.low not in {"before", "after", "when", "once"}:
            continue
        j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1].low in ARTICLES)
        if j not in starts:
            return True
    return False


def _other_holder(fa: Frame, fb: Frame) -> bool:
    """One subject names a thing or person the other does not ("Lars's brother", "main span"),
    or goes one possessive further ("Omar's boss's boss")."""
    if max(fa.possessives, fb.possessives) >= 2 and fa.possessives != fb.possessives:
        return True
    return bool((fa.subject - fb.concepts - fb.stems) or (fb.subject - fa.concepts - fa.stems))


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
    additive = bool((a | b) & _ADDITIVE) or ("as" in a | b and "well" in a | b)  # "is also taught by"
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
