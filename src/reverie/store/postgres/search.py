"""The PostgreSQL store's search glue: the full-text (``lexical``) and dense (``vectors``,
``nearest``) legs recall runs, the scope figures and vector matrices they cache, the embedder
the vectors are recorded under, and the index upkeep (``warm``, ``reindex``).

Dense search runs on the server above a size, exact in numpy below it: a scope with fewer than
``ann.ANN_THRESHOLD`` vectors is scanned exactly (the SQLite store's numbers, bit for bit);
above, once ``warm`` has built the scope's own HNSW index, pgvector answers ``nearest``.

Why a layer of its own: recall's two legs and their caches and indexes change together (an
embedder change, a reindex, an HNSW build) and need nothing of the reads and writes of rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from reverie.errors import EmbedderMismatchError
from reverie.store.postgres import ann, lexical, projections, scopestats
from reverie.store.postgres.base import _SCOPES, PostgresBase
from reverie.store.protocol import Embed


class PostgresSearch(PostgresBase):
    """``PostgresBase`` plus lexical and dense search, their caches and the embedder."""

    def _scope_key(self, scope: str) -> tuple[Any, ...]:
        """The scope's log position and the store's vector epoch and embedder: what the scope's cached
        figures and vectors are valid for. Read once per ``_read`` (a recall's dense leg asked three
        times). Why that is safe: a key read before the rows it tags can only be older than them,
        so a later read finds it moved and reads again; never newer rows under an older key."""
        if self._keys is not None and self._txn_scopes is None and scope in self._keys:
            return self._keys[scope]
        key = tuple(self.q(scopestats.KEY, (scope,))[0])
        if self._keys is not None and self._txn_scopes is None:
            self._keys[scope] = key
        return key

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        """bm25 over the scope's own statistics (``lexical.py``); with history, over current and closed
        rows as one collection (the two sets' statistics summed), so their scores compare."""
        with self._read([scope]):
            out = lexical.search(
                self.q, scope, match, limit, current=True if current_only else None, stats=self.scope_stats
            )
        out.sort(key=lambda p: (-p[1], p[0]))
        return out[:limit]

    def _check_served(self, scope: str, name: str, current: bool) -> None:
        st = self.scope_stats(scope, current)
        lo, hi, untagged = st.made_by_min, st.made_by_max, st.untagged
        if lo is None and not untagged:
            return
        if untagged or lo != name or hi != name:
            other = lo if lo != name else hi
            raise EmbedderMismatchError(
                f"scope {scope!r} holds vectors made by {other!r} but the store's embedder is {name!r}: a reindex "
                "did not finish; run `reverie reindex` (Memory.reindex()) to finish it"
            )

    def scope_stats(self, scope: str, current: bool) -> scopestats.Stats:
        """The scope's row, token and vector counts (``scopestats.py``: kept while its log stands)."""
        with self._read([scope]):
            return self._stats.get(
                self.q,
                scope,
                current,
                writing=self._writing,
                locked=scope in self._locked,
                key=lambda: self._scope_key(scope),
            )

    def _matrix(self, scope: str, current: bool, dim: int) -> tuple[list[str], np.ndarray]:
        state = "IS NULL" if current else "IS NOT NULL"
        cur = self._run(
            f"SELECT id, vec FROM items WHERE scope = %s AND vec IS NOT NULL AND closed_at {state} ORDER BY n",  # nosec B608 # constant
            (scope,),
            binary=True,
        )
        rows = cur.fetchall()
        if not rows:
            return [], np.zeros((0, dim), dtype=np.float32)
        # pgvector's binary form: int16 dimension, int16 unused, then big-endian float32s
        raw = b"".join(bytes(r[1])[4:] for r in rows)
        mat = np.frombuffer(raw, dtype=">f4").astype(np.float32).reshape(len(rows), -1)
        return [str(r[0]) for r in rows], mat

    def _cached_matrix(self, scope: str, current: bool, dim: int) -> tuple[list[str], np.ndarray]:
        """``_matrix``, kept until the scope's log moves: every change to a scope's vectors comes with
        an event of that scope (from any process), and ``reindex`` / ``rebuild`` bump ``vectors_epoch``.
        Why: reading 10k vectors from the server is most of a recall's time otherwise."""
        key = self._scope_key(scope)
        hit = self._vector_cache.get((scope, current))
        if hit is not None and hit[0] == key:
            return hit[1], hit[2]
        ids, mat = self._matrix(scope, current, dim)
        if len(self._vector_cache) > 64:
            self._vector_cache.clear()
        self._vector_cache[(scope, current)] = (key, ids, mat)
        return ids, mat

    def _bump_vectors_epoch(self) -> None:
        self.x(
            "INSERT INTO settings (k, v) VALUES ('vectors_epoch', '1') "
            "ON CONFLICT (k) DO UPDATE SET v = (settings.v::bigint + 1)::text"
        )

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        with self._read([scope]):
            name, dim = self._embedder_of(scope) or ("", 0)
            if name:
                self._check_served(scope, name, True)
            ids, mat = self._cached_matrix(scope, True, dim)
            if current_only:
                return ids, mat
            if name:
                self._check_served(scope, name, False)
            hids, hmat = self._cached_matrix(scope, False, dim)
        return ids + hids, np.concatenate([mat, hmat]) if hids else mat

    def nearest(self, scope: str, query: np.ndarray, *, limit: int) -> list[str] | None:
        """pgvector's HNSW answer for a scope with its own index (``ann.py``); None: scan exactly."""
        return ann.nearest(self, scope, query, limit)

    def warm(self, scope: str) -> bool:
        """Build ``scope``'s own HNSW index if it is large enough (``ann.warm``)."""
        return ann.warm(self, scope)

    def _embedder_of(self, scope: str) -> tuple[str, int] | None:
        """``embedder()`` from the scope's key (``_scope_key``): no statement of its own in a read
        that needs the key anyway (the dense leg: ``vectors``, ``ann.nearest``)."""
        key = self._scope_key(scope)
        return None if key[2] is None else (str(key[2]), int(key[3]))

    def embedder(self) -> tuple[str, int] | None:
        with self._read(None):
            rows = dict(self.q("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')"))
        if "embedder" not in rows:
            return None
        return str(rows["embedder"]), int(rows["embedder_dim"])

    def set_embedder(self, name: str, dim: int) -> None:
        before = self.embedder()
        with self._txn([], write=True):
            for k, v in (("embedder", name), ("embedder_dim", str(dim))):
                self.x(
                    "INSERT INTO settings (k, v) VALUES (%s, %s) ON CONFLICT (k) DO UPDATE SET v = excluded.v", (k, v)
                )
            self._made_by = None
            if before is not None and before[1] != dim:
                # each scope's HNSW index is over vec::vector(old dim): gone with it (warm rebuilds)
                for index in ann.indexes(self.q):
                    self.x(f"DROP INDEX IF EXISTS {index}")

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int:
        """Every stored vector recomputed under the recorded embedder in one transaction: readers see
        the old vectors until it commits, then the new ones; never a mix."""
        self._check_open()
        name = (self.embedder() or ("", 0))[0]
        with self._txn([], write=True):
            scopes = [str(r[0]) for r in self.q(_SCOPES)]  # every item's scope has its events
            self._write_scopes(scopes)
            self._bump_vectors_epoch()
            todo: list[tuple[str, str, str]] = []
            for scope in scopes:
                todo += [
                    (scope, str(r[0]), str(r[1]))
                    for r in self.q("SELECT id, text FROM items WHERE scope = %s ORDER BY n", (scope,))
                ]
            for start in range(0, len(todo), batch):
                chunk = todo[start : start + batch]
                vecs = embed([t for _, _, t in chunk])
                self.xmany(
                    "UPDATE items SET vec = %s::vector, made_by = %s WHERE scope = %s AND id = %s",
                    [(projections.vector_literal(v), name, s, i) for (s, i, _), v in zip(chunk, vecs, strict=True)],
                )
                if progress:
                    progress(min(start + batch, len(todo)), len(todo))
        return len(todo)
