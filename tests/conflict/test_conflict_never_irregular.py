""" "Has never done X" against one occasion of X, when the verb is irregular or the occasion is
"last spring".

What must hold: "has never ridden a horse" / "rode a horse in Iceland last summer", "has never
seen the sea" / "saw the sea in 2019", "has never set foot in Peru" / "has been to Peru twice"
conflict on polarity: an irregular past ("rode", "saw", "swam", "flew") is the same verb as its
participle, and "last summer" names one occasion, not a restriction like "in summer". Look-alikes
stay silent: the occasion is of another thing, or the "never" is a habit in the present.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tove has never ridden a horse.", "Tove rode a horse in Iceland last summer."),
        ("Tove has never seen the sea.", "Tove saw the sea in 2019."),
        ("Tove has never swum in the ocean.", "Tove swam in the ocean last week."),
        ("Tove has never flown on a plane.", "Tove flew on a plane last spring."),
        ("Tove has been to Peru twice.", "Tove has never set foot in Peru."),
    ],
)
def test_never_against_one_occasion_conflicts(a: str, b: str) -> None:
    for first, second in ((a, b), (b, a)):
        found = detect(Claim(text=first), Claim(text=second))
        assert found is not None and found.axis == "polarity", (first, second, found)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tove has never swum in the ocean.", "Tove swam in the lake last week."),
        ("Tove has never seen the sea.", "Tove saw the mountains in 2019."),
        ("Tove has never set foot in Peru.", "Tove has been to Chile twice."),
        ("Tove never rides horses.", "Tove rode a horse last summer."),
    ],
)
def test_look_alikes_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(text=a), Claim(text=b)) is None
    assert detect(Claim(text=b), Claim(text=a)) is None
