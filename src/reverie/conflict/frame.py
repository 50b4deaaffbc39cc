"""One claim read as a sequence of comparable units, plus the facts every rule needs.

A unit is what two claims are aligned on: a word's stem, a whole quantity ("100 requests per
minute" is one unit keyed by what it measures), a whole date, or an antonym class ("enabled"
and "disabled" share the key of their class and differ only in *side*). Negations, articles,
auxiliaries and filler adverbs are taken out of the sequence and counted separately, so
"is not allergic" and "is allergic" align word for word and differ only in a count.

The predicate index splits a claim into subject and the rest. It is found with a small verb
lexicon rather than a parser: wrong now and then, but the same way on both claims of a pair,
and when no verb is found the whole claim counts as subject, which only ever *suppresses*
a conflict.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

from reverie.conflict import lexicon
from reverie.conflict.dates import DateValue, find_dates
from reverie.conflict.labels import is_label
from reverie.conflict.numeric import Quantity, find_quantities
from reverie.conflict.text import (
    ARTICLES,
    BE,
    DETERMINERS,
    DO,
    FILLERS,
    HAVE,
    HEDGES,
    MODALS,
    NEGATIONS,
    PAST_MARKERS,
    POSSESSIVE_DETERMINERS,
    PREPOSITIONS,
    PRONOUNS,
    Token,
    stem,
    tokenize,
)

_AUX = BE | HAVE | DO | MODALS
_BASE_FORM_LEFT = PRONOUNS | MODALS | DO | frozenset({"to", "not", "never"})
_IRREGULAR_PAST = frozenset(
    {"ran", "went", "met", "took", "left", "began", "wrote", "held", "got", "made", "came", "sold",
     "bought", "grew", "knew", "flew", "drove", "spoke", "ate", "drank", "slept", "won", "lost",
     "paid", "sent", "kept", "stood", "taught", "brought", "spent", "fell", "gave", "found", "saw", "rode",
     "swam", "sang", "wore", "chose", "caught", "stole", "broke", "froze", "told", "said"}
)  # fmt: skip
# Adverbs that stand between a subject and its verb, never before a noun: "the shop still delivers".
_VERB_ADVERBS = frozenset({"still", "always", "never", "usually", "often", "rarely", "sometimes", "seldom"})
_SKIP_BEFORE_VERB = NEGATIONS | FILLERS | frozenset({"longer", "also", "only"})


@dataclass(frozen=True)
class Unit:
    """One aligned element of a claim (see module docstring)."""

    key: str
    kind: str  # "word" | "class" | "qty" | "date"
    low: str
    cap: bool
    tok: int  # index of its first token
    start: int
    end: int
    text: str
    qty: Quantity | None = None
    date: DateValue | None = None
    side: int = 0
    axis: str = ""
    label: bool = False  # a number that names which thing ("panel 216"): a name, not a quantity


@dataclass(frozen=True)
class Analysis:
    """Everything the rules read from one claim's text."""

    text: str
    tokens: tuple[Token, ...]
    units: tuple[Unit, ...]
    negations: tuple[Token, ...]
    hedged: bool
    past: bool
    predicate: int  # token index where the predicate starts; len(tokens) when none was found
    copula: bool  # the predicate is a form of "be"
    definite_subject: bool  # subject opens with the/my/our… or has a possessive

    def in_subject(self, unit: Unit) -> bool:
        return unit.tok < self.predicate

    def index_of(self, unit: Unit) -> int:
        return self.units.index(unit)


@lru_cache(maxsize=4096)
def analyse(text: str) -> Analysis:
    """Read one claim. Cached: a claim is compared against many candidates."""
    tokens = tokenize(text)
    predicate = find_predicate(tokens)
    units, negations, hedged = _units(text, tokens)
    subject = tokens[:predicate]
    # A labelled subject ("Room 12", "Order 5512") is one specific thing, like "the room".
    definite = bool(subject) and (
        subject[0].low in ARTICLES | POSSESSIVE_DETERMINERS
        or any(t.low == "'s" for t in subject)
        or any(u.label and u.tok < predicate for u in units)
    )
    return Analysis(
        text=text,
        tokens=tokens,
        units=tuple(units),
        negations=tuple(negations),
        hedged=hedged,
        past=_is_past(tokens, predicate),
        predicate=predicate,
        copula=predicate < len(tokens) and _main_verb(tokens, predicate).low in BE,
        definite_subject=definite,
    )


