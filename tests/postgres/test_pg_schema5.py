"""Schema 5 on PostgreSQL: ``items.value_type`` (a value keeps its type), added in place to schema 4.

Every value of a schema-4 database was stored as text and reads back as text; a number written
after the upgrade reads back as the int or float it was (outside tester, finding 7).
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from pg_server import TEMPLATE, PgServer
from reverie import Memory
from reverie.store.postgres.schema import SCHEMA_VERSION


@pytest.fixture
def own_db(pg: PgServer) -> Iterator[str]:
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS schema_five")
        c.execute(f"CREATE DATABASE schema_five TEMPLATE {TEMPLATE}")
    yield pg.url("schema_five")
    with pg.admin() as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'schema_five'")
        c.execute("DROP DATABASE IF EXISTS schema_five")


def test_a_schema_4_database_gains_value_types_in_place(own_db: str) -> None:
    assert SCHEMA_VERSION >= 5
    with Memory(own_db, embedder="hash") as mem:
        old = mem.remember("Disk quota", scope="a", key="disk.quota", value="1024")
    with psycopg.connect(own_db, autocommit=True) as c:
        c.execute("ALTER TABLE items DROP COLUMN value_type")
        c.execute("UPDATE settings SET v = '4' WHERE k = 'schema_version'")
    with Memory(own_db, embedder="hash") as mem:
        assert mem.get(old.id, scope="a").value == "1024"
        assert mem.remember("Disk quota", scope="a", key="disk.quota", value=1024).id == old.id
        new = mem.remember("Inode quota", scope="a", key="inode.quota", value=2.5)
        assert (type(mem.get(new.id, scope="a").value), mem.get(new.id, scope="a").value) == (float, 2.5)
        assert mem.doctor().ok
    with psycopg.connect(own_db) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
