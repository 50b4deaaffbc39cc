"""Bring a file's full-text rows to the current ``fts_tokens.index_form`` (schema 7).

Why a rewrite: before schema 7 a row held the text as written, so "東京で会議がある" was one
FTS5 token and "#1182" one token with its "#"; queries are now tokenized from the index form
("東 京", "1182") and would not find those rows. Only rows whose index form differs from what
they hold are rewritten (text with CJK characters, a word-initial "#", a format character or a
decomposed accent): a file of plain English text costs one read of its rows. The per-scope
counters and term statistics are then recounted from the rewritten rows, in the same
transaction as the version row.
"""

from __future__ import annotations

import sqlite3

from reverie.store.fts_tokens import index_form
from reverie.store.sqlite.fts_scope import fill_counters, fill_terms

#: The full-text tables and their columns (``conv_fts``: the archive, when the file has one).
_TABLES = {"fts": ("text", "extra"), "fts_history": ("text", "extra"), "conv_fts": ("text",)}


def rewrite(conn: sqlite3.Connection) -> int:
    """Rewrite every full-text row whose index form changed; returns how many were rewritten."""
    changed = 0
    for table, columns in _TABLES.items():
        if not _exists(conn, table):
            continue
        cols = ", ".join(columns)
        sets = ", ".join(f"{c} = ?" for c in columns)
        rows = conn.execute(f"SELECT rowid, {cols} FROM {table}").fetchall()  # nosec B608 # constant names
        for rowid, *values in rows:
            formed = [index_form(v) if isinstance(v, str) else v for v in values]
            if formed != values:
                conn.execute(f"UPDATE {table} SET {sets} WHERE rowid = ?", (*formed, rowid))  # nosec B608 # constant names
                changed += 1
    if changed:
        fill_counters(conn)
        fill_terms(conn)
    return changed


def _exists(conn: sqlite3.Connection, table: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None
    )
