"""The application role lists the scopes the owner lists, and ``doctor`` as it checks them.

Outside probe 4, finding 18: connected as the role ``create_app_role`` makes (what the README
recommends for agents), ``Memory.scopes()`` and ``reverie scopes`` answered ``[]`` and ``doctor()``
"no problems" over 0 items, while the owner and SQLite listed ``user:alice``. Why: the listing read
``events`` with no scope named, and row-level security shows that role only the scopes its
transaction names — none. The role may name any scope (that is how the store works through it), so
the scope names were never a secret from it; schema 9 gives it them through ``reverie_scopes``, a
view that reads the log with its owner's rights. Real PostgreSQL (``tests/pg_server.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import psycopg
import pytest
from click.testing import CliRunner

from pg_server import TEMPLATE, PgServer
from reverie import Memory, StorageError
from reverie.cli import cli
from reverie.store.postgres.roles import create_app_role
from reverie.store.postgres.schema import SCHEMA_VERSION

ROLE, PASSWORD = "reverie_app_scopes", "app-secret"
#: The schema version before the one that added the ``reverie_scopes`` view (schema 9).
BEFORE = 8
SCOPES = ["team:ops", "user:alice", "user:bob"]


def _as(url: str, role: str, password: str) -> str:
    base, _, query = url.partition("?")
    netloc = base.split("://", 1)[1].split("@", 1)[-1]
    return f"postgresql://{role}:{password}@{netloc}" + ("?" + query if query else "")


def _fill(url: str) -> None:
    with Memory(url, embedder="hash") as mem:
        for scope in SCOPES:
            mem.remember(f"A note in {scope}", scope=scope)


def test_the_app_role_lists_every_scope_the_owner_lists(pg_url: str) -> None:
    _fill(pg_url)
    create_app_role(pg_url, ROLE, PASSWORD)
    app = _as(pg_url, ROLE, PASSWORD)
    with Memory(pg_url, embedder="hash") as owner:
        assert owner.scopes() == SCOPES
    with Memory(app, embedder="hash") as mem:
        assert mem.scopes() == SCOPES
        mem.remember("Dana keeps bees", scope="user:dana")  # a scope the app role opened itself
        assert mem.scopes() == sorted([*SCOPES, "user:dana"])
    listed = CliRunner().invoke(cli, ["--db", app, "--json", "scopes"], env={"REVERIE_DB": None})
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout)["scopes"] == sorted([*SCOPES, "user:dana"])


def test_doctor_as_the_app_role_checks_what_the_owner_checks(pg_url: str) -> None:
    _fill(pg_url)
    create_app_role(pg_url, ROLE, PASSWORD)
    with Memory(pg_url, embedder="hash") as owner:
        expected = owner.doctor()
    with Memory(_as(pg_url, ROLE, PASSWORD), embedder="hash") as mem:
        report = mem.doctor()
    assert expected.counts["items"] == len(SCOPES)
    assert report.ok and report.counts == expected.counts


def test_raw_sql_as_the_app_role_still_reads_no_row_of_a_scope_it_did_not_name(pg_url: str) -> None:
    """The view gives scope names, nothing else: the rows stay behind row-level security."""
    _fill(pg_url)
    create_app_role(pg_url, ROLE, PASSWORD)
    with psycopg.connect(_as(pg_url, ROLE, PASSWORD)) as conn:
        assert [r[0] for r in conn.execute("SELECT scope FROM reverie_scopes ORDER BY scope")] == SCOPES
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
        conn.rollback()
        refused = (psycopg.errors.InsufficientPrivilege, psycopg.errors.ObjectNotInPrerequisiteState)
        with pytest.raises(refused):  # a view over a recursive query: never a way to write
            conn.execute("DELETE FROM reverie_scopes")


@pytest.fixture
def own_owner(pg: PgServer) -> Iterator[str]:
    """A database owned by a role that is no superuser (RLS applies to it), as in a deployment."""
    db, role = "app_scopes_owner", "reverie_scopes_owner"
    with pg.admin() as c:
        c.execute(f"DROP DATABASE IF EXISTS {db}")
        c.execute(f"DROP ROLE IF EXISTS {ROLE}")
        c.execute(f"DROP ROLE IF EXISTS {role}")
        c.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw' NOSUPERUSER CREATEROLE")
        c.execute(f"CREATE DATABASE {db} OWNER {role} TEMPLATE template0")
    with psycopg.connect(pg.url(db), autocommit=True) as c:
        c.execute("CREATE EXTENSION vector")  # what a superuser does once for such an owner
    try:
        yield _as(pg.url(db), role, "pw")
    finally:
        with pg.admin() as c:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (db,))
            c.execute(f"DROP DATABASE IF EXISTS {db}")
            c.execute(f"DROP ROLE IF EXISTS {ROLE}")
            c.execute(f"DROP ROLE IF EXISTS {role}")


def test_an_owner_that_is_no_superuser_and_its_app_role_list_the_same_scopes(own_owner: str) -> None:
    _fill(own_owner)
    create_app_role(own_owner, ROLE, PASSWORD)
    with Memory(own_owner, embedder="hash") as owner:
        assert owner.scopes() == SCOPES
    with Memory(_as(own_owner, ROLE, PASSWORD), embedder="hash") as mem:
        assert mem.scopes() == SCOPES
        assert mem.doctor().counts["items"] == len(SCOPES)


@pytest.fixture
def before_view(pg: PgServer) -> Iterator[str]:
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS app_scopes_before_view")
        c.execute(f"DROP ROLE IF EXISTS {ROLE}")
        c.execute(f"CREATE DATABASE app_scopes_before_view TEMPLATE {TEMPLATE}")
    try:
        yield pg.url("app_scopes_before_view")
    finally:
        with pg.admin() as c:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'app_scopes_before_view'")
            c.execute("DROP DATABASE IF EXISTS app_scopes_before_view")
            c.execute(f"DROP ROLE IF EXISTS {ROLE}")


def test_an_app_role_made_before_the_upgrade_lists_the_scopes_after_it(before_view: str) -> None:
    _fill(before_view)
    with psycopg.connect(before_view, autocommit=True) as c:  # the database as the schema before left it
        c.execute("DROP VIEW IF EXISTS reverie_scopes")
        c.execute("UPDATE settings SET v = %s WHERE k = 'schema_version'", (str(BEFORE),))
    create_app_role(before_view, ROLE, PASSWORD)  # made then: the view did not exist yet
    Memory(before_view, embedder="hash").close()  # the owner's open upgrades in place
    with psycopg.connect(before_view) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    with Memory(_as(before_view, ROLE, PASSWORD), embedder="hash") as mem:
        assert mem.scopes() == SCOPES


def test_the_app_role_opening_a_database_to_upgrade_is_told_to_open_it_as_the_owner(before_view: str) -> None:
    """An upgrade is DDL, which the application role may not run: it is told who may, not
    "permission denied for schema public"."""
    _fill(before_view)
    with psycopg.connect(before_view, autocommit=True) as c:
        c.execute("DROP VIEW IF EXISTS reverie_scopes")
        c.execute("UPDATE settings SET v = %s WHERE k = 'schema_version'", (str(BEFORE),))
    create_app_role(before_view, ROLE, PASSWORD)
    with pytest.raises(StorageError) as refused:
        Memory(_as(before_view, ROLE, PASSWORD), embedder="hash")
    text = refused.value.message
    assert f"schema {BEFORE}" in text and f"schema {SCHEMA_VERSION}" in text and "owner" in text, text
    assert "nothing was changed" in text.lower() and PASSWORD not in text
    with psycopg.connect(before_view) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(BEFORE),)
    Memory(before_view, embedder="hash").close()  # what the message asks
    with Memory(_as(before_view, ROLE, PASSWORD), embedder="hash") as mem:
        assert mem.scopes() == SCOPES
