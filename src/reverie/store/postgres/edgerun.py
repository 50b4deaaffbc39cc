"""The open edges of the items a read just fetched, read in one statement instead of one per item.

Why: recall flags contradictions by asking ``edges(scope, id)`` for each of its ``k`` hits, one
statement each (10 of a recall's 20 statements on PostgreSQL), right after ``get_many`` read
those hits' rows. Here the first such ``edges`` call reads the open edges of every item the
preceding ``get_many`` calls asked for, in one statement, and the calls after it are answered
from that answer.

How long an answer is used: for a *run* of calls, ``get_many`` and ``edges`` only, outside any
transaction. Every other store call (any other read, any transaction, so any write of this store)
ends the run, and a ``get_many`` inside it makes the next ``edges`` read again. So within a
recall the edges of its hits are those of one moment, its first ``edges`` call, which is what
the per-hit reads would have given had they run that moment (the store's reads are READ
COMMITTED statements with no common snapshot: a write of another process committing between
two of them was already seen by one and not by the other).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from reverie.model.item import Edge
from reverie.store.postgres.projections import _EDGE_COLUMNS
from reverie.store.sqlite.sql import row_to_edge

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

_OPEN_EDGES = (
    f"SELECT {_EDGE_COLUMNS} FROM edges WHERE scope = %s AND (src = ANY (%s) OR dst = ANY (%s)) "  # nosec B608 # constant
    "AND closed_at IS NULL ORDER BY id"
)


class EdgeRun:
    """The items of the current run (one scope) and, once asked, their open edges by item."""

    def __init__(self) -> None:
        self.end()

    def end(self) -> None:
        """The run is over: nothing fetched is used again."""
        self._scope: str | None = None
        self._ids: set[str] = set()
        self._edges: dict[str, list[Edge]] | None = None

    def saw(self, scope: str, ids: Iterable[str]) -> None:
        """``get_many`` read ``ids``: their edges may be asked next (read afresh when they are)."""
        if scope != self._scope:
            self._scope, self._ids = scope, set()
        self._ids.update(ids)
        self._edges = None

    def covers(self, scope: str, item_id: str) -> bool:
        return scope == self._scope and item_id in self._ids

    def edges(self, q: Query, scope: str, item_id: str) -> list[Edge]:
        """``item_id``'s open edges ordered by id, as ``edges(scope, item_id)`` reads them."""
        if self._edges is None:
            ids = sorted(self._ids)
            by: dict[str, list[Edge]] = {}
            for row in q(_OPEN_EDGES, (scope, ids, ids)):  # ordered by id: so is each item's list
                edge = row_to_edge(row)
                by.setdefault(edge.src, []).append(edge)
                if edge.dst != edge.src:
                    by.setdefault(edge.dst, []).append(edge)
            self._edges = by
        return list(self._edges.get(item_id, ()))
