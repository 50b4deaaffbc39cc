"""Look-alikes whose values differ but answer different questions about the attribute (see
``conflict/scope.py``), beside real conflicts of the same shape that must still fire. Each of the
four first cases was a false alarm a user would hit; every example was written for these tests."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect, scope
from reverie.conflict.frame import analyse


def _axis(a: str, b: str) -> str | None:
    found = detect(Claim(a), Claim(b))
    return None if found is None else found.axis


# ---- capacity vs present content ------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The tank holds 200 litres", "The tank currently holds 50 litres"),
        ("The stadium seats 40000 people", "The stadium currently seats 30000 people"),
        ("The lift carries 8 people", "The lift carries 3 people right now"),
        ("The bus holds 50 passengers", "The bus holds 20 passengers at the moment"),
        ("The tank's capacity is 300 litres", "The tank now holds 50 litres"),
    ],
)
def test_a_capacity_and_the_present_content_are_compatible(a: str, b: str) -> None:
    assert _axis(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The tank holds 200 litres", "The tank's capacity is 300 litres"),
        ("The tank holds 200 litres", "The tank holds 300 litres"),
        ("The hall holds 300 people", "The capacity of the hall is 500 people"),
        ("The tank currently holds 50 litres", "The tank now holds 80 litres"),
    ],
)
def test_two_capacities_or_two_present_contents_still_conflict(a: str, b: str) -> None:
    assert _axis(a, b) == "numeric"


def test_held_in_a_place_still_names_the_venue() -> None:
    assert _axis("The wedding will be held in Lisbon.", "The wedding venue is in Barcelona.") == "entity"


# ---- a restricted statement vs a plain one --------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The pool opens at 7 am on weekdays", "The pool opens at 9 am"),
        ("The shop opens at 9 am on Mondays", "The shop opens at 10 am"),
        ("The library closes at 8 pm on Fridays", "The library closes at 6 pm"),
        ("The pool opens at 7 am in summer", "The pool opens at 9 am"),
        ("The gym charges 30 euros on weekends", "The gym charges 20 euros"),
        ("Alice lives in Paris in summer", "Alice lives in Berlin"),  # a seasonal home
    ],
)
def test_a_restricted_schedule_is_not_contradicted_by_the_plain_one(a: str, b: str) -> None:
    assert _axis(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The pool opens at 7 am on weekdays", "The pool opens at 9 am on weekdays"),
        ("The library closes at 8 pm on Fridays", "The library closes at 6 pm on Fridays"),
        ("The pool opens at 7 am", "The pool opens at 9 am"),
    ],
)
def test_two_schedules_for_the_same_days_still_conflict(a: str, b: str) -> None:
    assert _axis(a, b) == "temporal"


def test_a_claim_for_every_day_is_not_a_plain_default() -> None:
    # "every day" / "daily" covers the weekdays too, so the restriction does not excuse the pair
    restricted = analyse("The pool opens at 7 am on weekdays")
    for plain in ("The pool opens at 9 am every day", "The pool opens at 9 am daily"):
        assert not scope.different_readings(restricted, analyse(plain))
    assert scope.different_readings(restricted, analyse("The pool opens at 9 am"))


def test_a_restricting_word_inside_a_quantity_measures_and_restricts_nothing() -> None:
    plain = analyse("The trip lasts 4 days")
    assert not scope.different_readings(analyse("The trip lasts 5 nights"), plain)
    assert scope.different_readings(analyse("The porter works nights"), analyse("The porter works days"))


# ---- a part of a list vs the total -----------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The hotel has 120 rooms and 40 suites", "The hotel has 160 rooms"),
        ("The fleet has 30 buses and 10 minibuses", "The fleet has 40 buses"),
        ("The farm has 40 cows, 20 calves and 5 bulls", "The farm has 65 cows"),
        ("The school has 300 pupils and 40 boarders", "The school has 340 pupils"),
    ],
)
def test_a_lone_count_equal_to_the_sum_of_a_list_is_its_total(a: str, b: str) -> None:
    assert _axis(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The hotel has 120 rooms and 40 suites", "The hotel has 150 rooms"),  # neither the part nor the total
        ("The farm has 40 cows and 20 sheep", "The farm has 30 cows"),
        ("The hotel has 120 rooms and 40 suites", "The hotel has 130 rooms and 40 suites"),
        ("The fleet has 30 buses and 10 trams", "The fleet has 35 buses"),
    ],
)
def test_a_count_that_is_neither_the_part_nor_the_total_still_conflicts(a: str, b: str) -> None:
    assert _axis(a, b) == "numeric"


# ---- founding one's own organisation vs an employer event ------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Jonas started at the firm in 2015", "Jonas started his own company in 2019"),
        ("Leo started at the company in 2018", "Leo started his own company in 2020"),
        ("Mia joined the agency in 2011", "Mia opened her own agency in 2016"),
        ("Sam began at the studio in 2009", "Sam started his own studio in 2013"),
    ],
)
def test_founding_ones_own_firm_is_not_the_employer_event(a: str, b: str) -> None:
    assert _axis(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Leo founded his company in 2018", "Leo started his own company in 2020"),
        ("Mia started her own business in 2012", "Mia started her own business in 2014"),
        ("Jonas started at the firm in 2015", "Jonas started at the firm in 2019"),
        # the employer is named too: the date is still the employer event's
        ("Jonas left the firm in 2015 to start his own company", "Jonas left the firm in 2017"),
    ],
)
def test_two_foundings_or_two_employer_starts_still_conflict(a: str, b: str) -> None:
    assert _axis(a, b) == "temporal"
