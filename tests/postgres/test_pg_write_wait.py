"""A PostgreSQL write beside a long writer fails after the busy timeout, as on SQLite, and writes nothing.

Why: a write waited for another writer's lock without limit on PostgreSQL, while SQLite fails after
its busy timeout (30 s) with a clear error. Now each write transaction sets ``lock_timeout``
(transaction-local) to the store's ``lock_timeout_ms``, SQLite's busy timeout by default, and the
timeout is SQLite's busy ``StorageError``. Deterministic: another real connection holds the lock
(a scope's write lock, or the one event-counter row) in an open transaction for the whole test,
and the store under test waits a few milliseconds; nothing depends on how long anything took.
"""

from __future__ import annotations

import inspect
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from reverie import InvalidInputError, Memory, StorageError
from reverie.store.postgres import PostgresStore
from reverie.store.protocol import BUSY_TIMEOUT_MS
from reverie.store.sqlite import SQLiteStore

BUSY = "the store stayed locked by another writer past the busy timeout"


@pytest.fixture
def hasty(pg_url: str) -> Iterator[Memory]:
    """A store whose writes wait 20 ms for a lock, holding one note in scope ``s``."""
    with Memory(store=PostgresStore(pg_url, lock_timeout_ms=20), embedder="hash") as mem:
        mem.remember("Alice likes tea", scope="s")
        yield mem


@pytest.fixture
def holder(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    """Another writer: a connection with a transaction open (not autocommit) until the test ends."""
    conn = psycopg.connect(pg_url)
    try:
        yield conn
    finally:
        conn.rollback()
        conn.close()


def _log(pg_url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        events = conn.execute("SELECT seq, scope, type FROM events ORDER BY seq").fetchall()
        items = conn.execute("SELECT scope, text FROM items ORDER BY n").fetchall()
        return [*events, *items]


def _refused(mem: Memory, pg_url: str, scope: str) -> StorageError:
    before = _log(pg_url)
    with pytest.raises(StorageError) as raised:
        mem.remember("Bob keeps bees", scope=scope)
    assert _log(pg_url) == before  # nothing written
    return raised.value


def test_a_write_beside_a_writer_holding_its_scope_fails_with_the_busy_error(
    hasty: Memory, holder: psycopg.Connection[Any], pg_url: str
) -> None:
    holder.execute("SELECT pg_advisory_xact_lock(hashtextextended('s', 0))")  # the scope's write lock
    err = _refused(hasty, pg_url, "s")
    assert err.code == "storage" and err.message.startswith(BUSY) and err.message.endswith("; retry")
    assert "lock timeout" in err.message  # PostgreSQL's own words, in brackets as SQLite's are
    assert [h.item.text for h in hasty.recall("tea", scope="s", record_use=False)] == ["Alice likes tea"]
    holder.rollback()  # the other writer finishes: the same store writes again
    assert hasty.remember("Bob keeps bees", scope="s").text == "Bob keeps bees"


def test_a_write_in_another_scope_waiting_on_the_event_counter_fails_the_same_way(
    hasty: Memory, holder: psycopg.Connection[Any], pg_url: str
) -> None:
    """A row lock, not an advisory one: the one row ordering every writer's events (``event_seq``)."""
    holder.execute("UPDATE settings SET v = v WHERE k = 'event_seq'")
    err = _refused(hasty, pg_url, "other")
    assert err.code == "storage" and err.message.startswith(BUSY)


def test_the_wait_does_not_outlive_the_write_on_the_server_session(hasty: Memory) -> None:
    hasty.remember("Carol runs", scope="s")
    conn: Any = hasty.store._conn  # type: ignore[attr-defined]
    assert conn.execute("SELECT current_setting('lock_timeout')").fetchone() == ("0",)


def test_a_write_waits_sqlites_busy_timeout_by_default(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    default = inspect.signature(PostgresStore).parameters["lock_timeout_ms"].default
    assert default == inspect.signature(SQLiteStore).parameters["busy_timeout_ms"].default == BUSY_TIMEOUT_MS
    mem: Memory = memories.open(pg_url)
    store: Any = mem.store
    seen: list[str] = []

    def show(sql: str) -> None:
        if sql.startswith(("SELECT pg_advisory_xact_lock", "INSERT", "UPDATE", "DELETE")):  # what may wait
            seen.append(store._conn.execute("SHOW lock_timeout").fetchone()[0])

    store._statement_hook = show
    try:
        mem.remember("Dana keeps bees", scope="s")
    finally:
        store._statement_hook = None
    assert len(seen) > 2 and set(seen) == {f"{BUSY_TIMEOUT_MS // 1000}s"}


def test_sqlite_and_postgresql_refuse_a_write_beside_a_writer_with_one_error(
    hasty: Memory, holder: psycopg.Connection[Any], pg_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "busy.db"
    with Memory(store=SQLiteStore(path, busy_timeout_ms=20), embedder="hash") as lite:
        lite.remember("Alice likes tea", scope="s")
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            with pytest.raises(StorageError) as sqlite_busy:
                lite.remember("Bob keeps bees", scope="s")
        finally:
            other.close()
    holder.execute("SELECT pg_advisory_xact_lock(hashtextextended('s', 0))")
    pg_busy = _refused(hasty, pg_url, "s")
    assert sqlite_busy.value.code == pg_busy.code == "storage"
    assert sqlite_busy.value.message.split(" (")[0] == pg_busy.message.split(" (")[0] == BUSY


@pytest.mark.parametrize("bad", [-1, 1.5, "30s", True])
def test_a_lock_timeout_that_is_no_whole_number_of_milliseconds_is_refused(pg_url: str, bad: Any) -> None:
    with pytest.raises(InvalidInputError, match="lock_timeout_ms"):
        PostgresStore(pg_url, lock_timeout_ms=bad)