def find_predicate(tokens: tuple[Token, ...]) -> int:
    """Index of the first verb-like token after the subject, or ``len(tokens)``."""
    for i in range(1, len(tokens)):
        tok, prev = tokens[i], tokens[i - 1].low
        if tok.kind != "word" or prev in DETERMINERS or prev == "'s":
            continue
        low = tok.low
        if low in _AUX or low in NEGATIONS or low == "used":
            return i
        if not tok.text.islower() or low.endswith("ing") or low not in lexicon.VERB_FORMS:
            continue
        if low not in lexicon.VERB_BASE_FORMS or prev in _BASE_FORM_LEFT or _plural_subject(tokens[i - 1]):
            return i
    return _unknown_verb(tokens)


def _unknown_verb(tokens: tuple[Token, ...]) -> int:
    """Fallback for verbs the lexicon lacks: "the service listens on …" (3rd person -s), or an
    -s word right after an adverb that only stands before verbs ("the shop still delivers")."""
    for i in range(1, len(tokens)):
        tok, prev = tokens[i], tokens[i - 1]
        if not (tok.kind == "word" and tok.text.islower() and tok.low.isalpha() and tok.low.endswith("s")):
            continue
        if tok.low.endswith(("ss", "us", "is")) or prev.low in DETERMINERS or prev.kind != "word":
            continue
        if i >= 2 and prev.low in _VERB_ADVERBS:
            return i
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is not None and (nxt.low in PREPOSITIONS or nxt.low in DETERMINERS or nxt.kind == "num"):
            return i
    return len(tokens)


def _plural_subject(tok: Token) -> bool:
    """ "Alice and Bob live", "cached entries expire": a base-form verb after a name or plural."""
    if tok.kind != "word" or tok.low in DETERMINERS:
        return False
    return tok.cap or (len(tok.low) > 3 and tok.low.endswith("s") and not tok.low.endswith("ss"))


def _main_verb(tokens: tuple[Token, ...], predicate: int) -> Token:
    """The first token of the predicate that is not a negation or filler adverb."""
    i = predicate
    while i < len(tokens) - 1 and tokens[i].low in _SKIP_BEFORE_VERB:
        i += 1
    return tokens[i]


def _is_past(tokens: tuple[Token, ...], predicate: int) -> bool:
    """Simple past ("lived", "was", "used to"): the claim describes an earlier time."""
    if any(t.low in PAST_MARKERS for t in tokens):
        return True
    if predicate >= len(tokens):
        return False
    i = predicate
    while i < len(tokens) - 1 and tokens[i].low in _SKIP_BEFORE_VERB:
        i += 1
    low = tokens[i].low
    if low in {"was", "were", "had", "did"}:
        return True
    if low == "used" and i + 1 < len(tokens) and tokens[i + 1].low == "to":
        return True
    return low in _IRREGULAR_PAST or (low.endswith("ed") and low in lexicon.VERB_FORMS)


