"""Bound the cost of a full-text query whose words are in a large share of the documents.

FTS5 scores every document matching any OR-ed term with bm25 (a docsize lookup and a sort per
match), so one common word makes a query linear in the store: at 1M items a LoCoMo question
matched ~64k documents and took 75 ms. Dropping such words outright loses quality (2–5 points of
lexical recall@10 for LoCoMo dev questions among 100k distractors), because bm25 still gives them
some weight: idf = ln((N − df + 0.5) / (df + 0.5)) is ~2.9 at 5 % against ~7 at 0.1 %.

So, only when the terms' document frequencies add up to more than the budget (never in a
small store: LoCoMo conversations have ~600 items), the query is split: the rarer terms select
candidates through FTS5 (at most the budget in matches: the most frequent terms move out until the
rest fit, the rarest always stays), and each candidate's score then gains exactly what bm25
would have added for the terms left out — FTS5's own formula (k1 = 1.2, b = 0.75, column weights
1.0 / 0.5) with their document frequency, the row count and mean length from FTS5's averages
record, and their counts in the candidate's text. Among the candidates the order is the unpruned
one; what can change is which documents become candidates (those matching only common words,
which rank low anyway). Frequencies come from an ``fts5vocab`` table in the connection's
``temp`` schema: nothing is added to the file.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from dataclasses import dataclass

from reverie.store import fts_tokens

#: Above this many matching documents (summed over the query's terms) the query is split: the larger
#: of ``LEXICAL_BUDGET`` and ``BUDGET_SHARE`` of the documents. Why it grows with the store: at 1M a
#: fixed 4,000 left the rarest terms alone to pick candidates and halved LoCoMo dev lexical recall@10
#: among Markov distractors (0.175 → 0.092); 16,000 kept 0.158 at 18 ms (unsplit: 60 ms).
LEXICAL_BUDGET = 4_000
BUDGET_SHARE = 0.02
#: A term in more than this share of the documents always moves to the rescoring side.
COMMON_SHARE = 0.05
#: Candidates read per answer row. One (rescoring reorders the rarer terms' best ``limit``) kept
#: LoCoMo dev lexical R@10 among 100k distractors at 0.297 (unsplit 0.297, dropping the terms 0.245).
CANDIDATES_PER_ROW = 1

_K1, _B = 1.2, 0.75
_WEIGHTS = (1.0, 0.5)  # text, extra: the weights SQLiteStore passes to bm25()
_TERMS = re.compile(r'"((?:[^"]|"")*)"')
_ASCII_TOKEN = re.compile(r"[0-9a-z+#]+")
_VOCAB = "temp.reverie_fts_vocab"


@dataclass(frozen=True, slots=True)
class Plan:
    """Run ``match`` (the rarer terms), then add each ``rescore`` term's bm25 share (term -> idf)."""

    match: str
    rescore: dict[str, float]
    avgdl: float


def plan(
    c: sqlite3.Connection,
    match: str,
    *,
    budget: int | None = None,
    budget_share: float = BUDGET_SHARE,
    common_share: float = COMMON_SHARE,
) -> Plan | None:
    """How to run ``match`` (an OR of quoted terms from ``fts_query``) within budget; None: run it as is.

    Reads the whole table's statistics: ``SQLiteStore.lexical`` calls it only when the scope holds
    every row (``fts_scope``); otherwise ``fts_scope`` plans with the scope's own numbers.
    """
    terms = _split(match)
    if terms is None or len(terms) < 2:
        return None
    stats = averages(c, "fts")
    if stats is None:
        return None
    rows, avgdl = stats
    df = _frequencies(c, terms)
    if df is None:
        return None
    return plan_with(terms, df, rows, avgdl, budget=budget, budget_share=budget_share, common_share=common_share)


def plan_with(
    terms: list[str],
    df: list[int],
    rows: int,
    avgdl: float,
    *,
    budget: int | None = None,
    budget_share: float = BUDGET_SHARE,
    common_share: float = COMMON_SHARE,
) -> Plan | None:
    """``plan`` from given statistics: ``rows`` documents of mean length ``avgdl``, ``df`` per term.

    ``budget`` None reads ``LEXICAL_BUDGET`` now, not at import (tests lower it to stay small)."""
    budget = max(LEXICAL_BUDGET if budget is None else budget, int(budget_share * rows))
    if sum(df) <= budget:
        return None
    order = sorted(range(len(terms)), key=lambda i: (df[i], i))  # rarest first, then query order
    # Phrases ("gb s") stay on the FTS5 side: their document frequency is not a vocabulary lookup.
    keep = [i for i in order if df[i] <= common_share * rows or " " in terms[i]] or order[:1]
    while len(keep) > 1 and sum(df[i] for i in keep) > budget and " " not in terms[keep[-1]]:
        keep.pop()  # the most frequent kept term
    moved = [i for i in range(len(terms)) if i not in keep]
    if not moved:
        return None
    idf = {terms[i]: bm25_idf(rows, df[i]) for i in moved}
    kept = " OR ".join('"' + terms[i].replace('"', '""') + '"' for i in sorted(keep))
    return Plan(match=kept, rescore=idf, avgdl=avgdl)


