"""Nothing the store sets for row-level security outlives its transaction on the server session.

Why: behind a transaction-mode pooler (PgBouncer ``pool_mode = transaction``) each transaction
may run on a different server session, and the session the store just used goes to the next
client. Reads used to name the principal's scopes for the whole session (``set_config(...,
false)``) and then skip naming them again, so the next client of that session read the
principal's rows (a leak), and the store, handed a session another client had named, read no
rows of its own. These tests stand in for the pooler with a real server: they run the next
client's statements on the very server session the store used (its connection), and hand one
server session to two stores in turn. Real PostgreSQL (``tests/pg_server.py``), an application
role (``roles.create_app_role``: row-level security applies to it, not to the owner).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from reverie import Memory
from reverie.store.postgres.roles import create_app_role

ROLE, PASSWORD = "reverie_pool_test", "pool-secret"


def _app_url(pg_url: str) -> str:
    return pg_url.replace("postgresql://postgres:@", f"postgresql://{ROLE}:{PASSWORD}@", 1)


@pytest.fixture
def app_url(pg_url: str) -> str:
    """A store holding one note of Alice's and one of Bob's, and the application role's URL."""
    with Memory(pg_url, embedder="hash") as owner:
        owner.remember("Alice is allergic to peanuts", scope="user:alice")
        owner.remember("Bob keeps bees", scope="user:bob")
    create_app_role(pg_url, ROLE, PASSWORD)
    return _app_url(pg_url)


@pytest.fixture
def alice(app_url: str) -> Iterator[Memory]:
    with Memory(app_url, embedder="hash") as mem:
        yield mem


def _next_client_sees(mem: Memory) -> tuple[Any, int]:
    """What the pooler's next client of the store's server session sees: the scopes named on it,
    and the notes row-level security lets it read without naming any."""
    conn: psycopg.Connection[Any] = mem.store._conn  # type: ignore[attr-defined]
    named = conn.execute("SELECT current_setting('reverie.scopes', true)").fetchone()
    rows = conn.execute("SELECT count(*) FROM items").fetchone()
    assert named is not None and rows is not None
    return named[0], int(rows[0])


OPERATIONS: dict[str, Callable[[Memory, str], object]] = {
    "get": lambda m, note: m.get(note, scope="user:alice"),
    "recall": lambda m, note: m.recall("peanuts", scope="user:alice", record_use=False),
    "recall_and_record": lambda m, note: m.recall("peanuts", scope="user:alice"),
    "list": lambda m, note: m.list(scope="user:alice"),
    "summary": lambda m, note: m.summary(scope="user:alice"),
    "history": lambda m, note: m.history(note, scope="user:alice"),
    "remember": lambda m, note: m.remember("Alice moved to Porto", scope="user:alice"),
    "doctor": lambda m, note: m.doctor(),
}


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_the_next_client_of_the_server_session_sees_no_scope_and_no_row(alice: Memory, operation: str) -> None:
    note = alice.recall("peanuts", scope="user:alice", record_use=False)[0].item.id
    assert OPERATIONS[operation](alice, note)
    named, rows = _next_client_sees(alice)
    assert named in ("", None), f"{operation} left {named!r} named on the server session"
    assert rows == 0, f"after {operation}, the next client of the session read {rows} of Alice's notes"


def test_a_read_on_a_server_session_another_client_named_reads_its_own_scope(app_url: str) -> None:
    """Two stores handed one server session in turn (what a transaction pooler does): each reads
    its own principal's rows, and only those, whatever the other named on the session before."""
    with Memory(app_url, embedder="hash") as alice, Memory(app_url, embedder="hash") as bob:
        own: Any = bob.store._conn  # type: ignore[attr-defined]
        assert [i.text for i in bob.list(scope="user:bob").items] == ["Bob keeps bees"]
        bees = bob.recall("bees", scope="user:bob", record_use=False)
        assert [h.item.text for h in bees] == ["Bob keeps bees"]
        try:
            bob.store._conn = alice.store._conn  # type: ignore[attr-defined]  # the pooler's choice
            assert [h.item.text for h in alice.recall("peanuts", scope="user:alice", record_use=False)] == [
                "Alice is allergic to peanuts"
            ]
            again = bob.recall("bees", scope="user:bob", record_use=False)
            assert [h.item.text for h in again] == ["Bob keeps bees"]
            assert bob.get(bees[0].item.id, scope="user:bob") is not None
            assert _next_client_sees(bob) == ("", 0)
        finally:
            bob.store._conn = own  # type: ignore[attr-defined]
