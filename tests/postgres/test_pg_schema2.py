"""Schema 2 on PostgreSQL: claim visibility and intents / tasks, and the step that upgrades a schema-1 database.

The conformance suite (``any_mem`` / ``store_mem``) runs the behaviour itself on this backend;
these tests hold what only PostgreSQL has: the in-place migration, the row-level security of the
new tables, and ``doctor`` reading the agenda rows scope by scope.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from pg_server import TEMPLATE, PgServer
from reverie import Memory
from reverie.cli import cli
from reverie.store.postgres.roles import create_app_role
from reverie.store.postgres.schema import SCHEMA_VERSION

SCOPE = "user:alice"


@pytest.fixture
def own_db(pg: PgServer) -> Iterator[str]:
    """A database of its own (not the shared pool: this test changes its schema)."""
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS schema_up")
        c.execute("DROP ROLE IF EXISTS reverie_app_up")
        c.execute(f"CREATE DATABASE schema_up TEMPLATE {TEMPLATE}")
    yield pg.url("schema_up")
    with pg.admin() as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'schema_up'")
        c.execute("DROP DATABASE IF EXISTS schema_up")
        c.execute("DROP ROLE IF EXISTS reverie_app_up")


def _to_schema_1(url: str) -> None:
    """Take the database back to schema 1 exactly: schema 2 is schema 1 plus these objects (and
    schema 3 schema 2 plus the idempotency table)."""
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("DROP TABLE intents, tasks, idempotency")
        c.execute("ALTER TABLE items DROP COLUMN visibility")  # takes items_restricted with it
        c.execute("UPDATE settings SET v = '1' WHERE k = 'schema_version'")


def test_a_schema_1_database_gains_visibility_and_the_agenda_in_place(own_db: str) -> None:
    with Memory(own_db, embedder="hash") as mem:
        old = mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    _to_schema_1(own_db)
    create_app_role(own_db, "reverie_app_up", "pw")  # an application role made before the upgrade
    with Memory(own_db, embedder="hash") as mem:
        assert mem.get(old.id, scope=SCOPE).visibility is None  # every old claim: everyone in the scope
        mem.set_visibility(old.id, scope=SCOPE, visibility=["agent:nurse"])
        assert [i.id for i in mem.as_principal("agent:nurse").list(scope=SCOPE).items] == [old.id]
        assert mem.as_principal("agent:planner").list(scope=SCOPE).items == []
        goal = mem.intents.create("confirm the allergy", scope=SCOPE, memory_ids=[old.id])
        assert [i.id for i in mem.intents.list(scope=SCOPE, memory=old.id)] == [goal.id]
        assert mem.doctor().ok
    with psycopg.connect(own_db) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert c.execute("SELECT indexname FROM pg_indexes WHERE indexname = 'items_restricted'").fetchone()
    app = own_db.replace("postgresql://postgres:@", "postgresql://reverie_app_up:pw@", 1)
    with Memory(app, embedder="hash") as as_app:  # reaches the tables the upgrade added
        assert [i.id for i in as_app.intents.list(scope=SCOPE)] == [goal.id]


def test_doctor_reports_an_intent_row_that_disagrees_with_the_log(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem = memories.open(pg_url)
    goal = mem.intents.create("confirm the allergy", scope=SCOPE)
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("UPDATE intents SET status = 'cancelled' WHERE scope = %s AND id = %s", (SCOPE, goal.id))
    report = mem.doctor()
    assert not report.ok and any("intent rows disagree" in p for p in report.problems)
    assert report.counts["intents"] == 1
    mem.rebuild()
    assert mem.doctor().ok and mem.intents.get(goal.id, scope=SCOPE).status == "active"


def test_app_role_sees_only_its_scopes_intents_and_tasks(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem = memories.open(pg_url)
    mem.intents.create("Alice's goal", scope=SCOPE)
    mem.tasks.create("Bob's task", scope="user:bob")
    create_app_role(pg_url, "reverie_app_agenda", "pw")
    app = pg_url.replace("postgresql://postgres:@", "postgresql://reverie_app_agenda:pw@", 1)
    with psycopg.connect(app) as c:
        c.execute("SELECT set_config('reverie.scopes', %s::text[]::text, true)", ([SCOPE],))
        assert c.execute("SELECT count(*) FROM intents").fetchone() == (1,)
        assert c.execute("SELECT count(*) FROM tasks").fetchone() == (0,)  # Bob's task: another scope
        assert c.execute("UPDATE tasks SET status = 'done' WHERE scope = 'user:bob'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # row-level security WITH CHECK
            c.execute(
                "INSERT INTO intents (scope, id, status, priority, record) VALUES ('user:bob', 'x', 'a', 0, '{}')"
            )


def test_migrate_carries_visibility_intents_and_tasks_to_postgres_and_back(tmp_path: Path, pg_url: str) -> None:
    src, back = tmp_path / "src.db", tmp_path / "back.db"
    with Memory(src, embedder="hash") as mem:
        secret = mem.remember("Alice's test results", scope=SCOPE, visibility=["agent:nurse"])
        goal = mem.intents.create("confirm the allergy", scope=SCOPE, memory_ids=[secret.id])
        task = mem.tasks.create("ask Alice", scope=SCOPE, intent=goal, inputs=[secret.id])
        mem.tasks.start(task, scope=SCOPE)
        want = _agenda_and_audience(mem, secret.id)
    for a, b in ((str(src), pg_url), (pg_url, str(back))):
        result = CliRunner().invoke(cli, ["migrate", a, b])
        assert result.exit_code == 0, result.output
        with Memory(b, embedder="hash") as copy:
            assert _agenda_and_audience(copy, secret.id) == want
            assert copy.doctor().ok


def _agenda_and_audience(mem: Memory, item_id: str) -> tuple[object, ...]:
    return (
        [i.to_dict() for i in mem.intents.list(scope=SCOPE)],
        [t.to_dict() for t in mem.tasks.list(scope=SCOPE)],
        mem.get(item_id, scope=SCOPE).visibility,
        [i.id for i in mem.as_principal("agent:planner").list(scope=SCOPE).items],
    )
