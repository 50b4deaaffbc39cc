"""Entity slots: the same slot filled by different values ("lives in Paris" / "in Berlin").

Two different values are a contradiction only when the slot holds *one* value at a time.
"Alice lives in Paris / Berlin" conflicts; "Alice visited Paris / Berlin" and "speaks French /
German" do not. So a slot must be recognised as single-valued by one of these explainable
rules, tried in order (the first that fires names the cue in the reason):

1. a verb and preposition that hold one value ("lives in", "works at", "reports to",
   "is hosted on"), or a naming verb ("is called");
2. a kin role between two named people ("Jon is Maya's husband / brother");
3. a copula straight into "in"/"at" with name-like values ("Café X is in Zürich / Genève");
4. a copula whose subject names a single-holder role or property ("the on-call is",
   "Sven's manager is", "the default branch is");
5. a copula with a definite or possessive subject and name-like values on both sides
   ("the message queue is RabbitMQ / Kafka"; "Elena's car is red / blue").

Values that refine each other ("Paris" / "Paris, France", "Bulgaria" / "Plovdiv"), are aliases supplied by the caller,
are an initialism ("NYC" / "New York City") or a nickname ("Sam" / "Samantha") of each other
are the same value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from reverie.conflict import lexicon, places
from reverie.conflict.align import Hunk
from reverie.conflict.frame import Analysis, Unit
from reverie.conflict.labels import NUMBERING_WORDS, label_noun
from reverie.conflict.text import BE, PREPOSITIONS

Aliases = Callable[[str], frozenset[str]]
_TITLE_WORDS = frozenset({"of", "and", "the", "for", "&"})


@dataclass(frozen=True)
class Slot:
    """Why a slot holds one value: the cue words and how sure the rule is."""

    cue: str
    confidence: float


def same_value(va: str, vb: str, aliases: Aliases | None) -> bool:
    """Refinement (words or places), alias or initialism: the two value phrases name the same thing."""
    wa, wb = _words(va), _words(vb)
    if not wa or not wb or wa == wb:
        return True
    if set(wa) <= set(wb) or set(wb) <= set(wa):
        return True
    if aliases is not None and _aliased(" ".join(wa), " ".join(wb), aliases):
        return True
    if _initialism(va, wb) or _initialism(vb, wa) or _nickname(va, vb):
        return True
    return places.refines(wa, wb)  # "Bulgaria" / "Plovdiv"


def _words(value: str) -> list[str]:
    return [w for w in "".join(c if c.isalnum() or c in "-+" else " " for c in value.lower()).split() if w]


def _aliased(x: str, y: str, aliases: Aliases) -> bool:
    gx, gy = aliases(x), aliases(y)
    return y in gx or x in gy or bool(gx & gy)


def _nickname(va: str, vb: str) -> bool:
    """ "Sam" / "Samantha", "Alex" / "Alexander": a short name that starts a longer one.

    Sometimes two people, usually one; precision wins, so it counts as the same name.
    """
    short, long = sorted((va.strip(), vb.strip()), key=len)
    one_word = " " not in short and " " not in long
    return one_word and short[:1].isupper() and len(short) >= 3 and long.startswith(short)


def _initialism(short: str, long_words: list[str]) -> bool:
    """ "NYC" for "New York City", "AWS" for "Amazon Web Services"."""
    letters = short.replace(".", "").strip()
    if not (2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper()):
        return False
    initials = "".join(w[0] for w in long_words if w not in _TITLE_WORDS)
    return len(long_words) >= 2 and initials == letters.lower()


def single_valued(side: Analysis, hunk_units: tuple[Unit, ...], other: tuple[Unit, ...]) -> Slot | None:
    """The rule (if any) that makes the slot at ``hunk_units`` hold one value at a time.

    A label's noun ("floor" in "is on floor 3") is part of the value, not of the slot: the
    cues are read from the words before it, and it never counts as a role noun itself.
    """
    at = side.index_of(hunk_units[0])
    before = side.units[:at]
    noun = label_noun_of(side, hunk_units)
    if noun is not None:
        before = before[:-1]
    cue = _verb_cue(before)
    if cue is not None:
        return Slot(cue, 0.85)
    if noun is not None and before and before[-1].low in lexicon.VERSION_VERB_FORMS:
        # "uses Node 18" / "uses Node 20": one thing runs one member of a numbered kind.
        return Slot(f"{before[-1].text} {noun.text}", 0.8)
    if not side.copula:
        return None
    if _kinship(before, hunk_units, other):
        owner = before[-2].text if len(before) > 1 else "the other person"
        return Slot(f"relation to {owner}", 0.75)
    located = _location_cue(side, before)
    if located is not None and _name_like(hunk_units) and _name_like(other):
        return Slot(located, 0.75)
    rest = [u for u in side.units if u not in hunk_units and u is not noun]
    nouns = [u for u in rest if u.low in lexicon.FUNCTIONAL_NOUN_FORMS]
    name_like = _name_like(hunk_units) and _name_like(other)
    if nouns and (name_like or any(u.low in lexicon.LOWERCASE_VALUE_NOUNS for u in nouns)):
        return Slot(nouns[-1].text, 0.85)
    if side.definite_subject and name_like:
        subject = " ".join(u.text for u in before if side.in_subject(u))
        return Slot(subject or "the subject", 0.7)
    return None


def _verb_cue(before: tuple[Unit, ...]) -> str | None:
    """ "lives in", "reports to", "is called": the words right before the value."""
    if not before:
        return None
    last = before[-1]
    if last.low in lexicon.FUNCTIONAL_DIRECT_FORMS:
        return last.text
    if last.low not in PREPOSITIONS:
        return None
    for unit in reversed(before[-4:-1]):
        for base, preps in lexicon.FUNCTIONAL_VERB_PREPS.items():
            if last.low in preps and unit.low in lexicon.FUNCTIONAL_VERB_FORMS[base]:
                return f"{unit.text} {last.text}"
    return None


def _kinship(before: tuple[Unit, ...], units_: tuple[Unit, ...], other: tuple[Unit, ...]) -> bool:
    """ "Jon is Maya's husband / brother": one person stands in one kin role to another."""
    kin = all(u.low in lexicon.KINSHIP for u in units_) and all(u.low in lexicon.KINSHIP for u in other)
    return kin and bool(before) and before[-1].low == "'s"


def _location_cue(side: Analysis, before: tuple[Unit, ...]) -> str | None:
    """ "X is in Zürich": a copula straight into "in"/"at" places one thing in one place."""
    if not before or before[-1].low not in {"in", "at"}:
        return None
    prep = before[-1]
    verb = side.tokens[prep.tok - 1] if prep.tok > 0 else None
    if verb is None or verb.low not in BE:
        return None
    return f"{verb.text} {prep.text}"


def _name_like(units: tuple[Unit, ...]) -> bool:
    """A proper name, code or colour: something a single-valued slot is filled with."""
    return any(u.cap for u in units) or all(u.low in lexicon.COLORS for u in units)


def inverted_slot(side: Analysis) -> Slot:
    """ "Carol is the team lead": "the" marks a role with one holder."""
    tokens = side.tokens[side.predicate + 1 :]
    cue = side.text[tokens[0].start : tokens[-1].end] if tokens else "the role"
    return Slot(cue, 0.65)


def value_text(units: tuple[Unit, ...]) -> str:
    return " ".join(u.text for u in units)


def numbered(units: tuple[Unit, ...]) -> bool:
    """A value led by a label number or a code with digits ("216", "4 B", "BA117", "v2.3")."""
    return bool(units) and (units[0].label or (units[0].kind == "word" and any(c.isdigit() for c in units[0].text)))


def label_noun_of(side: Analysis, units: tuple[Unit, ...]) -> Unit | None:
    """The noun a numbered value labels, right before it ("panel" in "panel 216"), if any."""
    if not numbered(units):
        return None
    at = side.index_of(units[0])
    if at == 0:
        return None
    prev = side.units[at - 1]
    if prev.kind != "word" or prev.label or prev.tok != units[0].tok - 1:
        return None
    tok, left = side.tokens[prev.tok], side.tokens[prev.tok - 1] if prev.tok > 0 else None
    return prev if label_noun(tok, left) or tok.low in NUMBERING_WORDS else None


def value_phrase(side: Analysis, units: tuple[Unit, ...]) -> str:
    """The value as a reader names it: "floor 3", not "3"."""
    noun = label_noun_of(side, units)
    return value_text(units) if noun is None else side.text[noun.start : units[-1].end]


@dataclass(frozen=True)
class Verdict:
    """What a replaced value means: the same value, an open slot (no ruling), or a conflict."""

    kind: Literal["same", "open", "conflict"]
    slot: Slot | None = None


def compare_hunk(a: Analysis, b: Analysis, hunk: Hunk, aliases: Aliases | None) -> Verdict:
    """Judge a replaced value: same thing, a slot that may hold both, or a conflict."""
    if same_value(value_text(hunk.a), value_text(hunk.b), aliases):
        return Verdict("same")
    slot_a = single_valued(a, hunk.a, hunk.b)
    slot_b = single_valued(b, hunk.b, hunk.a)
    if slot_a is None or slot_b is None:
        return Verdict("open")
    return Verdict("conflict", slot_a if slot_a.confidence <= slot_b.confidence else slot_b)
