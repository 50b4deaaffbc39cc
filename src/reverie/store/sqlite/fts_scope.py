"""Lexical ranking from one scope's own statistics (issue #14.7).

FTS5's ``bm25()`` takes its statistics from the whole table: the row count, the mean document
length and each term's document frequency count every scope's rows. So writes to scope B moved
scope A's scores, reordered A's top-k and pushed A's items out of its results, and A could learn
which words are common in B. Ranking inside a scope must depend on that scope alone.

Why not one FTS5 table per scope (exact and fast by construction): a table is six schema objects,
and stores with thousands of scopes (one per user) would parse tens of thousands of them on
every connection; the purge code also writes the two shared tables by name. So the tables stay
shared and the scope's statistics are kept beside them:

- ``scope_state`` counts each scope's full-text rows and their tokens (current and history),
  changed in the same transaction as the rows (``count``), the token counts read from FTS5's
  own ``*_docsize`` records, so they are FTS5's numbers, not an approximation.
- **Fast path**: when the scope holds every row of the table (the common case: one scope per
  file, every LoCoMo conversation, ``bench/scale.py``), the table's statistics *are* the scope's,
  and FTS5 ranks as before (``lexical.ranked_in`` / ``lexical.ranked_split``).
- **Scoped path**: otherwise every row of the scope that matches a term is read (FTS5 finds them,
  the join keeps the scope's), and bm25 is computed here with FTS5's formula, operation for
  operation, from the scope's row count, token total and per-term document frequency (counted
  over those rows). So the scores are bit-identical to what the fast path gives for the same
  scope alone: a scope's results do not change when another scope appears (the property test in
  ``tests/security/test_scope_ranking.py``). The common-term budget (``fts_budget``) is planned
  from the same scoped numbers.

Cost: the scoped path is linear in the scope's matching rows (plus FTS5's scan of every scope's
matches), where FTS5 alone stops at the top ``limit``: measured on a 100k-item scope beside a
100-item one, LoCoMo questions took p50 235 ms / p95 729 ms (load ~6 on 2 cores), against tens of
milliseconds for FTS5's path on the same file. Large scopes that share a file need a cheaper
scoped candidate path (a per-scope term-frequency table, or per-scope FTS5 tables above a size).
Term counts come from tokenizing the matching rows, exactly as FTS5 does for ASCII text under the
default tokenizer (``fts_budget._tokens``; other text or a custom tokenizer can differ on rare
characters, which moves scores, not which scope they come from). A purge rewrites and moves rows
in its own code (``purge.py``); the store takes the row's ``shares`` before and ``follow``s the
difference after, in the same transaction.

Write cost: the moves of one transaction are summed in Python (``Pending``) and written once,
before the commit (``Pending.flush``): one ``executemany`` upsert over the distinct (scope, table,
term) keys of the whole batch, and one counter update per scope. Written row by row, a batched
write paid one upsert per distinct term of every row (~19 per LoCoMo-length text) and three
counter statements per row: index throughput fell 22 % per CPU-second at 10k items. The sums
are the same numbers: a key whose moves cancel (added and removed in one batch) is left as it
was, which is what the row-by-row upserts left too (the row is dropped when it reaches 0).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from reverie.store.sqlite import fts_budget

Exec = Callable[..., sqlite3.Cursor]
ExecMany = Callable[..., None]
_K1, _B = 1.2, 0.75  # FTS5's constants (fts5_aux.c)
_WEIGHTS = (1.0, 0.5)  # text, extra: the column weights the store passes to bm25()
_COUNTERS = {"fts": ("fts_docs", "fts_tokens"), "fts_history": ("fts_history_docs", "fts_history_tokens")}
_TBL = {"fts": 0, "fts_history": 1}  # ``fts_terms.tbl``
#: ``Pending.flush``: every term's move of one (scope, table), from a JSON object {term: move}.
#: ``WHERE true`` tells the parser the ON CONFLICT belongs to the INSERT, not to a join.
_ADD_TERMS = (
    "INSERT INTO fts_terms (scope, tbl, term, docs) SELECT ?, ?, key, value FROM json_each(?) WHERE true "
    "ON CONFLICT (scope, tbl, term) DO UPDATE SET docs = docs + excluded.docs"
)
_DROP_TERMS = (
    "DELETE FROM fts_terms WHERE scope = ? AND tbl = ? AND term IN (SELECT value FROM json_each(?)) AND docs <= 0"
)
#: ``scope_state``'s counters, in the order ``Pending.counters`` holds their moves.
COUNTERS = ("fts_docs", "fts_tokens", "fts_history_docs", "fts_history_tokens", "vec_appends", "vec_removals")
_MOVE_COUNTERS = (
    "UPDATE scope_state SET fts_docs = fts_docs + ?, fts_tokens = fts_tokens + ?, "
    "fts_history_docs = fts_history_docs + ?, fts_history_tokens = fts_history_tokens + ?, "
    "vec_appends = vec_appends + ?, vec_removals = vec_removals + ? WHERE scope = ?"
)


@dataclass(slots=True)
class Pending:
    """The term and counter moves of the open write transaction, summed until ``flush``.

    The store flushes before it commits, before a read that may consult ``fts_terms`` or
    ``scope_state`` inside the transaction, and at the end of each ``execute_steps`` step (a
    step rolled back to its savepoint drops its moves with ``clear``).
    """

    terms: dict[tuple[str, int], Counter[str]] = field(default_factory=dict)  # (scope, tbl) -> term moves
    counters: dict[str, list[int]] = field(default_factory=dict)  # scope -> moves, in COUNTERS order

    def __bool__(self) -> bool:
        return bool(self.terms or self.counters)

    def move(self, scope: str, column: str, by: int) -> None:
        """Move ``scope``'s counter ``column`` (one of ``COUNTERS``) by ``by``."""
        moves = self.counters.get(scope)
        if moves is None:
            moves = self.counters[scope] = [0] * len(COUNTERS)
        moves[COUNTERS.index(column)] += by

    def move_terms(self, scope: str, table: str, terms: frozenset[str] | None, sign: int) -> None:
        """Move each term's document count in ``scope``'s ``table`` by ``sign`` (1 or -1)."""
        key = (scope, _TBL[table])
        moved = self.terms.get(key)
        if moved is None:
            moved = self.terms[key] = Counter()
            if scope not in self.counters:  # the scope gets its row, as before
                self.counters[scope] = [0] * len(COUNTERS)
        if sign > 0:
            moved.update(terms or ())  # counted in C
        else:
            moved.subtract(terms or ())

    def flush(self, x: Exec, xmany: ExecMany) -> None:
        """Write the summed moves: one statement per (scope, table) upserts every moved term, its
        moves passed as one JSON object (``json_each``), in the order first moved."""
        if self.counters:
            scopes = sorted(self.counters)
            xmany("INSERT OR IGNORE INTO scope_state (scope) VALUES (?)", [(s,) for s in scopes])
            moved = [(*self.counters[s], s) for s in scopes if any(self.counters[s])]
            if moved:
                xmany(_MOVE_COUNTERS, moved)
        for (scope, tbl), counts in self.terms.items():
            by_term = {term: by for term, by in counts.items() if by}
            if by_term:
                x(_ADD_TERMS, (scope, tbl, json.dumps(by_term, ensure_ascii=False)))
            dropped = [term for term, by in by_term.items() if by < 0]
            if dropped:  # a count that reached 0 is dropped (a rebuilt table never had it)
                x(_DROP_TERMS, (scope, tbl, json.dumps(dropped, ensure_ascii=False)))
        self.clear()

    def clear(self) -> None:
        self.terms.clear()
        self.counters.clear()


