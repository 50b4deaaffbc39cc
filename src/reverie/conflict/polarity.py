"""Polarity: the same statement asserted and denied.

Each claim gets a parity: its negations ("not", "never", "no longer") plus the antonym words
on their class's negative side ("disabled", "dislikes"). Once alignment has shown the two
claims say the same thing word for word, an odd total means one asserts what the other
denies. Counting, rather than spotting one "not", is what keeps double negation right:
"is not disabled" and "is enabled" have parities 2 and 0, so they agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from reverie.conflict.align import Alignment
from reverie.conflict.frame import Analysis


@dataclass(frozen=True)
class Cues:
    """The words that set each claim's polarity, as (start, end) offsets and a label."""

    a: tuple[tuple[int, int], ...]
    b: tuple[tuple[int, int], ...]
    label: str  # "negation" | "antonym" | "prefix"


def parity(side: Analysis, axis: str) -> int:
    """Negations (for polarity) plus negative-side antonyms of ``axis``, mod 2."""
    count = len(side.negations) if axis == "polarity" else 0
    count += sum(u.side for u in side.units if u.kind == "class" and u.axis == axis)
    return count % 2


def flipped(a: Analysis, b: Analysis, al: Alignment, axis: str) -> bool:
    """True when the claims, aligned, have opposite polarity on ``axis``."""
    prefixes = len(al.prefixes) if axis == "polarity" else 0
    return (parity(a, axis) + parity(b, axis) + prefixes) % 2 == 1


def cues(a: Analysis, b: Analysis, al: Alignment, axis: str) -> Cues:
    """The words that make the difference, for spans and the reason."""
    flips = [(x, y) for x, y in al.flips if x.axis == axis]
    ca: list[tuple[int, int]] = []
    cb: list[tuple[int, int]] = []
    label = "antonym"
    if axis == "polarity":
        ca += [(t.start, t.end) for t in a.negations]
        cb += [(t.start, t.end) for t in b.negations]
        if a.negations or b.negations:
            label = "negation"
        for x, y in al.prefixes:
            ca.append((x.start, x.end))
            cb.append((y.start, y.end))
            label = "prefix" if label == "antonym" and not flips else label
    for x, y in flips:
        ca.append((x.start, x.end))
        cb.append((y.start, y.end))
    return Cues(tuple(sorted(set(ca))), tuple(sorted(set(cb))), label)


def describe(text: str, offsets: tuple[tuple[int, int], ...]) -> str:
    """ "'not'" or "'enabled'" or "no negation" for the reason sentence."""
    if not offsets:
        return "no negation"
    return " ".join(f"'{text[s:e]}'" for s, e in offsets)
