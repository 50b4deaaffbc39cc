"""The SQLite store's search glue: the full-text (``lexical``) and dense (``vectors``,
``nearest``) legs recall runs, the embedder the vectors are recorded under, and the index
upkeep around them (``warm`` the ANN index, ``reindex`` every vector).

Why a layer of its own: recall's two legs and their indexes change together (an embedder
change, a reindex, an ANN build) and need nothing of the reads and writes of rows.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable

import numpy as np

from reverie.store.protocol import Embed
from reverie.store.sqlite import fts_union, lexical, reindex
from reverie.store.sqlite.ann import ScopeIndex
from reverie.store.sqlite.base import SQLiteBase, _storage_error


class SQLiteSearch(SQLiteBase):
    """``SQLiteBase`` plus lexical and dense search and the embedder they are recorded under."""

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        """Ranked by bm25 over ``scope``'s own statistics, whatever other scopes hold (``fts_scope``)."""
        with self._read() as c:
            # Current and closed rows are ranked as one collection, not table by table (``fts_union``).
            out = (
                lexical.search(c, "fts", match, scope, limit)
                if current_only
                else fts_union.search(c, match, scope, limit)
            )
        out.sort(key=lambda p: (-p[1], p[0]))
        return out[:limit]

    def nearest(self, scope: str, query: np.ndarray, *, limit: int) -> list[str] | None:
        """The current items of ``scope`` nearest ``query`` by the ANN index, best first; None when the
        scope is below ``AnnConfig.threshold`` (the caller then scans ``vectors`` exactly)."""
        embedder = self.embedder()
        if embedder is None:
            return None
        with self._read() as c:
            reindex.check_served(c, "vectors", scope, embedder[0])
            hits = self._ann.nearest(c, scope, query, limit, embedder)
        return None if hits is None else [item_id for item_id, _ in hits]

    def warm(self, scope: str) -> bool:
        """Bring ``scope``'s ANN index up to date and save its sidecar (``AnnManager.warm``).

        False when the scope is below ``AnnConfig.threshold`` or no embedder is set: nothing to
        warm. The slow build runs on a private read connection without the store lock (other
        calls and ``close()`` go on meanwhile); only installing and catching up take the lock.
        """
        self._check_open()
        if self.path != ":memory:":  # a second connection to ":memory:" would be another database
            prepared = self._prepare_ann(scope)
            if prepared is not None:
                with self._read():
                    self._ann.install(scope, prepared)
        embedder = self.embedder()
        if embedder is None:
            return False
        with self._read() as c:
            return self._ann.warm(c, scope, embedder)

    def _prepare_ann(self, scope: str) -> ScopeIndex | None:
        """Build (or load) the scope's index on a private read connection, off the store lock.

        One read transaction, so the embedder, counters and rows it sees agree (WAL: writers go
        on); ``warm`` then installs it under the lock and catches it up with what came since.
        """
        try:
            with contextlib.closing(sqlite3.connect(self.path, isolation_level=None, timeout=30.0)) as c:
                c.execute("BEGIN")
                try:
                    rows = dict(c.execute("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')"))
                    if "embedder" not in rows:
                        return None
                    return self._ann.prepare(c, scope, (rows["embedder"], int(rows["embedder_dim"])))
                finally:
                    c.execute("ROLLBACK")
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        name, dim = self.embedder() or ("", 0)
        with self._read() as c:
            if name:
                reindex.check_served(c, "vectors", scope, name)
            ids, mat = self._vectors.get(c, scope, "vectors", dim, name)
            if current_only:
                return ids, mat
            if name:
                reindex.check_served(c, "vectors_history", scope, name)
            hids, hmat = self._vectors.get(c, scope, "vectors_history", dim)
            return ids + hids, np.concatenate([mat, hmat]) if hids else mat

    def embedder(self) -> tuple[str, int] | None:
        with self._read() as c:
            rows = dict(c.execute("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')").fetchall())
        if "embedder" not in rows:
            return None
        return rows["embedder"], int(rows["embedder_dim"])

    def set_embedder(self, name: str, dim: int) -> None:
        with self._write() as c:
            c.execute("INSERT OR REPLACE INTO settings VALUES ('embedder', ?)", (name,))
            c.execute("INSERT OR REPLACE INTO settings VALUES ('embedder_dim', ?)", (str(dim),))

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int:
        """Recompute every stored vector with ``embed`` under the recorded embedder, built aside and
        swapped in with one transaction (``reindex.py``): never a mix, safe beside other writers."""
        self._check_open()
        done = reindex.run(self._read, self._write, embed, batch=batch, progress=progress)
        self._vectors.clear()
        self._ann.clear(drop_files=True)
        return done
