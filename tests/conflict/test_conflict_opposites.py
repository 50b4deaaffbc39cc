"""Opposite adjectives from WordNet: "deep" / "shallow" is a flip, like "encrypted" / "unencrypted".

What must hold: one word against its WordNet opposite, in claims otherwise aligned, reads as a
polarity conflict; the same pair in the subject names two things (no conflict); the table ships
with the package, holds only single-word pairs and none the negative-prefix rule already reads.
"""

from __future__ import annotations

from importlib import resources

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.opposites import opposite_adjectives

_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir", "dis", "a")


@pytest.mark.parametrize(
    ("a", "b", "words"),
    [
        ("The lake is deep.", "The lake is shallow.", ("deep", "shallow")),
        ("The village is rural.", "The village is urban.", ("rural", "urban")),
        ("The deploy is manual.", "The deploy is automatic.", ("manual", "automatic")),
        # "active" belongs to a hand-written class; its opposite "extinct" belongs to none.
        ("The volcano is active.", "The volcano is extinct.", ("active", "extinct")),
    ],
)
def test_one_word_against_its_opposite_is_a_polarity_conflict(a: str, b: str, words: tuple[str, str]) -> None:
    found = detect(Claim(text=a), Claim(text=b))
    assert found is not None and found.axis == "polarity"
    assert all(w in found.reason for w in words)
    assert detect(Claim(text=b), Claim(text=a)) is not None  # the reading does not depend on the order


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The left door is open.", "The right door is open."),  # two doors
        ("The north wing is closed.", "The south wing is closed."),  # two wings
        ("Prices are high in summer.", "Prices are low in winter."),  # two seasons
        ("The lake is deep.", "The river is shallow."),  # two subjects
    ],
)
def test_opposites_that_name_two_things_are_no_conflict(a: str, b: str) -> None:
    assert detect(Claim(text=a), Claim(text=b)) is None


def test_the_table_is_single_words_without_prefix_pairs() -> None:
    text = resources.files("reverie.conflict").joinpath("data/antonyms.tsv").read_text(encoding="utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert len(rows) > 500
    for a, b in rows:
        assert a != b and " " not in a + b and a == a.lower() and b == b.lower()
        assert not any(long == p + short for short, long in ((a, b), (b, a)) for p in _PREFIXES)
    assert opposite_adjectives("shallow", "deep") and opposite_adjectives("deep", "shallow")
    assert not opposite_adjectives("deep", "deep") and not opposite_adjectives("deep", "blue")
