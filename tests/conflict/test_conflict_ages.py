"""An age said in other words: "is six years old", "turned two this spring", "aged 40".

What must hold: two ages of one holder, said with any of these, disagree when the numbers
differ; "turned N" without a date is the age held now. Look-alikes stay silent: a birthday in
a dated past year, another holder's age, the same age, a turn that is not an age.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tove's dog Brisk is nine years old.", "Tove's dog Brisk turned four this summer."),
        ("Anselm is 52 years old.", "Anselm turned 47 this year."),
        ("Ruth is aged 63.", "Ruth turns 70 this month."),
    ],
)
def test_two_ages_of_one_holder_conflict(a: str, b: str) -> None:
    for first, second in ((a, b), (b, a)):
        found = detect(Claim(text=first), Claim(text=second))
        assert found is not None and found.axis == "numeric", (first, second, found)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Anselm is 52 years old.", "Anselm turned 40 in 2014."),  # a dated birthday: an age then
        ("Anselm is 52 years old.", "Anselm's son turned 19 this year."),  # another holder
        ("Anselm is 52 years old.", "Anselm turned 52 last month."),  # the same age
        ("Tove's dog Brisk is nine years old.", "Tove's dog Brisk turned nine this summer."),
        ("The trail turns 90 degrees at the ridge.", "The trail is 12 years old."),  # not an age
    ],
)
def test_ages_that_can_both_hold_stay_silent(a: str, b: str) -> None:
    for first, second in ((a, b), (b, a)):
        assert detect(Claim(text=first), Claim(text=second)) is None, (first, second)
