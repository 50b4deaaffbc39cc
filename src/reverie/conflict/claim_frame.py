"""A claim read as a frame: names, concepts, values and polarity, order-free.

Why: the word-by-word aligner (``align``) compares claims as sequences, so the same statement
said in another order or with other words never lines up. A frame is what ``meaning`` compares
instead (see its docstring for how two frames are judged):

- names: capitalised words and codes (the subject's identity, or the value of an entity slot);
- concepts: the other content words, stemmed and mapped through ``paraphrase`` classes, as a
  set (order-free, so passives and possessives meet);
- values: quantities and dates, already normalised by ``numeric`` / ``dates`` (units
  converted, "1.5 hours" = "90 minutes");
- polarity: negation parity ("not", "never", "no longer", "n't") and antonym-class sides;
- the cues that block a judgement: hedges, changes over time, records, sequences.

One claim's frame depends on that claim alone, so it is cached and read once per claim.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from reverie.conflict import lexicon, paraphrase, units
from reverie.conflict.dates import DateValue
from reverie.conflict.derive import base_form
from reverie.conflict.frame import Analysis, Unit, analyse
from reverie.conflict.grammar import (
    AXES,
    MEASURE_STEMS,
    ceased_at,
    head_of,
    stopped_in_past,
)
from reverie.conflict.numeric import Quantity
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

# Words that make a claim conditional or reported rather than asserted.
_SOFT_HEDGES = HEDGES | frozenset(
    {"may", "might", "could", "considering", "consider", "want", "wants", "would", "rumour", "rumoured",
     "rumor", "rumored", "evaluating", "whether", "if", "thinks", "think", "plans", "planning", "hope",
     "hopes", "expected", "sure", "unless", "possibly", "unsure", "supposedly", "allegedly", "planned",
     "originally", "initially", "proposed", "tentatively"}
)  # fmt: skip
# Words that place a claim on a timeline next to another state: a change, not a conflict.
CHANGE = frozenset(
    {"until", "till", "since", "formerly", "previously", "later", "earlier", "grown", "grew", "retrained",
     "became", "become", "becomes", "switched", "moved", "then", "replaced", "introduced", "discontinued"}
)  # fmt: skip
# Words that say a claim is about now, whatever changed before ("moved out and no longer lives").
NOW = frozenset({"longer", "anymore", "still"})
# Words that only say *that* something is measured; the unit of the quantity says *what*.
_MEASURES = frozenset({"@duration", "@tall", "@weigh", "@cost"})
# Words that make a value hold only under a condition ("35 minutes in rush hour").
_CONDITION = frozenset({"if", "unless", "during", "while", "peak", "rush", "except", "excluding", "otherwise"})
# Words that add another member rather than replace one ("also", "another").
ADDITIVE = frozenset({"also", "too", "another", "other", "include", "includes", "including", "among", "both"})
# Words that say a value is the only one: they make any relation single-valued.
_EXCLUSIVE = frozenset({"only", "instead", "sole", "solely", "exclusively", "alone", "entirely", "wholly"})
# Adverbs of "all of it" that may split a two-word relation: "written entirely in", "based solely in".
_WHOLLY = frozenset({"entirely", "wholly", "fully", "completely", "solely", "exclusively", "only"})
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
# Verbs that only place a nominalised event in time: "the signing took place on 2 May", "her
# diagnosis came in 2016", "its completion happened in 1905" say what "was signed on" says.
_LIGHT_BEFORE_DATE = frozenset({"came", "comes", "took", "takes", "happened", "happens", "occurred", "occurs"})
# Negative words that are not in the negation list the aligner uses.
_NEGATIVE_WORDS = frozenset({"unable", "cannot", "without", "lacks", "lack"})


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
    dated = any(u.kind == "date" or is_year(u) for u in side.units)
    skip = -1
    for i, tok in enumerate(tokens):
        if i in labels:
            names.append((i, tok.low))
            continue
        if i in in_value or tok.kind != "word" or i <= skip or i in ceased or i in stopped or i in age_cues:
            continue
        pair, width = _phrase_at(stems, lows, i)
        placed = pair == "@happen" and _place_follows(side, i + 2)
        if i == pred and dated and lows[i] in _LIGHT_BEFORE_DATE and pair in (None, "@happen") and not placed:
            skip = i + (
                width if pair is not None else 0
            )  # "the diagnosis came in 2016", "the signing took place on …":
            continue  # the noun is the event, the verb only dates it ("came down" is an event itself)
        if pair is not None:  # "married to": read as a relation even if "married" is a state too
            concepts.add("@where" if placed else pair)
            skip = i + width
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
        if function_word(low) or stems[i] in _GENERIC or units.lookup(low) is not None:
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
    quantities = tuple(u for u in side.units if u.kind == "qty" and not is_year(u))
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
        years=tuple(_as_date(u) for u in side.units if is_year(u)),
        dates=tuple(u for u in side.units if u.kind == "date"),
        negated=(len(side.negations) + _negative_words(lows) + bool(ceased)) % 2 == 1,
        classes=tuple((u.key, u.side) for u in side.units if u.kind == "class" and _able_base(u.low) is None),
        words=words,
        stems=frozenset(stems) | frozenset(roots),
        hedged=bool(spoken & _SOFT_HEDGES),
        change=(bool(change_words(lows) & CHANGE) and not words & NOW) or ("used" in words and "to" in words),
        record=_record(side),
        sequenced=_sequenced(side) or bool(words & _CONDITION),
        possessives=lows.count("'s"),
        head=head_of(lows, in_subject),
        axes=frozenset(AXES[w] for w in lows if w in AXES),
        compared=_compared(side),
        predicate=pred,
        past=past,
        additive=bool(words & ADDITIVE) or ("as" in words and "well" in words),
        exclusive=bool(words & _EXCLUSIVE) or _by_oneself(lows),
        stopped=bool(stopped),
        bound=bound if bound is not None and len(quantities) == 1 else None,
    )


def _phrase_at(stems: list[str], lows: list[str], i: int) -> tuple[str | None, int]:
    """The two-word relation starting at token i and how many tokens after i it spans: "written
    in" (1), or "written entirely in" (2), where an adverb of "all of it" splits the phrase."""
    if i + 1 >= len(stems):
        return None, 0
    pair = paraphrase.phrase_concept(stems[i], stems[i + 1])
    if pair is not None:
        return pair, 1
    if i + 2 < len(stems) and lows[i + 1] in _WHOLLY:
        pair = paraphrase.phrase_concept(stems[i], stems[i + 2])
        if pair is not None:
            return pair, 2
    return None, 0


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


def change_words(lows: list[str]) -> frozenset[str]:
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


def is_year(unit: Unit) -> bool:
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


def _compared(side: Analysis) -> bool:
    """ "than" after a quantity: "10 euros higher than the fare" states a difference."""
    last_than = max((t.start for t in side.tokens if t.low == "than"), default=-1)
    return any(u.kind == "qty" and u.end <= last_than for u in side.units)


def _stop(side: Analysis, unit: Unit) -> int:
    """The token index just after a value unit."""
    tokens = side.tokens
    return next((i for i in range(unit.tok, len(tokens)) if tokens[i].start >= unit.end), len(tokens))


def function_word(low: str) -> bool:
    """A word that says nothing of what a claim is about (articles, prepositions, hedges …)."""
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
    if not tok.cap or tok.low in FILLERS:
        return False
    if paraphrase.concept_of(stem(tok.low)) is not None and not (i > 0 and _title_case(tok.text)):
        return False  # "PhD", "CEO"; but "written in Go", "shops at Best Buy": a name mid-sentence
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


def _title_case(text: str) -> bool:
    """ "Go", "Home": capitalised like a name, not written in capitals like "PhD" or "TTL"."""
    return len(text) > 1 and text[0].isupper() and text[1:].islower()


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
