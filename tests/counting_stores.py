"""Real stores that count what their reads return: for tests that a read does not grow with
unrelated rows (edge reads per claim, item rows per query). Subclassed only to count; every
read still goes to the real SQLite file or the reference store.

``WriteBetweenReads``: a real store that lets another connection commit a write right after one
of its reads returns, for tests that a caller reading several times sees one commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reverie.model.item import Edge
from reverie.store.postgres import PostgresStore
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


class WriteBetweenReads:
    """Once, right after the read named ``write_after`` first returns, runs ``between``: a write
    committed through ANOTHER connection to the same database (another ``Memory`` on the file or
    server), as another process would between two of a caller's reads. The reads themselves go
    to the real store unchanged; only the moment of the other write is chosen."""

    write_after = ""
    between: Callable[[], object] | None = None

    def _returned(self, read: str) -> None:
        if read == self.write_after and self.between is not None:
            between, self.between = self.between, None
            between()

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        found: dict[str, dict[str, int]] = super().summary_counts(scope)  # type: ignore[misc]
        self._returned("summary_counts")
        return found

    def query(self, scope: str, where: Any, sort: Any, **kw: Any) -> list[Any]:
        found: list[Any] = super().query(scope, where, sort, **kw)  # type: ignore[misc]
        self._returned("query")
        return found

    def events(self, scope: str, **kw: Any) -> list[Any]:
        found: list[Any] = super().events(scope, **kw)  # type: ignore[misc]
        self._returned("events")
        return found


class InterleavedSQLite(WriteBetweenReads, SQLiteStore):
    pass


class InterleavedPostgres(WriteBetweenReads, PostgresStore):
    pass


def interleaved(url: str, *, read_only: bool = False) -> InterleavedSQLite | InterleavedPostgres:
    """The ``WriteBetweenReads`` store at ``url``: a SQLite file or a ``postgresql://`` database."""
    if url.startswith("postgresql://"):
        return InterleavedPostgres(url, read_only=read_only)
    return InterleavedSQLite(url, read_only=read_only)
