"""Reference retrievers for the LoCoMo run: no reverie logic in any of them.

- ``PlainBM25``: an in-memory SQLite FTS5 table (default ``unicode61`` tokenizer, FTS5's own
  bm25 with k1=1.2, b=0.75) holding the same texts; the query is every word of the question
  (``\\w+``, lower-cased, de-duplicated, no stop-word list) as quoted terms joined with OR.
- ``PlainDense``: exact cosine over the same embedder's unit vectors (one matrix product).
- ``InspeximusRetriever``: the optional ``inspeximus`` package with the same embedder, its
  hybrid mode, read without reinforcement. Only used when importable.

Each exposes ``index(ids, texts)`` and ``search(query, k) -> ids``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_WORD = re.compile(r"\w+")


class PlainBM25:
    name = "bm25"

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:")
        self._conn.execute("CREATE VIRTUAL TABLE docs USING fts5(text)")
        self._ids: list[str] = []

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        start = len(self._ids)
        self._ids.extend(ids)
        self._conn.executemany(
            "INSERT INTO docs (rowid, text) VALUES (?, ?)", [(start + i + 1, t) for i, t in enumerate(texts)]
        )
        self._conn.commit()

    def search(self, query: str, k: int) -> list[str]:
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self._conn.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?", (match, k)
        ).fetchall()
        return [self._ids[r[0] - 1] for r in rows]

    def close(self) -> None:
        self._conn.close()


class PlainDense:
    name = "dense"

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        self._embed = embed
        self._ids: list[str] = []
        self._mat = np.zeros((0, 0), dtype=np.float32)

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self._ids = list(ids)
        self._mat = np.asarray(self._embed(list(texts)), dtype=np.float32)

    def search_vector(self, qvec: np.ndarray, k: int) -> list[str]:
        sims = self._mat @ np.asarray(qvec, dtype=np.float32)
        order = np.lexsort((np.arange(len(sims)), -sims))[:k]
        return [self._ids[i] for i in order]

    def search(self, query: str, k: int) -> list[str]:
        return self.search_vector(self._embed([query])[0], k)

    def close(self) -> None:
        pass


def inspeximus_available() -> bool:
    try:
        import inspeximus  # noqa: F401
    except Exception:
        return False
    return True


class InspeximusRetriever:
    name = "inspeximus"

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        import inspeximus

        self._embed_one = lambda text: embed([text])[0].tolist()
        self._store: Any = inspeximus.Inspeximus(path=None, embed=self._embed_one)
        self._by_id: dict[str, str] = {}

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        for dia, text in zip(ids, texts, strict=True):
            self._by_id[self._store.remember(text)] = dia

    def search(self, query: str, k: int) -> list[str]:
        hits = self._store.recall(query, k=k, mode="hybrid", reinforce=False)
        return [self._by_id[h["id"]] for h in hits if h["id"] in self._by_id]

    def close(self) -> None:
        pass
