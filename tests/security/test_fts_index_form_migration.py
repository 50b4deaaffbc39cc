"""A file written before schema 7 gets its full-text rows rewritten to the index form on open.

Schema 7 (outside probe 3, findings 12-14) indexes ``fts_tokens.index_form`` of each text: CJK one
character apiece, a word-initial "#" blanked, format characters off, composed. Rows written
before hold the text as written, which the new queries ("東 京", "1182") do not match; the
migration rewrites exactly those rows and recounts the per-scope statistics.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections import Counter
from pathlib import Path

from reverie import Memory
from reverie.store.sqlite import fts_budget
from reverie.store.sqlite.schema import SCHEMA_VERSION

S = "user:a"


def _as_schema_6(db: Path) -> None:
    """What a schema-6 file held: every full-text row the text as written."""
    c = sqlite3.connect(db)
    c.execute("UPDATE fts SET text = (SELECT text FROM items WHERE items.n = fts.rowid)")
    c.execute("UPDATE fts_history SET text = (SELECT text FROM items WHERE items.n = fts_history.rowid)")
    c.execute(
        "UPDATE conv_fts SET text = "
        "(SELECT json_extract(entry, '$.text') FROM conv_entries e WHERE e.n = conv_fts.rowid)"
    )
    c.execute("DELETE FROM fts_terms")
    c.execute("UPDATE settings SET v = '6' WHERE k = 'schema_version'")
    c.commit()
    c.close()


def _terms(c: sqlite3.Connection) -> tuple[Counter[tuple[str, int, str]], Counter[tuple[str, int, str]]]:
    counted: Counter[tuple[str, int, str]] = Counter()
    for table, tbl in (("fts", 0), ("fts_history", 1)):
        for scope, text, extra in c.execute(
            f"SELECT i.scope, f.text, f.extra FROM {table} f JOIN items i ON i.n = f.rowid"
        ):
            for term in set(fts_budget.tokens(text or "")) | set(fts_budget.tokens(extra or "")):
                counted[(scope, tbl, term)] += 1
    stored = Counter({(s, t, term): d for s, t, term, d in c.execute("SELECT scope, tbl, term, docs FROM fts_terms")})
    return counted, stored


def test_a_schema_6_file_finds_cjk_hash_numbers_and_decomposed_text_after_open(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("東京で会議がある", scope=S)
        mem.remember("My order #1182 never arrived", scope=S)
        mem.remember(unicodedata.normalize("NFD", "Мой город Йошкар-Ола"), scope=S)
        old = mem.remember("大阪で食事をした", scope=S)
        mem.forget(old.id, scope=S)
        mem.conversation("c", scope=S).add("会議は東京です", speaker="Ken", role="user")
    _as_schema_6(db)
    with Memory(db, embedder="hash") as mem:

        def lexical(q: str) -> list[str]:
            return [h.item.text for h in mem.recall(q, scope=S, mode="lexical", record_use=False)]

        assert "東京で会議がある" in lexical("東京")
        assert "My order #1182 never arrived" in lexical("1182")
        assert len(lexical("Йошкар")) == 1
        assert [h.text for h in mem.archive_search("東京", scope=S)] == ["会議は東京です"]
        history = mem.recall("大阪", scope=S, mode="lexical", include_history=True, record_use=False)
        assert [h.item.text for h in history] == ["大阪で食事をした"]
        assert mem.doctor().ok
    c = sqlite3.connect(db)
    try:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        counted, stored = _terms(c)
        assert stored == counted != Counter()
        assert ("user:a", 0, "東") in stored
    finally:
        c.close()
