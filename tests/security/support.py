"""Shared checks for the reindex tests: what the file really holds, read with a connection of our own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from reverie.embed import HashEmbedder


def vector_rows(db: Path, table: str = "vectors") -> dict[int, tuple[str, bytes]]:
    """``n -> (item text, vector bytes)`` of every row of ``table``, via a read-only connection."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(f"SELECT v.n, i.text, v.vec FROM {table} v JOIN items i ON i.n = v.n").fetchall()
    finally:
        con.close()
    return {int(n): (str(text), bytes(vec)) for n, text, vec in rows}


def made_by(embedder: HashEmbedder, rows: dict[int, tuple[str, bytes]]) -> set[int]:
    """The rows whose vector is exactly ``embedder``'s vector of the row's text."""
    texts = [text for text, _ in rows.values()]
    want = embedder.embed(texts) if texts else np.zeros((0, embedder.dim), dtype=np.float32)
    return {
        n
        for (n, (_, blob)), vec in zip(rows.items(), want, strict=True)
        if blob == np.asarray(vec, dtype=np.float32).tobytes()
    }
