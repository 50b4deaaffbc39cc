"""An amount said as a rate in one claim and with a period adjective in the other; a count said
as a bare number after "count" / "number of" in one claim and with its noun in the other.

What must hold: "the monthly rent is 900 euros" and "1,200 euros a month" disagree; "the replica
count is 3" and "runs 5 replicas" disagree. Look-alikes stay silent: equal amounts, a total
against a rate with no period adjective, a count of another thing, another numbered label.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The monthly rent for the studio is 900 euros.", "The studio rents for 1,200 euros a month."),
        ("The weekly grocery budget is 150 dollars.", "Groceries get a budget of 90 dollars a week."),
        ("The replica count of the cache is 3.", "The cache runs 5 replicas."),
        ("The number of replicas of the cache is 3.", "The cache has 5 replicas."),
        ("The number of guests at the dinner is 12.", "The dinner has 20 guests."),
    ],
)
def test_rate_or_count_said_two_ways_conflicts(a: str, b: str) -> None:
    for first, second in ((a, b), (b, a)):
        found = detect(Claim(text=first), Claim(text=second))
        assert found is not None and found.axis == "numeric", (first, second, found)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The monthly rent for the studio is 900 euros.", "The studio rents for 900 euros a month."),
        ("The studio rents for 1,200 euros a month.", "The studio's deposit is 2,400 euros."),
        ("The replica count of the cache is 3.", "The cache has 3 replicas."),
        ("The replica count of the cache is 3.", "The cache runs on 5 nodes."),
        ("The number of guests at the dinner is 12.", "The dinner has 20 chairs."),
        ("The account number of the cache is 3.", "The cache has 5 replicas."),
    ],
)
def test_look_alikes_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(text=a), Claim(text=b)) is None
    assert detect(Claim(text=b), Claim(text=a)) is None