def bm25_idf(rows: int, df: int) -> float:
    """FTS5's bm25 idf, log((N - n + 0.5) / (n + 0.5)), floored at 1e-6 as FTS5 floors it.

    ``n`` can exceed ``N`` here: the row count (the averages record) and the term counts
    (fts5vocab) are two reads, and other connections write between them; a term in (nearly)
    every row then gets the floor instead of a math domain error (found by the soak).
    """
    ratio = (rows - df + 0.5) / (df + 0.5)
    return max(1e-6, math.log(ratio)) if ratio > 0 else 1e-6


def rescore(c: sqlite3.Connection, p: Plan, scope: str, ranked: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """``ranked`` (row number, bm25 of the kept terms: lower is better) as (id, −bm25 of every term),
    best first (ties by id); rows of other scopes are left out."""
    if not ranked:
        return []
    marks = ", ".join("?" * len(ranked))
    rows = c.execute(
        f"SELECT n, id, text, key, value, tags FROM items WHERE n IN ({marks}) AND +scope = ?",  # nosec B608 # only ? marks
        (*(n for n, _ in ranked), scope),
    ).fetchall()
    texts = {r[0]: (r[1], r[2], " ".join([*(v for v in (r[3], r[4]) if v), *json.loads(r[5])])) for r in rows}
    out = []
    for n, bm25 in ranked:
        if n not in texts:
            continue
        item_id, text, extra = texts[n]
        score = -float(bm25)
        columns = (_tokens(text), _tokens(extra))
        norm = _K1 * (1 - _B + _B * (len(columns[0]) + len(columns[1])) / p.avgdl)
        for term, idf in p.rescore.items():
            f = sum(w * toks.count(term) for w, toks in zip(_WEIGHTS, columns, strict=True))
            if f:
                score += idf * f * (_K1 + 1) / (f + norm)
        out.append((item_id, score))
    out.sort(key=lambda pair: (-pair[1], pair[0]))
    return out


def _tokens(text: str) -> list[str]:
    """The tokens FTS5 indexes for ``text``: ASCII by one regex (letters, digits, ``+``, ``#``; the rest
    separates), other text by the exact mirror of FTS5's Unicode 6.1 tables (``store.fts_tokens``).
    An approximation here once counted terms FTS5 never indexed ("a⻳" as "a龟"), so a scope's
    lexical recall missed the very text it stored."""
    if text.isascii() and "#" not in text:  # else ``index_form`` changes it (a word-initial "#")
        return _ASCII_TOKEN.findall(text.lower())
    return fts_tokens.tokenize(text)


def tokens(text: str) -> list[str]:
    """``_tokens`` for ``fts_scope``: the tokens FTS5 indexes for ``text`` (see there)."""
    return _tokens(text)


def _split(match: str) -> list[str] | None:
    """The quoted terms of a plain ``"a" OR "b"`` expression; None for anything else (left alone)."""
    return split_terms(match, " OR ")


def split_terms(match: str, joiner: str) -> list[str] | None:
    """The quoted terms of ``match`` if it is exactly those terms joined by ``joiner``, else None."""
    terms = [m.group(1).replace('""', '"') for m in _TERMS.finditer(match)]
    rebuilt = joiner.join('"' + t.replace('"', '""') + '"' for t in terms)
    return terms if terms and rebuilt == match else None


def _frequencies(c: sqlite3.Connection, terms: list[str]) -> list[int] | None:
    """Documents holding each term (for a phrase: its rarest token, an upper bound on the phrase)."""
    tokens = sorted({tok for t in terms for tok in t.split()})
    if not tokens:
        return None
    try:
        c.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} USING fts5vocab(main, 'fts', 'row')")
        rows = c.execute(
            f"SELECT term, doc FROM {_VOCAB} WHERE term IN ({', '.join('?' * len(tokens))})",  # nosec B608 # ? marks
            tokens,
        ).fetchall()
    except sqlite3.Error:
        return None  # no pruning rather than no answer
    doc = dict(rows)
    return [min((int(doc.get(tok, 0)) for tok in t.split()), default=0) for t in terms]


def averages(c: sqlite3.Connection, table: str = "fts") -> tuple[int, float] | None:
    """(documents in ``table``, mean tokens per document) from FTS5's averages record (``*_data`` row
    1): a varint row count, then one varint total of tokens per column."""
    row = c.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()  # nosec B608 # table: fts or fts_history
    if row is None or not row[0]:
        return None
    data = bytes(row[0])
    values: list[int] = []
    at = 0
    while at < len(data) and len(values) < 1 + len(_WEIGHTS):
        value, at = _varint(data, at)
        values.append(value)
    if len(values) < 1 + len(_WEIGHTS) or values[0] <= 0:
        return None
    return values[0], sum(values[1:]) / values[0]


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``at`` (7 bits a byte, a 9th byte all 8); (value, next offset)."""
    value = 0
    for i in range(9):
        if at + i >= len(data):
            break
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return value, len(data)
