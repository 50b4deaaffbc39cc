"""The lexical leg of ``SQLiteStore``: FTS5's ranking where the scope holds the whole table, else
the scope's own bm25 (``fts_scope``), and the common-term split (``fts_budget``) on either path."""

from __future__ import annotations

import sqlite3

from reverie.store.sqlite import fts_budget, fts_scope


def search(c: sqlite3.Connection, table: str, match: str, scope: str, limit: int) -> list[tuple[str, float]]:
    """One full-text table's best ``limit`` for ``scope``: FTS5's own ranking when the scope holds the
    whole table (its statistics are then the scope's), else bm25 from the scope's numbers."""
    stats = fts_scope.stats(c, table, scope)
    if not fts_scope.owns_table(c, table, stats):
        scoped = fts_scope.lexical(c, table, match, scope, limit, stats)
        if scoped is not None:
            return scoped
    elif table == "fts":
        # Terms in a large share of the scope would make bm25 score most of it (fts_budget.py).
        split = fts_budget.plan(c, match)
        if split is not None:
            return ranked_split(c, split, scope, limit)
    return ranked_in(c, table, match, scope, limit)


def ranked_in(c: sqlite3.Connection, table: str, match: str, scope: str, limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best bm25 matches of ``scope`` in one full-text table, as (id, score).

    Ranks the full-text table alone first and looks up only the winners' scope: joining every
    match to ``items`` before sorting cost two thirds of the query (16 of 23 ms for ~6k matches
    at 100k items). If other scopes' rows are among those winners, the join runs as before. Ties
    in bm25 break by rowid on both paths, so both return the same rows.
    """
    ranked = c.execute(
        f"SELECT rowid, bm25({table}, 1.0, 0.5) AS r FROM {table} WHERE {table} MATCH ? ORDER BY r, rowid LIMIT ?",  # nosec B608 # table: fts or fts_history
        (match, limit),
    ).fetchall()
    ids: dict[int, str] = {}
    for start in range(0, len(ranked), 500):
        chunk = [r[0] for r in ranked[start : start + 500]]
        sql = f"SELECT n, id FROM items WHERE n IN ({', '.join('?' * len(chunk))}) AND +scope = ?"  # nosec B608 # only ? marks
        ids.update(c.execute(sql, (*chunk, scope)).fetchall())
    if len(ids) == len(ranked) or len(ranked) < limit:  # all winners are ours, or every match was read
        return [(ids[n], -float(r)) for n, r in ranked if n in ids]
    sql = (
        f"SELECT items.id, bm25({table}, 1.0, 0.5) AS r FROM {table} JOIN items ON items.n = {table}.rowid "  # nosec B608 # table: fts or fts_history
        f"WHERE {table} MATCH ? AND items.scope = ? ORDER BY r, {table}.rowid LIMIT ?"
    )
    return [(r[0], -float(r[1])) for r in c.execute(sql, (match, scope, limit))]


def ranked_split(c: sqlite3.Connection, split: fts_budget.Plan, scope: str, limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best of ``scope`` for a split query: candidates by the rarer terms, rescored with all.

    Like ``ranked_in``: rank the full-text table alone, and join ``items`` before sorting only
    if other scopes' rows crowd the candidates.
    """
    wide = limit * fts_budget.CANDIDATES_PER_ROW
    ranked = c.execute(
        "SELECT rowid, bm25(fts, 1.0, 0.5) AS r FROM fts WHERE fts MATCH ? ORDER BY r, rowid LIMIT ?",
        (split.match, wide),
    ).fetchall()
    scored = fts_budget.rescore(c, split, scope, ranked)
    if len(scored) < len(ranked) and len(ranked) == wide:
        ranked = c.execute(
            "SELECT fts.rowid, bm25(fts, 1.0, 0.5) AS r FROM fts JOIN items ON items.n = fts.rowid "
            "WHERE fts MATCH ? AND items.scope = ? ORDER BY r, fts.rowid LIMIT ?",
            (split.match, scope, wide),
        ).fetchall()
        scored = fts_budget.rescore(c, split, scope, ranked)
    return scored[:limit]