def _units(text: str, tokens: tuple[Token, ...]) -> tuple[list[Unit], list[Token], bool]:
    dates = {m.first: m for m in find_dates(tokens)}
    taken = frozenset(i for m in dates.values() for i in range(m.first, m.stop))
    quantities = {m.first: m for m in find_quantities(tokens, taken)}
    units: list[Unit] = []
    negations: list[Token] = []
    hedged = False
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if i in dates:
            m = dates[i]
            units.append(_span_unit("<date>", "date", text, tokens, i, m.stop, date=m.value))
            i = m.stop
            continue
        if i in quantities:
            q = quantities[i]
            if is_label(text, tokens, q):
                units.append(_label_unit(tok, i, q.value.exact or tok.low))
            else:
                units.append(_span_unit(f"<qty:{q.value.dim}>", "qty", text, tokens, i, q.stop, qty=q.value))
            i = q.stop
            continue
        i += 1
        low = tok.low
        if tok.kind != "word":
            continue
        if low in NEGATIONS:
            negations.append(tok)
            if low == "no" and i < len(tokens) and tokens[i].low == "longer":
                i += 1
            continue
        if low in HEDGES or (low == "may" and tok.text.islower() and not _grants_a_limit(tokens, i)):
            hedged = True
            continue
        if low in ARTICLES or low in POSSESSIVE_DETERMINERS or low in FILLERS or low in BE or low in DO:
            continue
        units.append(_word_unit(tokens, i - 1))
    return units, negations, hedged


_LIMIT_WORDS = (("up", "to"), ("at", "most"), ("no", "more"), ("not", "more"))


def _grants_a_limit(tokens: tuple[Token, ...], after: int) -> bool:
    """ "may send up to 500 requests": "may" grants a bounded permission, a stated rule, not a
    guess. Looked for in the next few words."""
    window = [t.low for t in tokens[after : after + 5]]
    return any(pair in _LIMIT_WORDS for pair in itertools.pairwise(window))


def _span_unit(
    key: str,
    kind: str,
    text: str,
    tokens: tuple[Token, ...],
    first: int,
    stop: int,
    *,
    qty: Quantity | None = None,
    date: DateValue | None = None,
) -> Unit:
    start, end = tokens[first].start, tokens[stop - 1].end
    surface = text[start:end]
    return Unit(key, kind, surface.lower(), True, first, start, end, surface, qty=qty, date=date)


def _label_unit(tok: Token, i: int, digits: str) -> Unit:
    """A label number aligns like a name: equal digits are the same thing, other digits another."""
    return Unit(f"#{digits}", "word", tok.low, True, i, tok.start, tok.end, tok.text, label=True)


def _word_unit(tokens: tuple[Token, ...], i: int) -> Unit:
    tok = tokens[i]
    found = antonym_of(tokens, i)
    if found is not None:
        cls, side = found
        return Unit(
            f"§{cls.name}", "class", tok.low, tok.cap, i, tok.start, tok.end, tok.text, side=side, axis=cls.axis
        )
    proper = tok.cap and i > 0
    key = tok.low if proper else stem(tok.low)
    return Unit(key, "word", tok.low, tok.cap, i, tok.start, tok.end, tok.text)


def _state_use(tokens: tuple[Token, ...], i: int) -> bool:
    """ "is on" / "turned off" as a state, not "is on May 3" or "is on the team"."""
    if i == 0 or tokens[i - 1].low not in lexicon.STATE_LEFT_CONTEXT:
        return False
    if i + 1 == len(tokens):
        return True
    nxt = tokens[i + 1]
    return nxt.kind == "word" and not nxt.cap and nxt.low in lexicon.STATE_RIGHT_CONTEXT


def antonym_of(tokens: tuple[Token, ...], i: int) -> tuple[lexicon.Antonym, int] | None:
    """The antonym class and side of token ``i``, honouring "on"/"off" only as states."""
    low = tokens[i].low
    if low in lexicon.STATE_CONTEXT_WORDS and not _state_use(tokens, i):
        return None
    return _ANTONYM_OF.get(low)


def _antonym_index() -> dict[str, tuple[lexicon.Antonym, int]]:
    """Every antonym word's (class, side), as a scan of ``lexicon.ANTONYMS`` finds it: the first
    class that lists the word, its positive side before its negative. Every word of every claim
    is looked up, so one dict lookup instead of a scan of ~30 classes. Built once at import,
    like the lexicon it reads: words are taught by editing ``lexicon.py``."""
    out: dict[str, tuple[lexicon.Antonym, int]] = {}
    for cls in lexicon.ANTONYMS:
        for side, words in ((0, cls.positive), (1, cls.negative)):
            for word in words:
                out.setdefault(word, (cls, side))
    return out


_ANTONYM_OF = _antonym_index()
