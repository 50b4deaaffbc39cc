"""Schema 3 -> 4 in place: vector rows get their embedder tag, scopes get their full-text counters.

A v3 file is a v4 file without what v4 added (made here by a v4 store, then taken back to v3, as
``tests/dream/test_dream_runs.py`` does for v2); the reopened file must rank, recall and check
exactly as the original did.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reverie import ManualClock, Memory
from reverie.recall.normalize import fts_query
from reverie.store.sqlite.schema import SCHEMA_VERSION

SCOPES = ("team/a", "team/b")
QUERIES = ("green tea", "jazz chess", "rain")


def _back_to_v3(db: Path) -> None:
    raw = sqlite3.connect(db)
    with raw:
        for trigger in ("vectors_made_by", "vectors_history_made_by", "vectors_staging_text", "vectors_staging_gone"):
            raw.execute(f"DROP TRIGGER {trigger}")
        for table in ("vectors", "vectors_history"):
            raw.execute(f"DROP INDEX {table}_by_maker")
            raw.execute(f"ALTER TABLE {table} DROP COLUMN made_by")
        raw.execute("DROP TABLE vectors_staging")
        for column in ("fts_docs", "fts_tokens", "fts_history_docs", "fts_history_tokens"):
            raw.execute(f"ALTER TABLE scope_state DROP COLUMN {column}")
        raw.execute("UPDATE settings SET v = '3' WHERE k = 'schema_version'")
    raw.close()


def _ranked(mem: Memory) -> dict[tuple[str, str], list[tuple[str, float]]]:
    out = {}
    for scope in SCOPES:
        for q in QUERIES:
            match = fts_query(q)
            assert match is not None
            out[(scope, q)] = mem.store.lexical(scope, match, limit=20, current_only=False)
    return out


def test_a_schema_3_file_upgrades_in_place_with_tags_and_counters(tmp_path: Path) -> None:
    db = tmp_path / "v3.db"
    with Memory(db, embedder="hash", clock=ManualClock()) as old:
        for scope, texts in zip(
            SCOPES, (["green tea", "jazz and chess", "rain in paris"], ["tea", "rain rain"] * 5), strict=True
        ):
            items = old.remember_many([{"text": t} for t in texts], scope=scope)
            old.forget(items[0].id, scope=scope, reason="a history row")
        before = _ranked(old)
        counters = old.store._conn.execute("SELECT * FROM scope_state ORDER BY scope").fetchall()  # type: ignore[attr-defined]
    _back_to_v3(db)

    with Memory(db, embedder="hash", clock=ManualClock()) as mem:
        raw = sqlite3.connect(db)
        try:
            assert raw.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
            tags = raw.execute(
                "SELECT DISTINCT made_by FROM vectors UNION SELECT DISTINCT made_by FROM vectors_history"
            )
            assert tags.fetchall() == [("hash-384/1",)]
            assert raw.execute("SELECT * FROM scope_state ORDER BY scope").fetchall() == counters
        finally:
            raw.close()
        assert _ranked(mem) == before
        assert mem.doctor().ok, mem.doctor().problems
        assert mem.recall("green tea", scope=SCOPES[0], mode="dense", record_use=False)
