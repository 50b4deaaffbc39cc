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
