"""The readers under the rules: tokens keep offsets, quantities and dates parse as intended."""

from __future__ import annotations

import pytest

from reverie.conflict import baseline_negation
from reverie.conflict.dates import DateValue, find_dates
from reverie.conflict.numeric import disagree, parse_value
from reverie.conflict.text import tokenize


@pytest.mark.parametrize("text", ["İstanbul isn't far.", "Lucía's café can't open", "ﬁne ǅ words ß"])
def test_token_offsets_survive_case_folding(text: str) -> None:
    for tok in tokenize(text):
        assert text[tok.start : tok.end] == tok.text


def test_negative_contractions_become_their_own_token() -> None:
    assert [t.low for t in tokenize("Bob isn't here and can't stay")] == [
        "bob", "is", "not", "here", "and", "can", "not", "stay",
    ]  # fmt: skip


def test_phone_numbers_are_one_token_not_a_range() -> None:
    assert [t.text for t in tokenize("call 555-1234")] == ["call", "555-1234"]


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("1 h", "60 min", False),
        ("1 h", "90 min", True),
        ("1 GB", "1024 MB", False),
        ("5 km", "5 mi", True),
        ("39 °F", "4 °C", False),
        ("$80-100", "$90", False),
        ("$80-100", "$150", True),
        ("1,000", "1000", False),
        ("10k", "10,000", False),
        ("3.10", "3.1", True),  # versions compare as written
    ],
)
def test_quantities_compare_as_intervals_in_base_units(a: str, b: str, differ: bool) -> None:
    qa, qb = parse_value(a), parse_value(b)
    assert qa is not None and qb is not None
    assert disagree(qa, qb) is differ


def test_words_that_are_not_quantities_do_not_parse() -> None:
    assert parse_value("the old one") is None
    assert parse_value("Paris") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on May 3, 2025", DateValue(year=2025, month=5, day=3)),
        ("the 15th of March", DateValue(month=3, day=15)),
        ("at 3:30 pm on Thursday", DateValue(minute=15 * 60 + 30, weekdays=frozenset({3}))),
        ("in Q3", DateValue(quarter=3)),
        ("since 2019", DateValue(year=2019)),
    ],
)
def test_dates_parse_into_partial_values(text: str, expected: DateValue) -> None:
    found = find_dates(tokenize(text))
    assert len(found) == 1
    assert found[0].value == expected


def test_may_the_modal_is_not_a_month() -> None:
    assert find_dates(tokenize("she may come")) == []


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("Bob drinks coffee.", "Bob doesn't drink coffee.", True),
        ("Bob drinks coffee.", "Bob drinks coffee.", False),
        ("The flag is enabled.", "The flag is disabled.", False),  # the baseline knows no antonyms
        ("Bob is not here.", "Carol said the weather in Lisbon was lovely.", False),
    ],
)
def test_baseline_flags_only_lexical_negation(a: str, b: str, expected: bool) -> None:
    assert baseline_negation(a, b) is expected
