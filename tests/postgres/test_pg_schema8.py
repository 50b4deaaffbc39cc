"""Schema 8 on PostgreSQL: fingerprints and tombstones written before the Cf rule meet today's prints.

As SQLite's schema 8 (``tests/security/test_old_form_prints.py``): the database is written the
way the old code wrote it (``tests/old_form.py``: "Bob likes\u200b red" printed with its zero-width
space), then opened: a plain re-statement corroborates the stored claim, and the old dismissal
refuses both spellings, also after a rebuild from the log's old dismiss events.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from old_form import rewrite_to_old_form
from pg_server import TEMPLATE, PgServer
from reverie import DismissedValueError, Memory
from reverie.store.postgres.schema import SCHEMA_VERSION

S = "user:a"


@pytest.fixture
def own_db(pg: PgServer) -> Iterator[str]:
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS schema_eight")
        c.execute(f"CREATE DATABASE schema_eight TEMPLATE {TEMPLATE}")
    yield pg.url("schema_eight")
    with pg.admin() as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'schema_eight'")
        c.execute("DROP DATABASE IF EXISTS schema_eight")


def _as_old_form(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as c:

        def q(sql: str, params: Any) -> list[tuple[Any, ...]]:
            return c.execute(sql, params).fetchall()

        rewrite_to_old_form(q, lambda sql, params: c.execute(sql, params), "%s")


def _raw(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as c:
        return c.execute(sql).fetchall()


def test_a_database_of_old_form_prints_corroborates_and_keeps_its_dismissals(own_db: str) -> None:
    with Memory(own_db, embedder="hash") as mem:
        kept = mem.remember("Bob likes\u200b red", scope=S, key="bob.colour", value="re\u00add")
        mem.dismiss(mem.remember("Bob hates\u200b blue", scope=S).id, scope=S)
    _as_old_form(own_db)
    assert sorted(fp for (fp,) in _raw(own_db, "SELECT fp FROM tombstones")) == ["t:bob hates\u200b blue"]
    with Memory(own_db, embedder="hash") as mem:
        again = mem.remember("Bob likes red", scope=S)
        assert again.id == kept.id and again.evidence_count == 2
        assert mem.remember("colour", scope=S, key="bob.colour", value="red").id == kept.id
        for text in ("Bob hates blue", "Bob hates\u200b blue"):
            with pytest.raises(DismissedValueError):
                mem.remember(text, scope=S)
        mem.rebuild()
        with pytest.raises(DismissedValueError):
            mem.remember("bob hates blue", scope=S)
        assert mem.doctor().ok
    assert _raw(own_db, "SELECT v FROM settings WHERE k = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert not [fp for (fp,) in _raw(own_db, "SELECT fp FROM fingerprints") if "\u200b" in fp or "\u00ad" in fp]


def test_purging_a_claim_dismissed_in_the_old_form_leaves_no_plain_print(own_db: str) -> None:
    with Memory(own_db, embedder="hash") as mem:
        wrong = mem.remember("Dora's PIN is 88\u200b31", scope=S)
        mem.dismiss(wrong.id, scope=S)
    _as_old_form(own_db)
    with Memory(own_db, embedder="hash") as mem:
        mem.forget(wrong.id, scope=S, purge=True)
        with pytest.raises(DismissedValueError):
            mem.remember("Dora's PIN is 8831", scope=S)
    # The claim's digits in any spelling a payload could hold them (not a bare "88": a random id or
    # a time in a payload may contain that by chance).
    spellings = ("8831", "88\u200b31", "88\\u200b31", "PIN is")
    assert not [p for (p,) in _raw(own_db, "SELECT payload FROM events") if any(w in p for w in spellings)]
    assert all(fp.startswith("sealed:") for (fp,) in _raw(own_db, "SELECT fp FROM tombstones"))
