"""The two relations that must never loop: ``supersedes`` (versions) and ``derived_from`` (sources).

Why: a loop in either makes a claim its own predecessor or its own source. ``history()`` then
shows an unrelated claim as a version, and "a parent was retracted" can reach the claim that
retracted it (outside tester, finding 10: ``link(a, b, "supersedes")`` and ``link(b, a,
"supersedes")`` were both accepted). Revise, resolve and ``remember(parents=…)`` only ever point
a new or current claim at an older one; a manual ``link`` is the one way to close a loop, so
the reducer asks ``path`` before recording one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from reverie.model.item import Edge, Item

#: Edge types whose links must never form a loop (``src`` replaces / rests on ``dst``).
ACYCLIC_EDGES = ("supersedes", "derived_from")


def path(
    start: str,
    goal: str,
    edge_type: str,
    edges_of: Callable[[str], Iterable[Edge]],
    item: Callable[[str], Item | None],
) -> list[str] | None:
    """The ids from ``start`` to ``goal`` following current ``edge_type`` edges from src to dst
    (and, for ``derived_from``, each item's ``parents``), or None if ``goal`` is not reachable.
    It sees every claim of the scope (a loop through a hidden one is a loop): callers must not
    show the path to a principal.

    Breadth first, each item visited once: the path returned is a shortest one.
    """
    came_from: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for nxt in _next(node, edge_type, edges_of, item):
                if nxt in came_from:
                    continue
                came_from[nxt] = node
                if nxt == goal:
                    return _walk_back(came_from, goal)
                following.append(nxt)
        frontier = following
    return None


def _next(
    node: str, edge_type: str, edges_of: Callable[[str], Iterable[Edge]], item: Callable[[str], Item | None]
) -> list[str]:
    out = [e.dst for e in edges_of(node) if e.type == edge_type and e.src == node and e.is_current]
    if edge_type == "derived_from":
        found = item(node)
        out += list(found.parents) if found is not None else []
    return out


def _walk_back(came_from: dict[str, str | None], goal: str) -> list[str]:
    out: list[str] = []
    node: str | None = goal
    while node is not None:
        out.append(node)
        node = came_from[node]
    return out[::-1]


__all__ = ["ACYCLIC_EDGES", "path"]


def versions(start: str, edges_of: Callable[[str], Iterable[Edge]]) -> list[str]:
    """Ids of every version of the claim ``start`` belongs to: ``supersedes`` edges (open or
    closed, as ``edges_of`` gives them) followed both ways, ``start`` included, sorted.

    The one definition of "the same claim" across revisions: ``history`` lists these versions,
    an intent or task about any of them is about the claim, and the dream pass protects the
    current one for an open intent made about an older one.
    """
    seen = {start}
    frontier = [start]
    while frontier:
        current = frontier.pop()
        for e in edges_of(current):
            if e.type == "supersedes":
                for other in (e.src, e.dst):
                    if other not in seen:
                        seen.add(other)
                        frontier.append(other)
    return sorted(seen)
