"""Isolation in the database: raw SQL run as the application role cannot read or write another scope."""

from __future__ import annotations

import psycopg
import pytest

from reverie import Memory
from reverie.store.postgres.roles import create_app_role

ROLE, PASSWORD = "reverie_app_test", "app-secret"


def _as_app(url: str) -> str:
    return url.replace("postgresql://postgres:@", f"postgresql://{ROLE}:{PASSWORD}@", 1)


@pytest.fixture
def two_scopes(memories, pg_url: str) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    mem = memories.open(pg_url)
    a = mem.remember("Alice is allergic to peanuts", scope="user:alice")
    mem.remember("Bob keeps bees", scope="user:bob")
    create_app_role(pg_url, ROLE, PASSWORD)
    return pg_url, a.id, _as_app(pg_url)


def _in_scope(conn: psycopg.Connection, scope: str) -> None:
    conn.execute("SELECT set_config('reverie.scopes', %s::text[]::text, true)", ([scope],))


def test_app_role_reads_only_the_scope_its_transaction_names(two_scopes: tuple[str, str, str]) -> None:
    _, _, app = two_scopes
    with psycopg.connect(app) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (0,)  # no scope named: nothing
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
        conn.rollback()
        _in_scope(conn, "user:alice")
        rows = conn.execute("SELECT scope, text FROM items ORDER BY scope").fetchall()
        assert rows == [("user:alice", "Alice is allergic to peanuts")]
        assert conn.execute("SELECT count(*) FROM items WHERE scope = 'user:bob'").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM events WHERE scope = 'user:bob'").fetchone() == (0,)


def test_app_role_cannot_change_or_insert_into_another_scope(two_scopes: tuple[str, str, str]) -> None:
    owner, _, app = two_scopes
    with psycopg.connect(app) as conn:
        _in_scope(conn, "user:alice")
        assert conn.execute("UPDATE items SET text = 'pwned' WHERE scope = 'user:bob'").rowcount == 0
        assert conn.execute("DELETE FROM events WHERE scope = 'user:bob'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # row-level security WITH CHECK
            conn.execute("UPDATE items SET scope = 'user:bob' WHERE scope = 'user:alice'")
        conn.rollback()
        _in_scope(conn, "user:alice")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO tombstones (scope, fp, item_id) VALUES ('user:bob', 'x', 'y')",
            )
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # no DDL, no way around the policy
            conn.execute("ALTER TABLE items NO FORCE ROW LEVEL SECURITY")
    with Memory(owner, embedder="hash") as check:
        assert [i.text for i in check.list(scope="user:bob").items] == ["Bob keeps bees"]
        assert check.doctor().ok


def test_reverie_works_through_the_app_role_within_its_scopes(two_scopes: tuple[str, str, str]) -> None:
    _, alice_id, app = two_scopes
    with Memory(app, embedder="hash") as mem:
        assert mem.get(alice_id, scope="user:alice").text == "Alice is allergic to peanuts"
        added = mem.remember("Alice prefers tea", scope="user:alice")
        hits = mem.recall("what does Alice prefer", scope="user:alice")
        assert hits and hits[0].item.id == added.id
        assert [i.text for i in mem.list(scope="user:bob").items] == ["Bob keeps bees"]  # as asked: by its scope
