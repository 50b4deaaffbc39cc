"""Paraphrase classes keep general synonyms and drop words with a second ordinary meaning
(``conflict/paraphrase.py``). Every example was written for these tests."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.paraphrase import concept_of
from reverie.conflict.text import stem


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Lena's resting heart rate is 60 bpm", "Lena's resting pulse is 75 bpm"),
        ("Acme's revenue was 5 million euros in 2023", "Acme's turnover was 8 million euros in 2023"),
        ("The server has 500 GB of storage", "The server's disk is 2 TB"),
    ],
)
def test_general_synonyms_still_meet(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is not None


def test_income_is_not_revenue() -> None:
    # net income is what is left of revenue: both figures hold at once
    a, b = "Acme's revenue was 5 million euros in 2023", "Acme's income was 1 million euros in 2023"
    assert detect(Claim(a), Claim(b)) is None


@pytest.mark.parametrize("word", ["heart", "story", "drive", "summit", "mount", "baked", "announced"])
def test_words_with_another_ordinary_meaning_carry_no_class(word: str) -> None:
    assert concept_of(stem(word)) is None


def test_holds_is_a_capacity_and_held_in_is_a_place() -> None:
    assert concept_of(stem("holds")) == "@capacity"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ana wrote a poem", "Ana wrote a novel"),  # one author, many works
        ("Jo designed the logo", "Jo designed the website"),
        ("Ken is the chair of the board", "Ken is the head of the lab"),  # one person, many roles
        ("Sam goes to the gym", "Sam goes to the library"),  # habits: "goes to" holds many places
        ("The closest pharmacy is Boots", "The best pharmacy is Lloyds"),  # near is not best
    ],
)
def test_relations_that_hold_many_values_in_this_direction_do_not_conflict(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The statue is made of granite", "The statue is carved from limestone"),
        ("The parcel was sent to Oslo", "The parcel was shipped to Bergen"),
        ("The closest pharmacy is Boots", "The nearest pharmacy is Lloyds"),
        ("The report was written by Ana", "Tom wrote the report"),
    ],
)
def test_single_valued_relations_still_conflict(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is not None
