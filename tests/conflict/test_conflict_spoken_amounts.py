"""Amounts and clock times said in words: "half a kilo", "an hour and a half", "a quarter to ten
in the evening". Regression: these parsed as plain words, so "200 g" / "half a kilo" of one thing
could not be compared, and "21:45" / "a quarter to ten in the evening" was neither equal nor in
conflict (a second reader was then asked, and could call a restatement a contradiction)."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.dates import DateValue, find_dates, time_in_conflict
from reverie.conflict.numeric import disagree, parse_value
from reverie.conflict.second import compatible_reason
from reverie.conflict.text import tokenize


@pytest.mark.parametrize(
    ("spoken", "written"),
    [
        ("half a kilo", "500 g"),
        ("half an hour", "30 minutes"),
        ("an hour and a half", "90 minutes"),
        ("one and a half hours", "90 min"),
        ("two and a half years", "30 months"),
        ("3 and a half km", "3500 metres"),
        ("a kilo", "1000 g"),
        ("a litre", "1000 ml"),
        ("a mile", "1.609 km"),
        ("half a dozen eggs", "6 eggs"),
    ],
)
def test_spoken_amounts_equal_their_written_form(spoken: str, written: str) -> None:
    qa, qb = parse_value(spoken), parse_value(written)
    assert qa is not None, spoken
    assert qb is not None, written
    assert not disagree(qa, qb)


@pytest.mark.parametrize(("spoken", "other"), [("half a kilo", "200 g"), ("an hour and a half", "2 hours")])
def test_spoken_amounts_still_differ_from_other_amounts(spoken: str, other: str) -> None:
    qa, qb = parse_value(spoken), parse_value(other)
    assert qa is not None and qb is not None
    assert disagree(qa, qb)


@pytest.mark.parametrize("text", ["half the team", "a half-hearted attempt", "a second opinion", "half of it"])
def test_half_and_a_without_a_unit_are_not_amounts(text: str) -> None:
    assert parse_value(text) is None


def test_a_recipe_amount_said_two_ways() -> None:
    same = (Claim("The recipe needs 500 g of flour."), Claim("The recipe needs half a kilo of flour."))
    assert detect(*same) is None
    assert compatible_reason(*same) == "equal quantities"
    other = detect(Claim("The recipe needs 200 g of flour."), Claim("The recipe needs half a kilo of flour."))
    assert other is not None and other.axis == "numeric"


def _time(text: str) -> DateValue:
    found = find_dates(tokenize(text))
    assert len(found) == 1, (text, found)
    return found[0].value


@pytest.mark.parametrize(
    ("spoken", "minute"),
    [
        ("at a quarter to ten in the evening", 21 * 60 + 45),
        ("at quarter past nine in the morning", 9 * 60 + 15),
        ("at half past six pm", 18 * 60 + 30),
        ("at ten past three in the afternoon", 15 * 60 + 10),
        ("at twenty to five am", 4 * 60 + 40),
        ("at seven o'clock in the evening", 19 * 60),
        ("at eleven at night", 23 * 60),
        ("at half past twelve at night", 30),
    ],
)
def test_spoken_clock_times_with_a_part_of_day(spoken: str, minute: int) -> None:
    value = _time(spoken)
    assert value.minute == minute
    assert not value.twelve_hour


def test_a_spoken_time_without_a_part_of_day_is_on_a_twelve_hour_clock() -> None:
    value = _time("at half past six")
    assert value.twelve_hour and value.minute == 6 * 60 + 30
    assert not time_in_conflict(value, _time("at 18:30"))
    assert not time_in_conflict(value, _time("at 6:30 am"))
    assert time_in_conflict(value, _time("at 19:00"))


@pytest.mark.parametrize("text", ["half past the church", "a quarter of the budget", "the second quarter to date"])
def test_half_and_quarter_elsewhere_are_not_times(text: str) -> None:
    assert all(d.value.minute is None for d in find_dates(tokenize(text)))


def test_a_departure_time_said_two_ways() -> None:
    same = (Claim("The flight departs at 21:45."), Claim("The flight departs at a quarter to ten in the evening."))
    assert detect(*same) is None
    assert compatible_reason(*same) == "equal dates"
    later = Claim("The flight departs at half past eight in the evening.")
    moved = detect(Claim("The flight departs at 21:45."), later)
    assert moved is not None and moved.axis == "temporal"


@pytest.mark.parametrize(
    "text", ["Mei sleeps 7 to 8 hours a night.", "ten to twelve people came", "five to six hours a day", "7 past"]
)
def test_ranges_with_to_are_not_clock_times(text: str) -> None:
    assert all(d.value.minute is None for d in find_dates(tokenize(text)))


def test_twenty_to_five_before_a_connector_is_a_time() -> None:
    assert _time("at twenty to five on Friday").minute == 4 * 60 + 40


@pytest.mark.parametrize(
    ("text", "era"),
    [
        ("born in the early 1940s", (1940, 1944)),
        ("in the late 2000s", (2005, 2099)),  # a decade or a century: both kept
        ("in the mid-1980s", (1983, 1987)),
        ("in the 1990s", (1990, 1999)),
        ("in the early 1900s", (1900, 1949)),
    ],
)
def test_early_mid_late_decades_are_parts_of_the_decade(text: str, era: tuple[int, int]) -> None:
    found = find_dates(tokenize(text))
    assert [d.value.era for d in found] == [era]


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("Dalia's grandfather was born in the early 1940s.", "Dalia's grandfather was born in 1941.", False),
        ("Hanna was diagnosed in the late 2000s.", "Hanna was diagnosed in 2009.", False),
        ("Hanna was diagnosed in the late 2000s.", "Hanna was diagnosed in 2001.", True),
    ],
)
def test_a_year_inside_the_named_part_of_a_decade_is_a_refinement(a: str, b: str, conflict: bool) -> None:
    assert (detect(Claim(a), Claim(b)) is not None) is conflict


@pytest.mark.parametrize(
    "again",
    [
        "Amani visited her grandmother again in August.",
        "Amani also visited her grandmother in August.",
        "Amani visited her grandmother once more in August.",
        "Amani visited her grandmother in August too.",
    ],
)
def test_a_claim_that_says_again_adds_an_occasion(again: str) -> None:
    first = Claim("Amani visited her grandmother in May.")
    assert detect(first, Claim(again)) is None
    assert compatible_reason(first, Claim(again)) == "one more occasion"


def test_without_again_one_visit_on_two_dates_still_conflicts() -> None:
    found = detect(Claim("The contract was signed in May 2021."), Claim("The contract was signed in August 2021."))
    assert found is not None and found.axis == "temporal"


@pytest.mark.parametrize(
    "text", ["The pod can use 2048 MiB of memory.", "The drive holds 2000 GB.", "It is 1500 km away."]
)
def test_a_four_digit_amount_with_a_unit_is_not_a_year(text: str) -> None:
    assert find_dates(tokenize(text)) == []


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("600 MW", "0.6 GW", False),
        ("600 MW", "1.8 gigawatts", True),
        ("3.2 GHz", "3200 MHz", False),
        ("120 km/h", "75 mph", False),
        ("120 km/h", "60 mph", True),
        ("100 kph", "100 km/h", False),
        ("65 square metres", "65 m²", False),
        ("65 square metres", "9 square metres", True),
        ("700 sq ft", "65 m2", False),
        ("2 hectares", "20,000 m²", False),
        ("1 acre", "2 hectares", True),
        ("12 kWh", "12,000 Wh", False),
    ],
)
def test_power_frequency_speed_area_and_energy_convert(a: str, b: str, differ: bool) -> None:
    qa, qb = parse_value(a), parse_value(b)
    assert qa is not None, a
    assert qb is not None, b
    assert disagree(qa, qb) is differ


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("on 6 to 8 May", 6, 8),
        ("on May 6-8", 6, 8),
        ("on 6–8 May 2025", 6, 8),
        ("from the 6th through the 8th of May", None, None),  # "the 8th" is a lone day: not read as a span
        ("on 8 May", 8, None),
    ],
)
def test_a_span_of_days(text: str, first: int | None, last: int | None) -> None:
    spans = [(d.value.day, d.value.day_to) for d in find_dates(tokenize(text)) if d.value.month == 5]
    if first is None:
        assert all(to is None for _, to in spans)
    else:
        assert spans == [(first, last)]


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("The Lisbon offsite is on 6 to 8 May.", "The Lisbon offsite is on 20 to 22 May.", True),
        ("The Lisbon offsite is on 6 to 8 May.", "The Lisbon offsite is on 7 May.", False),
        ("The Lisbon offsite is on May 6-8.", "The Lisbon offsite is on 8 to 10 May.", False),
        ("The Lisbon offsite is on 6 to 8 May.", "The Lisbon offsite is on 9 May.", True),
    ],
)
def test_spans_of_days_conflict_only_when_they_share_no_day(a: str, b: str, conflict: bool) -> None:
    found = detect(Claim(a), Claim(b))
    assert (found is not None) is conflict
    if found is not None:
        assert found.axis == "temporal"
