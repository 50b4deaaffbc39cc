"""Pair checks the conflict-round tests share: a verdict must not depend on which claim came first."""

from __future__ import annotations

from reverie.conflict import Claim, Conflict, detect


def conflicts_both_ways(a: str, b: str, axis: str) -> Conflict:
    """Assert ``a`` and ``b`` conflict on ``axis`` in either order; return the first verdict."""
    found = detect(Claim(a), Claim(b))
    assert found is not None and found.axis == axis, (a, b, found)
    again = detect(Claim(b), Claim(a))
    assert again is not None and again.axis == axis, (b, a, again)
    return found


def silent_both_ways(a: str, b: str) -> None:
    """Assert ``a`` and ``b`` raise no conflict in either order."""
    assert detect(Claim(a), Claim(b)) is None, (a, b)
    assert detect(Claim(b), Claim(a)) is None, (b, a)
