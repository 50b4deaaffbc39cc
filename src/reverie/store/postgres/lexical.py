"""Full text on PostgreSQL: ``tsvector`` finds the candidates, bm25 from the scope ranks them.

Why not ``to_tsvector`` / ``ts_rank``: PostgreSQL's parsers split and fold text differently
from FTS5's ``unicode61`` (``C++``, ``#tag``, diacritics), and ``ts_rank`` has no idf. So the
document is the tokens reverie's own tokenizer gives (``recall.normalize.tokenize``, the one
that mirrors FTS5), written as a ``tsvector`` literal with positions (phrases match where
their tokens stand together), and the query is the never-throwing MATCH expression of
``recall.normalize.fts_query`` turned into a ``tsquery`` literal: every lexeme quoted, so no
user text is ever tsquery syntax. The GIN index finds the scope's matching rows; they are
ranked with FTS5's bm25 formula from the scope's own row count, token total and term document
frequencies (``store.sqlite.fts_scope``), so a scope's ranking is the SQLite store's, and
does not depend on other scopes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from reverie.model.item import Item
from reverie.model.values import value_text
from reverie.store.sqlite import fts_budget, fts_scope

#: A lexeme longer than this (bytes) is cut, in documents and queries alike (PostgreSQL refuses
#: lexemes over 2047 bytes); the cut only widens the candidate set, bm25 compares whole tokens.
_LEXEME_BYTES = 1000
#: Positions above this are clamped by PostgreSQL (16383); phrases past it match loosely there.
_MAX_POS = 16383
#: Rows ``search`` decodes and rescores per query (see there).
CANDIDATES = 1000

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


def item_extra(item: Item) -> str:
    """Secondary full-text column: the structured key/value and tags (as on SQLite)."""
    parts = [p for p in (item.key, None if item.value is None else value_text(item.value)) if p]
    parts += list(item.tags)
    return " ".join(parts)


def _lexeme(token: str) -> str:
    raw = token.encode("utf-8")
    if len(raw) > _LEXEME_BYTES:
        token = raw[:_LEXEME_BYTES].decode("utf-8", "ignore")
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def document(text: str, more: str = "") -> tuple[str, int]:
    """The ``tsvector`` literal of ``text`` then ``more`` (a gap between them: no phrase spans the
    two columns, as in FTS5) and the number of tokens FTS5 would count for the row."""
    first, second = fts_budget.tokens(text), fts_budget.tokens(more)
    positions: dict[str, list[int]] = {}
    for at, tok in enumerate(first, start=1):
        positions.setdefault(_lexeme(tok), []).append(min(at, _MAX_POS))
    for at, tok in enumerate(second, start=len(first) + 2):
        positions.setdefault(_lexeme(tok), []).append(min(at, _MAX_POS))
    body = " ".join(f"{lex}:{','.join(str(p) for p in sorted(set(pos)))}" for lex, pos in positions.items())
    return body, len(first) + len(second)


def parse(match: str) -> tuple[list[str], str]:
    """(quoted terms, joiner) of a MATCH expression from ``fts_query``; anything else: its quoted
    terms OR-ed (never an error: a caller's odd expression still searches its words)."""
    parsed = fts_scope._parse(match)
    if parsed is not None:
        return parsed
    terms = [m.group(1).replace('""', '"') for m in fts_budget._TERMS.finditer(match)]
    return (terms or [match]), " OR "


def tsquery(phrases: list[list[str]], joiner: str) -> str | None:
    """The ``tsquery`` literal matching ``phrases`` joined by AND / OR; None if nothing to search."""
    parts = ["(" + " <-> ".join(_lexeme(t) for t in p) + ")" for p in phrases if p]
    if not parts:
        return None
    return (" & " if joiner == " AND " else " | ").join(parts)


def search(
    query: Query,
    scope: str,
    match: str,
    limit: int,
    *,
    current: bool | None,
    stats: Callable[[str, bool], Any] | None = None,
) -> list[tuple[str, float]]:
    """The scope's ``limit`` best current (``current`` False: closed; None: both, as one collection)
    items for ``match`` by bm25, as (id, score). ``stats`` (the store's ``scope_stats``) gives the
    scope's row count and token total without a scan."""
    terms, joiner = parse(match)
    phrases = [fts_budget.tokens(t) for t in terms]
    q = tsquery(phrases, " OR ")  # candidates: any term (the AND filter runs after the counts)
    if q is None or limit <= 0:
        return []
    state = {True: "AND closed_at IS NULL", False: "AND closed_at IS NOT NULL", None: ""}[current]
    if stats is not None:
        both = [stats(scope, c) for c in ((True, False) if current is None else (current,))]
        docs, total = sum(f.rows for f in both), sum(f.tokens for f in both)
    else:
        docs, total = query(
            f"SELECT count(*), coalesce(sum(ntok), 0) FROM items WHERE scope = %s {state}",  # nosec B608 # constant
            (scope,),
        )[0]
    if not docs:
        return []
    where = f"FROM items WHERE scope = %s {state} AND tsv @@ %s::tsquery"  # nosec B608 # constant
    # Only the best CANDIDATES rows by ts_rank are decoded and rescored with bm25: exact while the
    # scope has no more matches than that (as on SQLite); beyond, a row ts_rank places lower can
    # be missed (the trade SQLite's common-term budget makes too; fts_budget.py). The same scan
    # counts each term's document frequency (``_frequencies``).
    ones = [tsquery([p], " OR ") for p in phrases]
    asked = [one for one in ones if one]
    counts = "".join(", count(*) FILTER (WHERE tsv @@ %s::tsquery) OVER ()" for _ in asked)
    found = query(
        f"SELECT n, id, text, key, value, tags, ntok{counts} {where} "  # nosec B608 # constant parts
        "ORDER BY ts_rank(tsv, %s::tsquery) DESC, n LIMIT %s",
        (*asked, scope, q, q, max(CANDIDATES, limit)),
    )
    if not found:
        return []
    got = iter(found[0][7:])
    dfs = [int(next(got)) if one else 0 for one in ones]
    rows = [r[:7] for r in found]
    scored = _score(rows, phrases, joiner, int(docs), int(total), dfs)
    return scored[:limit]


def _frequencies(query: Query, where: str, scope: str, phrases: list[list[str]], q: str) -> list[int]:
    """Each term's document frequency in the scope, all in one statement over the rows matching
    any term (``q``): a row matching a term matches ``q``, so each filtered count is that term's
    own. Why one statement: a query of k terms paid k round trips and k index scans; rechecking
    conflicts in a dream pass runs one search per item, and these counts were half its time."""
    ones = [tsquery([p], " OR ") for p in phrases]
    asked = [one for one in ones if one]
    if not asked:
        return [0] * len(phrases)
    columns = ", ".join(["count(*) FILTER (WHERE tsv @@ %s::tsquery)"] * len(asked))
    counts = iter(query(f"SELECT {columns} {where}", (*asked, scope, q))[0])  # nosec B608 # constant parts
    return [int(next(counts)) if one else 0 for one in ones]


def _score(
    rows: list[tuple[Any, ...]], phrases: list[list[str]], joiner: str, docs: int, total: int, hits: list[int]
) -> list[tuple[str, float]]:
    """bm25 as ``fts_scope.lexical`` computes it, with ``hits`` each term's document frequency."""
    found: list[tuple[int, str, int, list[float]]] = []
    for n, item_id, text, key, value, tags, ntok in rows:
        more = " ".join([p for p in (key, value) if p] + list(json.loads(tags)))
        columns = (fts_budget.tokens(text), fts_budget.tokens(more))
        freqs = [
            sum(w * fts_scope._phrase_count(toks, p) for w, toks in zip(fts_scope._WEIGHTS, columns, strict=True))
            if p
            else 0.0
            for p in phrases
        ]
        if any(f > 0 for f in freqs):
            found.append((int(n), str(item_id), int(ntok), freqs))
    if not found:
        return []
    if joiner == " AND ":
        found = [r for r in found if all(f > 0 for f in r[3])]
    idfs = [fts_scope.idf(docs, h) for h in hits]
    avgdl = float(total) / float(docs)
    ranked = [(n, item_id, fts_scope.bm25(freqs, idfs, float(ntok), avgdl)) for n, item_id, ntok, freqs in found]
    ranked.sort(key=lambda r: (r[2], r[0]))  # FTS5: ORDER BY bm25, rowid
    return [(item_id, -float(r)) for _, item_id, r in ranked]
