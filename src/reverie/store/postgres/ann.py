"""Dense search of large scopes on PostgreSQL: one partial HNSW index per scope, built by ``warm``.

Why per scope, and built by ``warm`` rather than kept from the first write:
- **Writes.** Schema 1–2 had one HNSW index over every scope's current vectors, so pgvector
  updated its graph on every item insert of every scope: about 5 ms an insert at 10k rows here,
  most of a batched write's time (``bench/README.md``), while only scopes above
  ``ANN_THRESHOLD`` ever searched it. A partial index (``WHERE scope = '<scope>'``) is updated
  only by its own scope's writes, and a scope without one costs nothing.
- **Answers.** A filtered search of a shared graph could come up short when other scopes'
  rows crowded the candidates; a scope's own graph holds only its rows.
- **When.** ``warm`` is the idle step a dream pass ends with (the SQLite store builds its IVF
  index there too). Until it has run, or for a role that may not create indexes (an
  application role made by ``create_app_role``), ``nearest`` returns None and the exact numpy
  scan answers: slower above the threshold, never wrong. The build is ``CREATE INDEX
  CONCURRENTLY``: writers of every scope go on meanwhile; afterwards the server keeps the index
  current with each write.
- **Memory.** The build runs under the server's ``maintenance_work_mem``; nothing is set on the
  server session. It used to ``SET`` 256MB for the build and ``RESET`` it after, but behind a
  transaction-mode pooler those three statements may each run on another server session, so a
  pooled session kept 256MB for every later client; and ``SET LOCAL`` is not an option, since
  ``CREATE INDEX CONCURRENTLY`` refuses to run inside any transaction block. A graph larger than
  that memory still builds, more slowly (pgvector warns); an operator with large scopes raises
  it for reverie's role (``ALTER ROLE ... SET maintenance_work_mem = '256MB'``), which every
  session of that role starts with, pooled or not.
- **Planning.** A partial index's predicate names the scope as a constant, so the query that
  uses it must be planned for that scope's value: ``nearest`` sets ``plan_cache_mode`` to
  ``force_custom_plan`` in its transaction (a prepared statement's generic plan could not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from reverie.errors import StorageError
from reverie.store.postgres import projections
from reverie.store.postgres.base import ALL_SCOPES
from reverie.store.postgres.schema import HNSW_PREFIX, hnsw_index_name, scope_hnsw_statement

if TYPE_CHECKING:
    from reverie.store.postgres.search import PostgresSearch

#: Below this many current vectors in a scope, dense search is the exact numpy scan.
ANN_THRESHOLD = 20_000

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]
_CURRENT = "SELECT count(*) FROM items WHERE scope = %s AND closed_at IS NULL AND vec IS NOT NULL"


def indexes(q: Query) -> list[str]:
    """The per-scope HNSW indexes that exist (every scope's: schema maintenance)."""
    rows = q(
        f"SELECT indexname FROM pg_indexes {ALL_SCOPES} "  # nosec B608 # constant
        "WHERE tablename = 'items' AND starts_with(indexname, %s) ORDER BY indexname",
        (HNSW_PREFIX,),
    )
    return [str(r[0]) for r in rows]


def ready(q: Query, scope: str) -> bool:
    """Whether ``scope``'s HNSW index exists and is valid (a failed concurrent build leaves an
    invalid one behind, which PostgreSQL keeps updating but never uses)."""
    rows = q(
        "SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = %s",
        (hnsw_index_name(scope),),
    )
    return bool(rows and rows[0][0])


def nearest(store: PostgresSearch, scope: str, query: np.ndarray, limit: int) -> list[str] | None:
    """The scope's HNSW answer; None when the scope is small or has no index yet (scan exactly)."""
    with store._read([scope]):  # plain reads: no transaction (most scopes stop here)
        embedder = store._embedder_of(scope)
        if embedder is None:
            return None
        name, dim = embedder
        store._check_served(scope, name, True)
        n = store.scope_stats(scope, True).vectors
        if n < ANN_THRESHOLD or not ready(store.q, scope):
            return None
    with store._txn([scope]):  # the settings below hold for this transaction
        store.q(
            "SELECT set_config('hnsw.ef_search', %s, true), "
            "set_config('plan_cache_mode', 'force_custom_plan', true) WHERE %s = %s",
            (str(max(limit * 2, 100)), scope, scope),
        )
        rows = store.q(
            f"SELECT id FROM items WHERE scope = %s AND closed_at IS NULL AND vec IS NOT NULL "  # nosec B608 # dim: int
            f"ORDER BY vec::vector({int(dim)}) <=> %s::vector({int(dim)}) LIMIT %s",
            (scope, projections.vector_literal(query), limit),
        )
    if len(rows) < min(limit, n):
        return None  # the graph's answer came up short (closed rows left holes): scan exactly
    return [str(r[0]) for r in rows]


def warm(store: PostgresSearch, scope: str) -> bool:
    """Build ``scope``'s index once it holds ``ANN_THRESHOLD`` current vectors; True if the scope
    has a usable index afterwards, False if it is small, read-only, or the role may not build."""
    store._check_open()
    embedder = store.embedder()
    if embedder is None or store.read_only:
        return False
    with store._txn([scope]):
        if ready(store.q, scope):
            return True
        n = int(store.q(_CURRENT, (scope,))[0][0])
    if n < ANN_THRESHOLD:
        return False
    return _build(store, scope, embedder[1])


def _build(store: PostgresSearch, scope: str, dim: int) -> bool:
    from psycopg import sql

    name = hnsw_index_name(scope)
    with store._lock:  # outside any transaction: CONCURRENTLY cannot run inside one
        try:
            literal = sql.Literal(scope).as_string(store._conn)
            store._run(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")  # an invalid one from a failed build
            # Under the server's own maintenance_work_mem: see the module docstring, "Memory".
            store._run(scope_hnsw_statement(literal, name, dim))
        except StorageError as exc:
            if "denied" in exc.message:  # not the table's owner: no index, exact scans
                return False
            raise
    with store._txn([scope]):
        return ready(store.q, scope)
