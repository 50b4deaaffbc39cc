"""Frames for the similarity join, and the disagreement guard.

A claim splits into a *frame* (its content words) and its *settings* (negations, toggle words
such as on/off, numbers), which the frame leaves out. Near-duplicates are found on frames, so
"the flag is on" and "the flag is off" meet as candidates; ``disagreement`` then asks
``reverie.conflict.detect`` (polarity, numbers with units, entities, dates, keys, validity —
each with a reason), and a pair that disagrees becomes a contradiction candidate instead of
being merged.
"""

from __future__ import annotations

import re

from reverie.conflict import Claim, detect
from reverie.model.item import Item
from reverie.model.values import value_text

_CONTRACTIONS = (
    ("won't", "will not"),
    ("can't", "can not"),
    ("cannot", "can not"),
    ("shan't", "shall not"),
    ("n't", " not"),
)
# Words keep inner dots, commas and hyphens ("us-east-1", "2.5", "1,000"); a token is a
# number only when it is all digits (with separators), so "a320" stays a frame word.
_TOKEN = re.compile(r"\w+(?:[.,-]\w+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_DIGIT = re.compile(r"\d")

NEGATORS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without"})
#: Words that carry a claim's state rather than its subject ("the flag is on" / "off"): left
#: out of frames so both sides of a toggle meet as candidates and reach the detector.
_TOGGLE_WORDS = (
    "on off true false yes enabled disabled enable disable allowed forbidden denied open closed active inactive "
    "up down present absent valid invalid passed failed pass fail like dislike likes dislikes always accepted "
    "rejected approved include exclude included excluded before after more less increase decrease increased "
    "decreased higher lower start stop started stopped"
)
TOGGLES = frozenset(_TOGGLE_WORDS.split())
_STOP = (
    "a an the is are was were be been being am of to in at by for with from as and or but it its this that "
    "these those there here i me my we our you your he him his she her they them their do does did has have had "
    "will would shall should can could may might must so than then also just s t d ll re ve m"
)
STOP_WORDS = frozenset(_STOP.split())
_NOT_FRAME = STOP_WORDS | NEGATORS | TOGGLES


def frame(text: str) -> frozenset[str]:
    """The content words of ``text``: case-folded, contractions expanded, without stop words,
    negators, toggle words and plain numbers.

    Set operations rather than a per-word loop, and no cache: a pass computes every item's
    frame once, so a cache would only churn.
    """
    low = text.casefold()
    if "'" in low or "’" in low or "cannot" in low:
        low = low.replace("’", "'")
        for short, full in _CONTRACTIONS:
            low = low.replace(short, full)
    words = set(_TOKEN.findall(low)) - _NOT_FRAME
    if _DIGIT.search(low):
        words -= {w for w in words if w[0].isdigit() and _NUMBER.fullmatch(w)}
    return frozenset(words)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


#: Appended to a gist's text. A gist used to quote its representative verbatim, so two current
#: items said the same thing (two identical rows on the review page, #13.3); the mark makes the
#: gist its own claim — "this was recorded repeatedly" — while ``statement`` hands the detector
#: the quoted claim alone, so the mark never becomes part of an entity or a value.
GIST_MARK = " (consolidated)"


def gist_text(text: str, max_chars: int) -> str:
    """A gist's text: the representative's words, cut to fit, then the mark."""
    return text[: max(0, max_chars - len(GIST_MARK))].rstrip() + GIST_MARK


def statement(item: Item) -> str:
    """What ``item`` claims, for the contradiction rules: a gist without its mark."""
    text = item.text
    if item.meta.get("dream") == "gist" and text.endswith(GIST_MARK):
        return text[: -len(GIST_MARK)]
    return text


def disagreement(a: Item, b: Item) -> str | None:
    """Why two near-duplicate items must not be merged (``axis: reason``), or None."""
    found = detect(_claim(a), _claim(b))
    return None if found is None else f"{found.axis}: {found.reason}"


def _claim(item: Item) -> Claim:
    value = None if item.value is None else value_text(item.value)  # the rules read text (``model.values``)
    return Claim(statement(item), key=item.key, value=value, valid_from=item.valid_from, valid_to=item.valid_to)


__all__ = ["GIST_MARK", "disagreement", "frame", "gist_text", "jaccard", "statement"]
