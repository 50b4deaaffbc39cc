"""A bare "m" before "long" / "high" / "deep" is metres. Regression: "2000 m long" was read as a
count of things called "m", so "2 km" / "2000 m" could not be compared (and an NLI reader took the
pair for a conflict)."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.second import compatible_reason


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("The trail is 2 km long.", "The trail is 2000 m long.", False),
        ("The trail is 2 km long.", "The trail is 800 m long.", True),
        ("The tower is 0.3 km high.", "The tower is 300 m high.", False),
        ("The well is 40 m deep.", "The well is 12 m deep.", True),
    ],
)
def test_metres_compare_with_other_lengths(a: str, b: str, conflict: bool) -> None:
    found = detect(Claim(a), Claim(b))
    assert (found is not None) is conflict
    if found is not None:
        assert found.axis == "numeric"
    else:
        assert compatible_reason(Claim(a), Claim(b)) == "equal quantities"


def test_a_bare_m_elsewhere_is_not_taken_for_metres() -> None:
    # "5 m users" is five million: still two counts of one thing, never a length.
    found = detect(Claim("The app has 5 m users."), Claim("The app has 7 m users."))
    assert found is not None and "length" not in found.reason
