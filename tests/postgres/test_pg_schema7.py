"""Schema 7 on PostgreSQL: ``tsv`` documents of the index form, recomputed in place from schema 6.

As SQLite's schema 7 (``tests/security/test_fts_index_form_migration.py``): a document written
before held the tokens of the text as written ("東京で会議がある" one lexeme, "#1182" with its
"#"), which the new queries do not match; the upgrade recomputes the rows that may differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import psycopg
import pytest

from pg_server import TEMPLATE, PgServer
from reverie import Memory
from reverie.store.fts_tokens import fts5_tokens
from reverie.store.postgres.schema import SCHEMA_VERSION

S = "user:a"


@pytest.fixture
def own_db(pg: PgServer) -> Iterator[str]:
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS schema_seven")
        c.execute(f"CREATE DATABASE schema_seven TEMPLATE {TEMPLATE}")
    yield pg.url("schema_seven")
    with pg.admin() as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'schema_seven'")
        c.execute("DROP DATABASE IF EXISTS schema_seven")


def _old_document(text: str) -> str:
    """The ``tsv`` literal schema 6 wrote: tokens of the text as written, with positions."""
    positions: dict[str, list[int]] = {}
    for at, tok in enumerate(fts5_tokens(text), start=1):
        positions.setdefault(tok, []).append(at)
    return " ".join("'" + t.replace("'", "''") + "':" + ",".join(map(str, p)) for t, p in positions.items())


def test_a_schema_6_database_finds_cjk_and_hash_numbers_after_the_upgrade(own_db: str) -> None:
    with Memory(own_db, embedder="hash") as mem:
        mem.remember("東京で会議がある", scope=S)
        mem.remember("My order #1182 never arrived", scope=S)
        mem.conversation("c", scope=S).add("会議は東京です", speaker="Ken", role="user")
    with psycopg.connect(own_db, autocommit=True) as c:
        for item_id, text in c.execute("SELECT id, text FROM items").fetchall():
            c.execute("UPDATE items SET tsv = %s::tsvector WHERE id = %s", (_old_document(text), item_id))
        for entry_id, entry in c.execute("SELECT id, entry FROM conv_entries WHERE kind = 'message'").fetchall():
            doc = _old_document(json.loads(entry)["text"])
            c.execute("UPDATE conv_entries SET tsv = %s::tsvector WHERE id = %s", (doc, entry_id))
        c.execute("UPDATE settings SET v = '6' WHERE k = 'schema_version'")
    with Memory(own_db, embedder="hash") as mem:

        def lexical(q: str) -> list[str]:
            return [h.item.text for h in mem.recall(q, scope=S, mode="lexical", record_use=False)]

        assert "東京で会議がある" in lexical("東京")
        assert "My order #1182 never arrived" in lexical("1182")
        assert [h.text for h in mem.archive_search("東京", scope=S)] == ["会議は東京です"]
        assert mem.doctor().ok
    with psycopg.connect(own_db) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
