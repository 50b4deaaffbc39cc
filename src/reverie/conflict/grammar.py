"""Closed-class grammar the frame reading consults: where a subject's head is, which extent a
length runs along, which verbs say an activity has ceased.

Kept apart from ``meaning`` so that module stays about judging pairs; everything here is a
pure function of one claim's lower-cased words (issue #16: structure, not vocabulary).
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.conflict.text import stem

# Words that only say *that* something is measured; the unit of the quantity says *what*.
MEASURE_STEMS = frozenset(
    stem(w) for w in ("long", "length", "span", "spans", "wide", "width", "deep", "depth", "high", "height",
                      "big", "size", "heavy", "measures", "measure", "amount", "total")
)  # fmt: skip

# The extent a length runs along. The unit says "a length"; these words say which one, so "300 m
# long" and "40 m high" are two attributes of one bridge, while "spans 1.2 km" and "400 m long"
# are one.
AXES = {
    **dict.fromkeys(("long", "length", "span", "spans", "spanning"), "length"),
    **dict.fromkeys(("wide", "width", "broad", "breadth"), "width"),
    **dict.fromkeys(("high", "height", "tall", "altitude"), "height"),
    **dict.fromkeys(("deep", "depth"), "depth"),
    **dict.fromkeys(("thick", "thickness"), "thickness"),
}


# Prepositions that end a subject's head noun phrase: "revenue | for the quarter".
_HEAD_BREAKS = frozenset({"of", "for", "in", "at", "on", "with", "from", "to", "by", "during", "per", "across"})


# Nouns that name a value rather than a thing: their holder is the noun after "of" / "for".
_VALUE_NOUNS = MEASURE_STEMS | frozenset(
    stem(w) for w in ("size", "number", "amount", "count", "maximum", "minimum", "limit", "level", "rate", "value")
)


def head_of(lows: list[str], in_subject: list[tuple[int, str]]) -> str | None:
    """The head of the subject: its last concept before the first preposition that follows a
    concept. "The car's engine" → engine, "Revenue for the quarter" → revenue, "The maximum heap
    size for the JVM" → heap (a measure word such as "size" is no concept). Grammar, not
    vocabulary: the head says *which* thing a value belongs to ("the launch" vs "the launch
    video"), whatever modifiers either side adds."""
    head: str | None = None
    prev = -1
    for i, concept in in_subject:
        gap = lows[prev + 1 : i]
        if head is not None and any(w in _HEAD_BREAKS for w in gap):
            before = gap[: next(k for k, w in enumerate(gap) if w in _HEAD_BREAKS)]
            if not any(stem(w) in _VALUE_NOUNS for w in before):
                break
            # "the maximum size of the database": a value noun's holder follows the preposition
        head, prev = concept, i
    return head


# Verbs of ceasing: "has stopped delivering" says "no longer delivers".
_CEASE = frozenset({"stopped", "quit", "ceased", "given", "gave"})


def ceased_at(lows: list[str]) -> frozenset[int]:
    """Where a claim says an activity has ceased: "has stopped X-ing", "have quit X", "has given
    up X". Read as a negation of X now (the perfect says the state holds now), so "the shop
    still delivers" and "the shop has stopped doing deliveries" disagree in polarity. A simple
    past ("stopped making bread in 2019") is an event on a timeline, not a present negation,
    so it is left alone. Aspect, not vocabulary: the verbs of ceasing are a closed class."""
    out: set[int] = set()
    for i, low in enumerate(lows):
        if low not in _CEASE or i == 0 or lows[i - 1] not in {"has", "have"}:
            continue
        if low == "given" and (i + 1 >= len(lows) or lows[i + 1] != "up"):
            continue
        out.update((i, i + 1) if low == "given" else (i,))
    return frozenset(out)


def stopped_in_past(lows: list[str]) -> frozenset[int]:
    """Where a claim tells in the simple past that an activity stopped: "stopped working night
    shifts", "quit smoking", "gave up riding". On a timeline that is one event, but against a
    claim that the activity *still* goes on it is a denial (see ``meaning``). Only before an
    activity ("-ing", or "gave up"): "the bus stopped at the gate" stops nothing."""
    out: set[int] = set()
    for i, low in enumerate(lows):
        if low not in _CEASE or low == "given" or (i > 0 and lows[i - 1] in {"has", "have", "had"}):
            continue
        nxt = lows[i + 1] if i + 1 < len(lows) else ""
        if low == "gave" and nxt == "up":
            out.update((i, i + 1))
        elif low != "gave" and nxt.endswith("ing") and len(nxt) > 4:
            out.add(i)
    return frozenset(out)


_PERFECT_ADVERBS = frozenset({"never", "ever", "always", "already", "not", "just", "also", "often", "once", "twice"})
_PARTICIPLES = frozenset({"run", "done", "seen", "flown", "gone", "won", "met", "had", "lived"})


def experience_in_perfect(lows: Sequence[str], past_forms: frozenset[str]) -> bool:
    """The present perfect of an experience ("has lived in Mumbai", "has never been to Japan"):
    several such can each be true. Not a state lasting to now ("has lived there since 2019", "has
    been down"), not "has to" or "has a". ``past_forms``: the lexicon's simple-past forms, which
    double as participles of regular verbs."""
    if "since" in lows or "for" in lows:
        return False
    for i, low in enumerate(lows):
        if low not in {"has", "have"}:
            continue
        j = i + 1
        while j < len(lows) and lows[j] in _PERFECT_ADVERBS:
            j += 1
        if j >= len(lows):
            return False
        word = lows[j]
        if word == "been":
            return j + 1 < len(lows) and lows[j + 1] == "to"
        return word.endswith(("ed", "en")) or word in past_forms or word in _PARTICIPLES
    return False
