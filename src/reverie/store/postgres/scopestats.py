"""A scope's whole-scope aggregates, read once per position of its log instead of once per query.

Why: a recall on PostgreSQL asked three aggregates over every row of the scope — the number of
current vectors (``ann.nearest``: is the scope large enough for its HNSW index), the row count
and token total that bm25 needs (``lexical.search``), and which embedders made the vectors
(``PostgresStore._check_served``). Each is a scan of the scope: ~110 ms apiece at 100k items
here, 70 % of a query's time (``bench/README.md``). One scan now answers all three, and the
answer is kept until the scope's log moves: every change to a scope's items comes with an event
of that scope, from any process, and ``reindex`` / ``rebuild`` bump ``vectors_epoch`` (the same
key ``PostgresStore._cached_matrix`` trusts for the vectors themselves).

Never by log position inside a write transaction: there the rows may be the transaction's own,
and a rollback would give their log positions back to the next writer (the counter is gap-free),
so a figure cached under such a key could later be taken for another state. A write transaction
keeps its own figures instead, for itself only: read once while it holds the scope's write lock
(no other writer moves them then), dropped by the next statement that may change an item row's
count, tokens or vector (``may_change``: every INSERT / UPDATE / DELETE on ``items`` but the few
in ``KEEPS``), by a savepoint rolled back, and at the transaction's end.
Why: a dream pass rechecks conflicts item by item inside its batch transactions, each recheck
one lexical search (which needs the row count and token total) then one flag cleared; the flag
does not move the figures, yet each search scanned the scope again (201 scans per pass).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

#: Scopes (x current / closed) remembered at once; beyond it the cache starts over.
_KEPT = 256

#: What a scope's kept figures are valid for (``PostgresStore._scope_key`` reads it); the last two
#: columns are also the store's embedder (name, dimension), which the dense leg needs with it.
KEY = (
    "SELECT (SELECT max(seq) FROM events WHERE scope = %s), "
    "(SELECT v FROM settings WHERE k = 'vectors_epoch'), (SELECT v FROM settings WHERE k = 'embedder'), "
    "(SELECT v FROM settings WHERE k = 'embedder_dim')"
)

#: A statement that writes rows of ``items`` (run text, so built statements are caught too).
_WRITES_ITEMS = re.compile(
    r"\b(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(?:ONLY\s+)?items\b", re.IGNORECASE
)
#: Statements on ``items`` that leave every figure of ``Stats`` as it was (registered by the
#: writers that issue them, next to the statement: ``projections.py``).
KEEPS: set[str] = set()


def may_change(sql: str) -> bool:
    """True if ``sql`` may change a scope's ``Stats`` (conservative: any write to ``items`` not in ``KEEPS``)."""
    return sql not in KEEPS and _WRITES_ITEMS.search(sql) is not None


@dataclass(frozen=True, slots=True)
class Stats:
    """Aggregates over a scope's current (or closed) item rows."""

    rows: int
    tokens: int
    vectors: int
    made_by_min: str | None
    made_by_max: str | None
    untagged: bool  # a vector without the name of the embedder that made it


class Cache:
    """``Stats`` per (scope, current), each with the log position it was read at."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, bool], tuple[tuple[Any, ...], Stats]] = {}
        self._written: dict[tuple[str, bool], Stats] = {}  # the open write transaction's own

    def moved(self) -> None:
        """The open write transaction may have changed the figures (or a transaction began or ended)."""
        self._written.clear()

    def get(
        self,
        q: Query,
        scope: str,
        current: bool,
        *,
        writing: bool,
        locked: bool = False,
        key: Callable[[], tuple[Any, ...]] | None = None,
    ) -> Stats:
        """The scope's figures: from the cache while its log has not moved, else one scan. In a
        write transaction: kept while it wrote nothing that moves them if it holds the scope's
        write lock (no other writer can move them meanwhile), else read every time. ``key`` reads
        the scope's ``KEY`` (default: one statement now)."""
        if writing:
            if not locked:
                return self._scan(q, scope, current)
            written = self._written.get((scope, current))
            if written is None:
                written = self._written[(scope, current)] = self._scan(q, scope, current)
            return written
        at = key() if key is not None else tuple(q(KEY, (scope,))[0])
        hit = self._kept.get((scope, current))
        if hit is not None and hit[0] == at:
            return hit[1]
        stats = self._scan(q, scope, current)
        if len(self._kept) >= _KEPT:
            self._kept.clear()
        self._kept[(scope, current)] = (at, stats)
        return stats

    @staticmethod
    def _scan(q: Query, scope: str, current: bool) -> Stats:
        state = "IS NULL" if current else "IS NOT NULL"
        row = q(
            "SELECT count(*), coalesce(sum(ntok), 0), count(vec), "  # nosec B608 # constant
            "min(made_by) FILTER (WHERE vec IS NOT NULL), max(made_by) FILTER (WHERE vec IS NOT NULL), "
            "coalesce(bool_or(made_by IS NULL) FILTER (WHERE vec IS NOT NULL), false) "
            f"FROM items WHERE scope = %s AND closed_at {state}",
            (scope,),
        )[0]
        return Stats(int(row[0]), int(row[1]), int(row[2]), row[3], row[4], bool(row[5]))
