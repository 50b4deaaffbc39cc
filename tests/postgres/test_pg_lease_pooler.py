"""The dream lease on PostgreSQL rests on its row alone, so a transaction pooler cannot break it.

Why: behind PgBouncer in transaction mode each transaction may run on another server session,
and one server session serves many clients in turn. The lease used to be backed by a *session*
advisory lock: advisory locks are re-entrant per session, so a second store handed the holder's
server session "got" the lock again and took over a live lease; an unlock could land on another
session, leaving the lock stuck on a pooled one. These tests stand in for the pooler with a real
server (``tests/pg_server.py``): two stores share one server session (one's connection given to
the other), and the session is checked for anything the lease left on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from reverie.store.postgres import PostgresStore
from strategies import START

UNTIL = START + timedelta(hours=1)


@pytest.fixture
def pooled(pg_url: str) -> Iterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores on ONE server session, as a transaction pooler may hand it to both in turn."""
    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    own: Any = b._conn
    b._conn = a._conn  # the pooler's choice
    try:
        yield a, b
    finally:
        b._conn = own
        a.close()
        b.close()


def _advisory_locks_on(store: PostgresStore) -> int:
    """Advisory locks the store's server session holds outside any transaction."""
    row = store._conn.execute(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
    ).fetchone()
    store._conn.rollback()
    assert row is not None
    return int(row[0])


def test_a_live_lease_is_refused_to_another_store_on_the_same_server_session(
    pooled: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = pooled
    assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-a"
    assert b.take_lease("s", "pass-b", now=START, expires_at=UNTIL).owner == "pass-a"
    assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-a"  # renewal
    assert b.take_lease("s", "pass-b", now=START, expires_at=UNTIL).owner == "pass-a"


def test_a_released_lease_is_free_to_the_next_client_of_the_session(
    pooled: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = pooled
    assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-a"
    assert not b.release_lease("s", "pass-b")  # not the holder: nothing released
    assert b.take_lease("s", "pass-b", now=START, expires_at=UNTIL).owner == "pass-a"
    assert a.release_lease("s", "pass-a")
    assert b.take_lease("s", "pass-b", now=START, expires_at=UNTIL).owner == "pass-b"
    assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-b"


def test_an_expired_lease_is_taken_over_and_its_old_holder_cannot_renew_it(
    pooled: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = pooled
    assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-a"
    later = UNTIL + timedelta(seconds=1)
    took = b.take_lease("s", "pass-b", now=later, expires_at=later + timedelta(hours=1))
    assert (took.owner, took.expires_at) == ("pass-b", later + timedelta(hours=1))
    assert a.take_lease("s", "pass-a", now=later, expires_at=later + timedelta(hours=1)).owner == "pass-b"
    assert not a.release_lease("s", "pass-a")
    assert b.release_lease("s", "pass-b")


def test_a_lease_leaves_nothing_on_the_server_session(pg_url: str) -> None:
    """Taking, renewing and releasing leave no lock on the session for its next client; a lease
    whose session went back to the pool is still the row's, whichever session asks next."""
    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-a"
        assert _advisory_locks_on(a) == 0
        a._conn, b._conn = b._conn, a._conn  # the next transactions run on the other sessions
        assert a.take_lease("s", "pass-a", now=START, expires_at=UNTIL).owner == "pass-a"
        assert b.take_lease("s", "pass-b", now=START, expires_at=UNTIL).owner == "pass-a"
        assert a.release_lease("s", "pass-a")
        assert _advisory_locks_on(a) == 0 and _advisory_locks_on(b) == 0
        assert b.take_lease("s", "pass-b", now=START, expires_at=UNTIL).owner == "pass-b"
    finally:
        a.close()
        b.close()
