"""Lexical ranking over a scope's current and closed rows as one collection (history and ``as_of`` recall).

Why: closed items live in ``fts_history``, beside the current ones in ``fts``. Ranked table by
table, each bm25 took its statistics from its own table, so the two lists' scores did not measure
the same thing and merging them by score was wrong: a word in every current row has an idf of
~0 in ``fts`` but not among the few closed rows, so a current row holding it ranked below any
closed row holding it, and the lexical floor (``RecallOptions.lexical_floor``) then dropped the
current ones outright — ``recall("note", as_of=T)`` missed items believed at T. Here bm25 is
computed once, over both tables' rows, from the sums of their statistics (rows, tokens, each
term's documents): the scores of a single table holding all of the scope's rows, with FTS5's
formula operation for operation (``fts_scope.bm25``).

Cost: as ``fts_scope``'s scoped path, linear in the rows holding the query's rarer terms; a term
in a large share of the scope is added back to the best candidates only (``fts_budget``), as on
the current path. A scope with rows in one table only is ranked by that table's own path.
"""

from __future__ import annotations

import sqlite3

from reverie.store.sqlite import fts_budget, fts_scope, lexical

TABLES = ("fts", "fts_history")


def search(c: sqlite3.Connection, match: str, scope: str, limit: int) -> list[tuple[str, float]]:
    """The scope's ``limit`` best rows of both full-text tables by one bm25, as (id, score)."""
    per = [fts_scope.stats(c, table, scope) for table in TABLES]
    filled = [table for table, st in zip(TABLES, per, strict=True) if st.docs > 0]
    parsed = fts_scope._parse(match)
    if len(filled) < 2 or parsed is None:
        # One table holds every row of the scope (its statistics are the scope's), or a query
        # that is not plain quoted terms, which only FTS5 can rank (table by table, as before).
        out: list[tuple[str, float]] = []
        for table in filled or TABLES[:1]:
            out += lexical.search(c, table, match, scope, limit)
        out.sort(key=lambda p: (-p[1], p[0]))
        return out[:limit]
    terms, joiner = parsed
    total = fts_scope.Stats(sum(st.docs for st in per), sum(st.tokens for st in per))
    avgdl = float(total.tokens) / float(total.docs)
    single = all(fts_budget.tokens(t) == [t] for t in terms)
    every = joiner == " AND "
    if single:
        hits = [sum(n) for n in zip(*(fts_scope.term_docs(c, t, scope, terms) for t in TABLES), strict=True)]
        rows = None
    else:  # a phrase is no term of the tables: count its documents over the rows themselves
        rows = _rows(c, terms, scope, every=False)
        hits = [sum(1 for r in rows if r.freqs[i] > 0) for i in range(len(terms))]
    if not any(hits):
        return []
    idfs = [fts_scope.idf(total.docs, h) for h in hits]
    if every:
        found = rows if rows is not None else _rows(c, terms, scope, every=True)
        kept = [r for r in found if all(f > 0 for f in r.freqs)]
        return fts_scope._ids(c, fts_scope._rank(kept, idfs, avgdl, limit))
    split = fts_budget.plan_with(terms, hits, total.docs, avgdl) if single and len(terms) >= 2 else None
    if split is None:
        found = rows if rows is not None else _rows(c, terms, scope, every=False)
        return fts_scope._ids(c, fts_scope._rank(found, idfs, avgdl, limit))
    keep = [i for i, t in enumerate(terms) if t not in split.rescore]
    found = [r for r in _rows(c, [terms[i] for i in keep], scope, every=False) if any(f > 0 for f in r.freqs)]
    ranked = fts_scope._rank(found, [idfs[i] for i in keep], avgdl, limit * fts_budget.CANDIDATES_PER_ROW)
    return fts_budget.rescore(c, split, scope, ranked)[:limit]


def _rows(c: sqlite3.Connection, terms: list[str], scope: str, *, every: bool) -> list[fts_scope._Row]:
    """The scope's rows holding any (``every``: all) of ``terms`` in either table (a row is in one)."""
    return [r for table in TABLES for r in fts_scope._matching_rows(c, table, terms, scope, every=every)]
