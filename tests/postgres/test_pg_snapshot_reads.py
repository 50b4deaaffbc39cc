"""PostgreSQL reads of several statements that must agree: each sees one snapshot of the store.

The store's transactions are READ COMMITTED, where every statement takes a snapshot of its own.
``doctor`` compares the log with the projections over many statements: a write another process
committed between two of them was in one and not in the other, and a healthy store showed
"1 intent rows disagree with the log; run rebuild" (the alarm SQLite raised beside a writer until
its doctor read one snapshot, ``tests/reliability/test_reads_beside_writer.py``). Likewise
``summary_counts`` counted the current items and the items by status in different statements.

Deterministic, no race: the doctor's store runs a hook before each of its statements, and the
hook commits a write through another connection (another ``Memory``) between two of them, which
is what another process can do at that moment. Real PostgreSQL (``tests/pg_server.py``); the
doctor runs as the owner and as the application role (row-level security names its scopes).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memory_registry import MemoryRegistry
from reverie import Memory
from reverie.store.postgres.roles import create_app_role

ROLE, PASSWORD = "reverie_app_snapshot", "app-secret"


def _as_app(url: str) -> str:
    base, _, query = url.partition("?")
    netloc = base.split("://", 1)[1].split("@", 1)[-1]
    return f"postgresql://{ROLE}:{PASSWORD}@{netloc}" + ("?" + query if query else "")


def _between(mem: Memory, when: Callable[[str], bool], write: Callable[[], None]) -> list[str]:
    """Run ``write`` (committed elsewhere) just before the first statement of ``mem``'s store that
    ``when`` picks; the list holds that statement once it has fired."""
    fired: list[str] = []

    def hook(sql: str) -> None:
        if not fired and when(sql):
            fired.append(sql)
            write()

    mem.store._statement_hook = hook  # type: ignore[attr-defined]
    return fired


@pytest.mark.parametrize("role", ["owner", "app role"])
def test_doctor_sees_no_drift_when_a_write_commits_between_its_statements(
    memories: MemoryRegistry, pg_url: str, role: str
) -> None:
    writer = memories.open(pg_url, seed=1)  # another connection, with ids of its own
    writer.remember("Alice likes hiking", scope="s")
    writer.intents.create("ship the report", scope="s")
    if role == "app role":
        create_app_role(pg_url, ROLE, PASSWORD)
    mem = memories.open(pg_url if role == "owner" else _as_app(pg_url))
    before = mem.doctor()
    assert before.ok and before.counts["intents"] == 1 and before.counts["items"] == 1

    def another_process_writes() -> None:
        writer.remember("Bob prefers tea", scope="s")
        writer.intents.create("book the venue", scope="s")

    # the intent rows are read after the log's agenda events: commit a new intent in between
    fired = _between(
        mem, lambda sql: "FROM intents" in sql and sql.startswith("SELECT scope, id"), another_process_writes
    )
    try:
        report = mem.doctor()
    finally:
        mem.store._statement_hook = None  # type: ignore[attr-defined]
    assert fired, "the doctor never read the intent rows: the test no longer interleaves anything"
    assert report.ok, report.problems  # was: ['1 intent rows disagree with the log (first: ...); run rebuild']
    assert report.counts == before.counts  # the state it began reading: not half of the new write
    after = mem.doctor()
    assert after.ok and after.counts["intents"] == 2 and after.counts["items"] == 2


def test_summary_counts_are_of_one_state_when_a_write_commits_meanwhile(memories: MemoryRegistry, pg_url: str) -> None:
    writer = memories.open(pg_url, seed=1)
    writer.remember("Alice likes hiking", scope="s")
    mem = memories.open(pg_url)
    before = mem.store.summary_counts("s")

    def another_process_writes() -> None:
        writer.remember("Bob prefers tea", scope="s")

    fired = _between(mem, lambda sql: "FROM items" in sql and "status" in sql, another_process_writes)
    try:
        counts = mem.store.summary_counts("s")
    finally:
        mem.store._statement_hook = None  # type: ignore[attr-defined]
    assert fired
    after = mem.store.summary_counts("s")
    assert sum(after["tier"].values()) == 2 and after != before
    # was: one current item by tier, two live items by status (the two halves of two states)
    assert counts in (before, after), counts
    assert sum(counts["tier"].values()) == sum(counts["status"].values())


def test_summary_counts_in_one_statement_count_what_sqlite_counts(
    memories: MemoryRegistry, pg_url: str, db_path: Path
) -> None:
    """The one-statement form (grouping sets) against the SQLite store's four statements."""
    counts = []
    for where in (db_path, pg_url):
        mem = memories.open(where)
        a = mem.remember("Alice likes hiking", scope="s", kind="preference", source="user_stated")
        b = mem.remember("Bob prefers tea", scope="s")
        c = mem.remember("Carol runs marathons", scope="s", source="user_stated")
        d = mem.remember("Dana keeps bees", scope="s", kind="fact")
        mem.remember("Erin sings", scope="other")
        mem.revise(a.id, "Alice loves hiking", scope="s")
        mem.forget(b.id, scope="s")
        mem.dismiss(c.id, scope="s")
        mem.set_tiers({d.id: "subconscious"}, scope="s")
        counts.append(mem.store.summary_counts("s"))
    assert counts[1] == counts[0]
    assert [list(v) for v in counts[1].values()] == [list(v) for v in counts[0].values()]  # same key order
    assert counts[1]["status"] and len(counts[1]["status"]) >= 3