@dataclass(frozen=True, slots=True)
class Stats:
    """A scope's share of one full-text table: rows and tokens (all columns)."""

    docs: int
    tokens: int


def doc_tokens(c: sqlite3.Connection, table: str, n: int) -> int:
    """Tokens FTS5 counted for row ``n`` of ``table`` (all columns), from its ``*_docsize`` record."""
    row = c.execute(f"SELECT sz FROM {table}_docsize WHERE id = ?", (n,)).fetchone()  # nosec B608 # table: fts or fts_history
    return _size(row[0]) if row else 0


def _size(blob: bytes | None) -> int:
    data = bytes(blob or b"")
    total, at = 0, 0
    while at < len(data):
        value, at = fts_budget._varint(data, at)
        total += value
    return total


def count(
    pending: Pending,
    c: sqlite3.Connection,
    table: str,
    scope: str,
    n: int,
    sign: int,
    terms: frozenset[str] | None = None,
) -> None:
    """Add (``sign`` 1, after inserting row ``n``) or remove (-1, before deleting it) one row's share:
    its row and tokens in ``scope_state``, and one document for each distinct term in ``fts_terms``
    (moves kept in ``pending``). ``terms``: the row's distinct terms when the caller has its text
    (``text_terms``), else they are read from the row."""
    docs, tokens = _COUNTERS[table]
    pending.move(scope, docs, sign)
    pending.move(scope, tokens, sign * doc_tokens(c, table, n))
    pending.move_terms(scope, table, terms if terms is not None else row_terms(c, table, n), sign)


