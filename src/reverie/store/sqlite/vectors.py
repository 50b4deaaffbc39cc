"""An in-process cache of each scope's vector matrix, kept in step with the file.

Loading 100k vectors from SQLite costs ~0.3 s, a query over them ~10 ms: reloading per recall
would dominate. The cache checks two per-scope counters that every write bumps in the same
transaction (``vec_appends``, ``vec_removals``): appends are fetched incrementally, any
removal reloads the scope. Other processes' writes bump the same counters, so the cache is
never stale across processes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np


@dataclass
class _Entry:
    embedder: str
    appends: int
    removals: int
    max_n: int
    ids: list[str]
    matrix: np.ndarray


class VectorCache:
    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    def clear(self) -> None:
        self._entries.clear()

    def get(
        self, c: sqlite3.Connection, scope: str, table: str, dim: int, embedder: str = ""
    ) -> tuple[list[str], np.ndarray]:
        """The scope's ids and matrix; ``embedder`` (the recorded one) is part of the key, so a label
        changed by another process reloads the matrix instead of serving the old model's rows."""
        if table != "vectors":  # history is read rarely (as_of / include_history): never cached
            return _load(c, scope, table, dim, after=0)[:2]
        row = c.execute("SELECT vec_appends, vec_removals FROM scope_state WHERE scope = ?", (scope,)).fetchone()
        appends, removals = (row[0], row[1]) if row else (0, 0)
        entry = self._entries.get(scope)
        stale = entry is None or entry.embedder != embedder or entry.removals != removals
        if entry is None or stale or entry.matrix.shape[1:] != (dim,):
            ids, mat, max_n = _load(c, scope, table, dim, after=0)
            entry = _Entry(embedder, appends, removals, max_n, ids, mat)
            self._entries[scope] = entry
        elif entry.appends != appends:
            ids, mat, max_n = _load(c, scope, table, dim, after=entry.max_n)
            entry.ids = entry.ids + ids
            entry.matrix = np.concatenate([entry.matrix, mat]) if ids else entry.matrix
            entry.max_n = max(entry.max_n, max_n)
            entry.appends = appends
        return entry.ids, entry.matrix


def _load(c: sqlite3.Connection, scope: str, table: str, dim: int, after: int) -> tuple[list[str], np.ndarray, int]:
    rows = c.execute(
        f"SELECT v.n, i.id, v.vec FROM {table} v JOIN items i ON i.n = v.n WHERE v.scope = ? AND v.n > ? ORDER BY v.n",  # nosec B608 # table: vectors or vectors_history
        (scope, after),
    ).fetchall()
    if not rows:
        return [], np.zeros((0, dim), dtype=np.float32), after
    mat = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return [r[1] for r in rows], mat, int(rows[-1][0])
