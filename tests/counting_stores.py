"""Real stores that count what their reads return: for tests that a read does not grow with
unrelated rows (edge reads per claim, item rows per query). Subclassed only to count; every
read still goes to the real SQLite file or the reference store."""

from __future__ import annotations

from typing import Any

from reverie.model.item import Edge
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore


class Counting:
    """Counts the edge rows every edge read returns (``rows``) and the items queries return."""

    rows = 0
    item_rows = 0

    def query(self, scope: str, where: Any, sort: Any, **kw: Any) -> list[Any]:
        found: list[Any] = super().query(scope, where, sort, **kw)  # type: ignore[misc]
        self.item_rows += len(found)
        return found

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        found: list[Edge] = super().edges(scope, item_id, include_closed=include_closed)  # type: ignore[misc]
        self.rows += len(found)
        return found

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        found: list[Edge] = super().edges_by_type(scope, type, include_closed=include_closed)  # type: ignore[misc]
        self.rows += len(found)
        return found


class CountingSQLite(Counting, SQLiteStore):
    pass


class CountingReference(Counting, ReferenceStore):
    pass
