"""Order-sensitive relations: "A before B", "A is older than B", "prefers A over B".

Swapping the two sides of such a relation flips its meaning, which word alignment cannot see:
"the design review happens before the planning" and "the planning happens before the design
review" share every word. So this rule finds the pivot word ("before", "than", "over"), splits
each claim around it, and checks whether the two sides traded places. Traded places with the
same pivot is a contradiction; traded places with the opposite pivot ("A before B" / "B after
A") is the same fact said backwards, and settles the pair as compatible.
"""

from __future__ import annotations

from dataclasses import dataclass

from reverie.conflict.core import Axis
from reverie.conflict.frame import Analysis, Unit


@dataclass(frozen=True)
class Swap:
    """Two claims whose sides trade places around a pivot."""

    contradicts: bool
    axis: Axis
    pivot_a: Unit
    pivot_b: Unit
    moved_a: tuple[Unit, ...]
    moved_b: tuple[Unit, ...]


def find_swap(a: Analysis, b: Analysis) -> Swap | None:
    """The swap between ``a`` and ``b`` around a shared pivot, if their sides traded places."""
    if a.negations or b.negations:
        return None
    pa, pb = _pivot(a), _pivot(b)
    if pa is None or pb is None or _pivot_kind(a, pa) != _pivot_kind(b, pb):
        return None
    ia, ib = a.units.index(pa), b.units.index(pb)
    left_a, right_a = _trim(a.units[:ia], b.units[:ib]), _trim(a.units[ia + 1 :], b.units[ib + 1 :])
    x, y = left_a
    ra, rb = right_a
    if not x or [u.key for u in x] != [u.key for u in rb] or [u.key for u in ra] != [u.key for u in y]:
        return None
    if [u.key for u in x] == [u.key for u in y]:
        return None
    kind = _pivot_kind(a, pa)
    same_side = _side(a, pa, kind) == _side(b, pb, kind)
    axis: Axis = "temporal" if kind == "order" else "polarity"
    return Swap(same_side, axis, pa, pb, x, y)


def _pivot(side: Analysis) -> Unit | None:
    found = [u for u in side.units if _pivot_kind(side, u)]
    return found[0] if len(found) == 1 else None


def _pivot_kind(side: Analysis, unit: Unit) -> str:
    if unit.kind == "class" and unit.axis == "temporal":
        return "order"
    if unit.low == "than":
        return "than"
    if unit.low == "over" and any(u.low.startswith("prefer") for u in side.units):
        return "over"
    return ""


def _side(side: Analysis, pivot: Unit, kind: str) -> int:
    """Which way the relation points: the pivot's own side, or the comparative's before it."""
    if kind == "order":
        return pivot.side
    before = side.units[: side.units.index(pivot)]
    return sum(u.side for u in before if u.kind == "class") % 2


def _trim(xs: tuple[Unit, ...], ys: tuple[Unit, ...]) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """Drop the common prefix and suffix (by key) of two unit runs."""
    i = 0
    while i < min(len(xs), len(ys)) and xs[i].key == ys[i].key:
        i += 1
    xs, ys = xs[i:], ys[i:]
    j = 0
    while j < min(len(xs), len(ys)) and xs[-1 - j].key == ys[-1 - j].key:
        j += 1
    return xs[: len(xs) - j], ys[: len(ys) - j]
