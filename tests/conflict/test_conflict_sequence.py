"""Event order in other words (``sequence``): examples written for these tests."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.frame import analyse
from reverie.conflict.sequence import ordered_events, reversed_order


def test_before_and_after_give_the_same_order() -> None:
    before = ordered_events(analyse("Nils paid the deposit before he signed the lease."))
    after = ordered_events(analyse("Nils signed the lease after he paid the deposit."))
    assert before is not None and after is not None
    assert before[0] & after[0] and before[1] & after[1]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Nils paid the deposit before he signed the lease.",
            "Nils signed the lease a week before he paid the deposit.",
        ),
        ("The vote happened before the debate.", "The debate was held first, and the vote happened afterwards."),
    ],
)
def test_opposite_orders_of_the_same_events_conflict(a: str, b: str) -> None:
    assert reversed_order(analyse(a), analyse(b))
    found = detect(Claim(a), Claim(b))
    assert found is not None and found.axis == "temporal"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Nils paid the deposit before he signed the lease.", "Nils signed the lease after he paid the deposit."),
        ("Nils paid the deposit before he signed the lease.", "Nils bought a sofa before he painted the hall."),
        ("The vote happened after 9 pm.", "The debate happened before the vote."),  # a time, not an event
    ],
)
def test_same_order_or_other_events_do_not_conflict(a: str, b: str) -> None:
    assert not reversed_order(analyse(a), analyse(b))
    assert detect(Claim(a), Claim(b)) is None
