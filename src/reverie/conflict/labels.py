"""Numbers that name *which* thing, not *how much* of it: panel 216, build #1234, Node 18.

Why this matters: templated observations ("Checked the dashboard at 13:00, nothing unusual on
panel 216.") differ only in such numbers. Read as quantities, "216 vs 240" looks like one
attribute with two values, and a log tail of 300 lines became hundreds of contradictions
(issue #13). A label is part of a name: two labels differ the way "Paris" and "Berlin"
differ, and whether that is a conflict is the entity rules' question (does the slot hold one
value at a time?), not arithmetic's.

The rule is positional, not a list of nouns. A bare number (no unit, no hedge or bound, one
token) is a label when it stands where an identifier stands:

1. right after ``#`` or a numbering word ("no.", "nr", "number", "id");
2. right after a noun, with only a space between (so "Alice, 34" is not "Alice 34"): "panel
   216", "room 12", "Node 18". A noun here is any word that is not a function word, a verb
   form, a number word, a hedge or bound ("about", "over"), or a noun that names a measured
   attribute ("age 34", "score 98", "priority 2"): those say how much.

Codes with letters or a leading-zero part ("PROJ-881", "BA117", "14C", "2024-0113", "v2.3")
are single word tokens already (``text``), capitalised, so they read as names without help.
"""

from __future__ import annotations

from reverie.conflict.lexicon import VERB_BASE_FORMS, VERB_FORMS
from reverie.conflict.numeric import QuantityMention
from reverie.conflict.text import (
    DETERMINERS,
    DO,
    FILLERS,
    HEDGES,
    MODALS,
    NEGATIONS,
    PREPOSITIONS,
    PRONOUNS,
    Token,
    is_structural,
)
from reverie.conflict.units import MULTIPLIERS, NUMBER_WORDS

#: Words after which a number is a running number by definition.
NUMBERING_WORDS = frozenset({"no.", "nr", "nº", "number", "num", "id", "ref", "serial"})
#: Nouns naming an attribute measured by the number after them: its value, not a label.
MEASURE_NOUNS = frozenset(
    {
        "age", "aged", "score", "scores", "total", "totals", "count", "sum", "price", "cost", "level",
        "priority", "severity", "rank", "ranking", "rating", "grade", "size", "height", "weight",
        "length", "width", "depth", "speed", "rate", "temperature", "temp", "pressure", "humidity",
        "balance", "budget", "salary", "capacity", "limit", "quota", "threshold", "timeout", "ttl",
        "value", "amount", "volume", "population", "load", "usage", "uptime", "latency", "ratio",
        "points", "votes", "goals", "par", "handicap", "distance", "duration", "margin", "cap",
    }
)  # fmt: skip
#: Words before a number that the verb lexicon lacks but that introduce a value ("turns 34").
_VALUE_WORDS = frozenset(
    {
        "turn", "turns", "hit", "hits", "reach", "reaches", "equal", "equals", "only", "nearly", "almost",
        "about", "around", "roughly", "approximately", "approx", "exactly", "circa", "some", "least",
        "most", "than", "over", "under", "above", "below", "max", "maximum", "min", "minimum",
        "upwards", "between", "top", "times", "x", "plus", "minus", "another", "extra",
    }
)  # fmt: skip


#: Words that make the base form after them a verb, not a noun.
_VERB_LEFT = PRONOUNS | MODALS | DO | frozenset({"to", "not", "never", "and", "or"})


def is_label(text: str, tokens: tuple[Token, ...], mention: QuantityMention) -> bool:
    """The quantity at ``mention`` is an identifier (see module docstring), not an amount."""
    q = mention.value
    if q.dim != "bare" or q.exact is None or mention.stop - mention.first != 1:
        return False
    tok = tokens[mention.first]
    if tok.kind != "num":
        return False
    k = tok.start - 1
    while k >= 0 and text[k] == " ":
        k -= 1
    if k >= 0 and text[k] == "#":
        return True
    if mention.first == 0:
        return False
    prev = tokens[mention.first - 1]
    if text[prev.end : tok.start].strip():
        return False  # punctuation between the word and the number: "Alice, 34"
    before = tokens[mention.first - 2] if mention.first >= 2 else None
    return prev.low in NUMBERING_WORDS or label_noun(prev, before)


def label_noun(tok: Token, before: Token | None = None) -> bool:
    """A word that can name a kind of thing whose members are told apart by number.

    A verb's base form is also a noun ("CI run 5531", "deployed build 1234", "support call
    5521") unless what precedes it makes it a verb ("we need 3", "to run 5"); an -ing form is
    one after a preposition or determiner ("in building 4"), not after a verb ("is using 4").
    """
    low = tok.low
    if tok.kind != "word" or not low.replace("-", "").isalpha():
        return False
    if low in VERB_FORMS and not _noun_use(low, before):
        return False
    if is_structural(low) or low in FILLERS or low in HEDGES or low in NEGATIONS:
        return False
    if low in NUMBER_WORDS or low in MULTIPLIERS or low in MEASURE_NOUNS or low in _VALUE_WORDS:
        return False
    return not low.endswith(("ed", "ly"))  # "scored 98", "rated 4", "nearly 500"


def _noun_use(low: str, before: Token | None) -> bool:
    """A verb form used as a noun, judged by the word before it."""
    if before is None:
        return False
    if low.endswith("ing"):
        return before.low in PREPOSITIONS or before.low in DETERMINERS
    return low in VERB_BASE_FORMS and before.low not in _VERB_LEFT


__all__ = ["MEASURE_NOUNS", "NUMBERING_WORDS", "is_label", "label_noun"]
