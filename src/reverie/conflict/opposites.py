"""Adjectives that are direct opposites, from WordNet: the hand-written antonym classes' long tail.

Why: ``lexicon.ANTONYMS`` names the opposites that carry most claims ("enabled" / "disabled",
"open" / "closed") and gives them a topic; claims written by other people use many more
("deep" / "shallow", "urban" / "rural", "male" / "female"). WordNet 3.0 records ~800 such
pairs between single-word adjectives (``data/antonyms.tsv``, built by
``scripts/build_antonyms.py``). They are read only where two otherwise aligned claims differ in
exactly one word outside the subject, so a pair of opposite words in *different* positions or
in the subject ("the left door" / "the right door") never makes a conflict.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def _pairs() -> frozenset[frozenset[str]]:
    text = resources.files("reverie.conflict").joinpath("data/antonyms.tsv").read_text(encoding="utf-8")
    return frozenset(frozenset(line.split("\t")) for line in text.splitlines() if line and not line.startswith("#"))


def opposite_adjectives(first: str, second: str) -> bool:
    """True when WordNet records the two (lower-case) words as direct adjective antonyms."""
    return first != second and frozenset((first, second)) in _pairs()