def text_terms(text: str | None, extra: str | None) -> frozenset[str]:
    """The distinct terms of a row holding ``text`` and ``extra``, as the scoped path counts them."""
    return frozenset(fts_budget.tokens(text or "")) | frozenset(fts_budget.tokens(extra or ""))


def row_terms(c: sqlite3.Connection, table: str, n: int) -> frozenset[str] | None:
    """The distinct terms of row ``n`` of ``table`` (both columns), as the scoped path counts them;
    None when the row is not in that table."""
    row = c.execute(f"SELECT text, extra FROM {table} WHERE rowid = ?", (n,)).fetchone()  # nosec B608 # table: fts or fts_history
    if row is None:
        return None
    return text_terms(row[0], row[1])


@dataclass(frozen=True, slots=True)
class Shares:
    """Where one item's row sits in the full-text tables, its tokens and its distinct terms (None:
    not in that table)."""

    n: int
    sizes: dict[str, int | None]
    terms: dict[str, frozenset[str] | None]


def shares(c: sqlite3.Connection, item_id: str) -> Shares | None:
    row = c.execute("SELECT n FROM items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        return None
    return _shares(c, int(row[0]))


def _shares(c: sqlite3.Connection, n: int) -> Shares:
    sizes: dict[str, int | None] = {}
    for table in _COUNTERS:
        found = c.execute(f"SELECT sz FROM {table}_docsize WHERE id = ?", (n,)).fetchone()  # nosec B608 # constants
        sizes[table] = None if found is None else _size(found[0])
    return Shares(n, sizes, {table: row_terms(c, table, n) for table in _COUNTERS})


def follow(pending: Pending, c: sqlite3.Connection, scope: str, before: Shares | None) -> None:
    """Move the scope's counters by what a rewrite of the row did (the purge code writes the tables
    itself, moving a row between them and changing its length): the difference of two ``shares``."""
    if before is None:
        return
    after = _shares(c, before.n)
    for table in _COUNTERS:
        was, now = before.terms[table], after.terms[table]
        if was != now:  # a redacted text has other terms, or the row moved tables
            pending.move_terms(scope, table, (was or frozenset()) - (now or frozenset()), -1)
            pending.move_terms(scope, table, (now or frozenset()) - (was or frozenset()), 1)
    pending.counters.setdefault(scope, [0] * len(COUNTERS))
    for table, (docs, tokens) in _COUNTERS.items():
        old, new = before.sizes[table], after.sizes[table]
        if old == new:
            continue
        pending.move(scope, docs, (new is not None) - (old is not None))
        pending.move(scope, tokens, (new or 0) - (old or 0))


def fill_counters(c: sqlite3.Connection) -> None:
    """Count every scope's rows and tokens from scratch (the schema-4 migration)."""
    for table, (docs, tokens) in _COUNTERS.items():
        per_scope: dict[str, list[int]] = {}
        rows = c.execute(
            f"SELECT i.scope, d.sz FROM {table}_docsize d JOIN items i ON i.n = d.id"  # nosec B608 # constant table
        )
        for scope, blob in rows:
            entry = per_scope.setdefault(scope, [0, 0])
            entry[0] += 1
            entry[1] += _size(blob)
        for scope, (n_docs, n_tokens) in sorted(per_scope.items()):
            c.execute("INSERT OR IGNORE INTO scope_state (scope) VALUES (?)", (scope,))
            c.execute(
                f"UPDATE scope_state SET {docs} = ?, {tokens} = ? WHERE scope = ?",  # nosec B608 # constant columns
                (n_docs, n_tokens, scope),
            )


def fill_terms(c: sqlite3.Connection) -> None:
    """Count every scope's term documents from scratch (the schema-5 migration; one pass over the rows)."""
    c.execute("DELETE FROM fts_terms")
    for table, tbl in _TBL.items():
        per: dict[tuple[str, str], int] = {}
        rows = c.execute(f"SELECT i.scope, f.text, f.extra FROM {table} f JOIN items i ON i.n = f.rowid")  # nosec B608 # constant table
        for scope, text, extra in rows:
            for term in frozenset(fts_budget.tokens(text or "")) | frozenset(fts_budget.tokens(extra or "")):
                per[(scope, term)] = per.get((scope, term), 0) + 1
        c.executemany(
            "INSERT INTO fts_terms (scope, tbl, term, docs) VALUES (?, ?, ?, ?)",
            [(scope, tbl, term, docs) for (scope, term), docs in sorted(per.items())],
        )


def term_docs(c: sqlite3.Connection, table: str, scope: str, terms: list[str]) -> list[int]:
    """How many of ``scope``'s rows in ``table`` hold each term: O(terms) index probes."""
    marks = ", ".join("?" * len(terms))
    sql = f"SELECT term, docs FROM fts_terms WHERE scope = ? AND tbl = ? AND term IN ({marks})"  # nosec B608 # only ? marks
    found = dict(c.execute(sql, (scope, _TBL[table], *terms)).fetchall())
    return [int(found.get(t, 0)) for t in terms]


def stats(c: sqlite3.Connection, table: str, scope: str) -> Stats:
    docs, tokens = _COUNTERS[table]
    row = c.execute(f"SELECT {docs}, {tokens} FROM scope_state WHERE scope = ?", (scope,)).fetchone()  # nosec B608 # constant columns
    return Stats(int(row[0]), int(row[1])) if row else Stats(0, 0)


def owns_table(c: sqlite3.Connection, table: str, scope_stats: Stats) -> bool:
    """True when the scope holds every row of ``table``: FTS5's statistics are then the scope's."""
    averages = fts_budget.averages(c, table)
    if averages is None:  # an empty table: nothing to rank, any path returns nothing
        return True
    return averages[0] == scope_stats.docs


def idf(rows: int, hits: int) -> float:
    """FTS5's bm25 idf exactly as fts5_aux.c computes it (a non-positive value becomes 1e-6).

    ``hits`` can exceed ``rows`` (two reads, writers between them): the ratio is then not positive
    and gets the floor instead of a math domain error (found by the soak, as for ``fts_budget``).
    """
    ratio = (rows - hits + 0.5) / (hits + 0.5)
    if ratio <= 0.0:
        return 1e-6
    value = math.log(ratio)
    return 1e-6 if value <= 0.0 else value


def bm25(freqs: list[float], idfs: list[float], length: float, avgdl: float) -> float:
    """FTS5's bm25 of one row, operation for operation (same order, so the same double)."""
    score = 0.0
    for f, w in zip(freqs, idfs, strict=True):
        score += w * ((f * (_K1 + 1.0)) / (f + _K1 * (1 - _B + _B * length / avgdl)))
    return -1.0 * score


@dataclass(frozen=True, slots=True)
class _Row:
    n: int
    length: int
    freqs: list[float]  # per phrase: weighted instance count (text 1.0, extra 0.5)


def _phrase_count(tokens: list[str], phrase: list[str]) -> int:
    if len(phrase) == 1:
        return tokens.count(phrase[0])
    k = len(phrase)
    return sum(1 for i in range(len(tokens) - k + 1) if tokens[i : i + k] == phrase)


def _parse(match: str) -> tuple[list[str], str] | None:
    """(quoted terms, joiner) of a plain ``"a" OR "b"`` / ``"a" AND "b"`` expression, else None."""
    for joiner in (" OR ", " AND "):
        terms = fts_budget.split_terms(match, joiner)
        if terms is not None:
            return terms, joiner
    return None


def _matching_rows(
    c: sqlite3.Connection, table: str, terms: list[str], scope: str, *, every: bool = False
) -> list[_Row]:
    """Every row of ``scope`` in ``table`` holding any term (``every``: all of them), with FTS5's
    length and the term counts."""
    any_term = (" AND " if every else " OR ").join('"' + t.replace('"', '""') + '"' for t in terms)
    phrases = [fts_budget.tokens(t) for t in terms]
    # CROSS JOIN keeps FTS5 the outer loop: with a plain JOIN the planner walked the scope's items
    # and ran the MATCH once per item (8-53 s per question at 100k items instead of milliseconds).
    sql = (
        f"SELECT {table}.rowid, {table}.text, {table}.extra, d.sz FROM {table} "  # nosec B608 # table: fts or fts_history
        f"CROSS JOIN items ON items.n = {table}.rowid CROSS JOIN {table}_docsize d ON d.id = {table}.rowid "
        f"WHERE {table} MATCH ? AND items.scope = ?"
    )
    out = []
    for n, text, extra, sz in c.execute(sql, (any_term, scope)):
        columns = (fts_budget.tokens(text or ""), fts_budget.tokens(extra or ""))
        freqs = [
            sum(w * _phrase_count(toks, p) for w, toks in zip(_WEIGHTS, columns, strict=True)) if p else 0.0
            for p in phrases
        ]
        out.append(_Row(int(n), _size(sz), freqs))
    return out


def _token_df(c: sqlite3.Connection, table: str, token: str, scope: str) -> int:
    sql = (
        f"SELECT count(*) FROM {table} CROSS JOIN items ON items.n = {table}.rowid "  # nosec B608 # table: fts or fts_history
        f"WHERE {table} MATCH ? AND items.scope = ?"
    )
    return int(c.execute(sql, ('"' + token.replace('"', '""') + '"', scope)).fetchone()[0])


def _rank(rows: list[_Row], idfs: list[float], avgdl: float, limit: int) -> list[tuple[int, float]]:
    """(row number, bm25) best first, ties by row number: FTS5's ``ORDER BY r, rowid LIMIT``."""
    scored = [(r.n, bm25(r.freqs, idfs, float(r.length), avgdl)) for r in rows]
    scored.sort(key=lambda p: (p[1], p[0]))
    return scored[:limit]


def lexical(
    c: sqlite3.Connection, table: str, match: str, scope: str, limit: int, scope_stats: Stats
) -> list[tuple[str, float]] | None:
    """The scope's ``limit`` best rows by bm25 over the scope's own statistics, as (id, score);
    None when ``match`` is not a plain expression of quoted terms (the caller then asks FTS5).

    Terms that are one token each (what ``fts_query`` makes of most questions) take their
    document frequencies from ``fts_terms`` (``by_terms``); a phrase needs its rows read
    (``by_rows``). Both compute the same numbers, so they rank bit-identically.
    """
    parsed = _parse(match)
    if parsed is None or scope_stats.docs <= 0:
        return None
    terms, joiner = parsed
    return by_terms(c, table, terms, joiner, scope, limit, scope_stats)


def by_terms(
    c: sqlite3.Connection, table: str, terms: list[str], joiner: str, scope: str, limit: int, scope_stats: Stats
) -> list[tuple[str, float]]:
    """``by_rows`` for one-token terms, with each term's document frequency read from ``fts_terms``.

    Why it is faster: the common-term split is planned *before* any row is read, so only the rows
    holding the kept (rarer) terms are read and scored, not every row holding a common word; and
    an AND query reads only the rows holding every term. The numbers are the ones ``by_rows``
    counts (a row holds a term when its tokens do), so the scores are the same doubles. A phrase
    ("dairy free") is no single term of the table: a query holding one goes to ``by_rows``.
    """
    if not all(fts_budget.tokens(t) == [t] for t in terms):
        return by_rows(c, table, terms, joiner, scope, limit, scope_stats)
    hits = term_docs(c, table, scope, terms)
    if not any(hits):
        return []
    avgdl = float(scope_stats.tokens) / float(scope_stats.docs)
    idfs = [idf(scope_stats.docs, h) for h in hits]
    if joiner == " AND ":
        rows = [r for r in _matching_rows(c, table, terms, scope, every=True) if all(f > 0 for f in r.freqs)]
        return _ids(c, _rank(rows, idfs, avgdl, limit))
    split = fts_budget.plan_with(terms, hits, scope_stats.docs, avgdl) if table == "fts" and len(terms) >= 2 else None
    if split is None:
        return _ids(c, _rank(_matching_rows(c, table, terms, scope), idfs, avgdl, limit))
    keep = [i for i, t in enumerate(terms) if t not in split.rescore]
    kept_rows = [r for r in _matching_rows(c, table, [terms[i] for i in keep], scope) if any(f > 0 for f in r.freqs)]
    wide = limit * fts_budget.CANDIDATES_PER_ROW
    ranked = _rank(kept_rows, [idfs[i] for i in keep], avgdl, wide)
    return fts_budget.rescore(c, split, scope, ranked)[:limit]


def by_rows(
    c: sqlite3.Connection, table: str, terms: list[str], joiner: str, scope: str, limit: int, scope_stats: Stats
) -> list[tuple[str, float]]:
    """The scoped ranking from the matching rows themselves: every row of the scope holding any term
    is read, and each term's document frequency counted over them (linear in those rows)."""
    rows = _matching_rows(c, table, terms, scope)
    if not rows:
        return []
    hits = [sum(1 for r in rows if r.freqs[i] > 0) for i in range(len(terms))]
    avgdl = float(scope_stats.tokens) / float(scope_stats.docs)
    if joiner == " AND ":
        rows = [r for r in rows if all(f > 0 for f in r.freqs)]
        ranked = _rank(rows, [idf(scope_stats.docs, h) for h in hits], avgdl, limit)
        return _ids(c, ranked)
    split = _plan(c, table, terms, hits, scope, scope_stats, avgdl)
    if split is None:
        ranked = _rank(rows, [idf(scope_stats.docs, h) for h in hits], avgdl, limit)
        return _ids(c, ranked)
    keep = [i for i, t in enumerate(terms) if t not in split.rescore]
    kept_rows = [_Row(r.n, r.length, [r.freqs[i] for i in keep]) for r in rows if any(r.freqs[i] > 0 for i in keep)]
    wide = limit * fts_budget.CANDIDATES_PER_ROW
    ranked = _rank(kept_rows, [idf(scope_stats.docs, hits[i]) for i in keep], avgdl, wide)
    return fts_budget.rescore(c, split, scope, ranked)[:limit]


def _plan(
    c: sqlite3.Connection,
    table: str,
    terms: list[str],
    hits: list[int],
    scope: str,
    scope_stats: Stats,
    avgdl: float,
) -> fts_budget.Plan | None:
    """The common-term split of ``fts_budget.plan``, from the scope's numbers (current table only,
    as there). A phrase's frequency is its rarest token's, as fts5vocab would give it."""
    if table != "fts" or len(terms) < 2:
        return None
    df = []
    for term, h in zip(terms, hits, strict=True):
        toks = fts_budget.tokens(term)
        df.append(h if len(toks) <= 1 else min(_token_df(c, table, tok, scope) for tok in toks))
    return fts_budget.plan_with(terms, df, scope_stats.docs, avgdl)


def _ids(c: sqlite3.Connection, ranked: list[tuple[int, float]]) -> list[tuple[str, float]]:
    if not ranked:
        return []
    marks = ", ".join("?" * len(ranked))
    ids = dict(c.execute(f"SELECT n, id FROM items WHERE n IN ({marks})", [n for n, _ in ranked]).fetchall())  # nosec B608 # only ? marks
    return [(ids[n], -float(r)) for n, r in ranked if n in ids]
