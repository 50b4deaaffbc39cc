"""Schema 3 on PostgreSQL: the idempotency table, added in place to a schema-2 database.

The behaviour itself runs on this backend in ``tests/http/test_http_idempotency.py``; this holds
the upgrade, and that an application role made before it reaches the new table (default
privileges) and, through row-level security, only the scopes its transaction names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import psycopg
import pytest

from pg_server import TEMPLATE, PgServer
from reverie import Memory
from reverie.store.postgres.roles import create_app_role
from reverie.store.postgres.schema import SCHEMA_VERSION


@pytest.fixture
def own_db(pg: PgServer) -> Iterator[str]:
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS schema_three")
        c.execute("DROP ROLE IF EXISTS reverie_app_three")
        c.execute(f"CREATE DATABASE schema_three TEMPLATE {TEMPLATE}")
    yield pg.url("schema_three")
    with pg.admin() as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'schema_three'")
        c.execute("DROP DATABASE IF EXISTS schema_three")
        c.execute("DROP ROLE IF EXISTS reverie_app_three")


def test_a_schema_2_database_gains_the_idempotency_table_in_place(own_db: str) -> None:
    assert SCHEMA_VERSION >= 3  # schema 3 added the table; later steps run after it
    with Memory(own_db, embedder="hash") as mem:
        mem.remember("Alice is allergic to peanuts", scope="a")
    with psycopg.connect(own_db, autocommit=True) as c:
        c.execute("DROP TABLE idempotency")
        c.execute("UPDATE settings SET v = '2' WHERE k = 'schema_version'")
    create_app_role(own_db, "reverie_app_three", "pw")  # made before the upgrade
    with Memory(own_db, embedder="hash"):
        pass  # the owner opens it: the upgrade runs
    app = own_db.replace("postgresql://postgres:@", "postgresql://reverie_app_three:pw@", 1)
    request = hashlib.sha256(b"r").hexdigest()
    with Memory(app, embedder="hash") as as_app:
        with as_app.idempotency.claim("k", scope="a", request=request) as pending:
            as_app.remember("Bob keeps bees", scope="a")
        assert pending.written
        assert as_app.idempotency.recorded("k", scope="a") is not None
        assert as_app.idempotency.recorded("k", scope="b") is None
    with psycopg.connect(app) as c:  # raw SQL as the role, no scope named: row-level security hides the key
        assert c.execute("SELECT count(*) FROM idempotency").fetchone() == (0,)
    with psycopg.connect(own_db) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert c.execute("SELECT count(*) FROM idempotency").fetchone() == (1,)
