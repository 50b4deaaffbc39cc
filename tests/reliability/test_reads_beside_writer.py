"""Promise: reads never wait for a writer; writers wait (or fail clearly) for each other.

SQLite in WAL mode lets readers run beside one writer. A store held by another process's write
(``atomic``, and so every ``reverie import`` for its whole run) must still open and answer
reads from its last commit: the outside probe found ``Memory(path)`` and ``reverie list``
waiting the whole busy timeout and failing with ``error[storage]`` (opening took the write lock
to check the schema). A second writer still queues behind the first, and says so if it gives up.

``doctor`` reads its checks in one snapshot, so a write committed while it runs cannot show as
"rows in the full-text index have no matching item" on a healthy store (probe finding 8).

No timed assertions: the holder process says through a pipe when it is inside its block, and
stays there until the test writes a line to it; timeouts only guard against a hang.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atomic_holder import HANG_GUARD, AtomicHolder
from reverie import Memory
from reverie.errors import StorageError
from reverie.store.sqlite import SQLiteStore, schema

_WRITER = """
import sys
from reverie import Memory
mem = Memory(sys.argv[1], embedder="hash")
print("ready", flush=True)
for line in sys.stdin:
    mem.remember(line.strip(), scope="s")
    print("wrote", flush=True)
"""


def _reverie() -> str:
    return str(Path(sys.executable).with_name("reverie"))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "agent.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("Alice likes hiking", scope="s")
        mem.remember("Bob prefers tea", scope="s")
    return path


@pytest.fixture
def held(db: Path) -> Iterator[AtomicHolder]:
    """Another process inside ``mem.atomic(scope="s")`` with one uncommitted write, until released."""
    with AtomicHolder(db) as holder:
        yield holder
        holder.release()


def test_a_store_opens_and_reads_while_another_process_holds_the_write_lock(db: Path, held: AtomicHolder) -> None:
    with Memory(db, embedder="hash") as mem:  # was: StorageError "locked by another writer" after 30 s
        texts = sorted(i.text for i in mem.list(scope="s").items)
        assert texts == ["Alice likes hiking", "Bob prefers tea"]  # the last commit, not the held write
        assert len(mem.list(scope="s").items) == 2
        assert [h.item.text for h in mem.recall("hiking", scope="s", mode="lexical", record_use=False)] == [
            "Alice likes hiking"
        ]
        assert len(mem.events(scope="s")) == 2
        assert mem.doctor().ok
    assert held.holding  # the holder is still inside its block


def test_cli_reads_answer_while_another_process_holds_the_write_lock(db: Path, held: AtomicHolder) -> None:
    base = [_reverie(), "--db", str(db), "--scope", "s"]
    for args in (["list"], ["--json", "list"], ["export"], ["doctor"], ["summary"]):
        done = subprocess.run(base + args, capture_output=True, text=True, timeout=HANG_GUARD, check=False)
        assert done.returncode == 0, (args, done.stderr)  # was: exit 1, error[storage] after ~30 s
    listed = subprocess.run(
        [*base, "--json", "list"], capture_output=True, text=True, timeout=HANG_GUARD, check=True
    ).stdout
    assert "a write still in progress" not in listed
    assert held.holding


def test_a_second_writer_still_waits_and_then_fails_clearly(db: Path, held: AtomicHolder) -> None:
    store = SQLiteStore(db, busy_timeout_ms=50)  # the open itself no longer needs the write lock
    try:
        with Memory(store=store, embedder="hash") as mem:
            assert len(mem.list(scope="s").items) == 2
            with pytest.raises(StorageError, match="locked by another writer"):
                mem.remember("a second writer", scope="s")
            assert len(mem.list(scope="s").items) == 2
    finally:
        store.close()


def test_an_old_file_is_still_upgraded_on_its_first_writable_open(db: Path) -> None:
    """Opening writes nothing to a current file; a file that needs a step still gets it."""
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX edges_by_pair")
    conn.close()
    with Memory(db, embedder="hash") as mem:
        assert len(mem.list(scope="s").items) == 2
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'edges_by_pair'").fetchone()
    conn.close()
    assert found is not None


UNDO_ONE_STEP = {
    "schema version": "UPDATE settings SET v = '7' WHERE k = 'schema_version'",
    "conversation tables": "DELETE FROM settings WHERE k = 'conversation_schema'",
    "agenda tables": "DELETE FROM settings WHERE k = 'agenda_schema'",
    "idempotency table": "DELETE FROM settings WHERE k = 'idempotency_schema'",
    "term counts": "DELETE FROM settings WHERE k = 'fts_terms_counted_by'",
    "edges by type": "DROP INDEX edges_by_type",
    "edges by pair": "DROP INDEX edges_by_pair",
    "event refs trigger": "DROP TRIGGER event_refs_rewritten",
    "event refs watermark": "DELETE FROM settings WHERE k = 'event_refs_seq'",
}


@pytest.mark.parametrize("undo", sorted(UNDO_ONE_STEP))
def test_a_file_missing_any_one_migration_step_is_not_current_and_gets_it_on_open(db: Path, undo: str) -> None:
    """``schema.current`` lets an open skip the write lock: it must see every step ``migrate`` takes."""
    with sqlite3.connect(db) as conn:
        assert schema.current(conn)
        conn.execute(UNDO_ONE_STEP[undo])
    conn.close()
    with sqlite3.connect(db) as conn:
        assert not schema.current(conn)
    conn.close()
    with Memory(db, embedder="hash") as mem:
        assert len(mem.list(scope="s").items) == 2
    with sqlite3.connect(db) as conn:
        assert schema.current(conn)
    conn.close()


def test_opening_a_current_store_writes_nothing(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = conn.execute("PRAGMA data_version").fetchone()[0]
        with Memory(db, embedder="hash") as mem:
            assert len(mem.list(scope="s").items) == 2
        after = conn.execute("PRAGMA data_version").fetchone()[0]
    conn.close()
    assert after == before  # another connection committed nothing (was: the migration's settings rows)


# -- doctor: one snapshot ---------------------------------------------------------------------


@pytest.fixture
def writer(db: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that writes one claim each time it is sent a line, and says when it has."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert proc.stdout.readline().strip() == "ready"
        yield proc
        proc.stdin.close()
        assert proc.wait(timeout=HANG_GUARD) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


def test_doctor_reads_one_snapshot_while_another_process_commits(db: Path, writer: subprocess.Popen[str]) -> None:
    """The other process commits a claim after doctor has read the items and before it reads the
    indexes: doctor must check the state it started from, which is healthy."""
    assert writer.stdin is not None and writer.stdout is not None
    store = SQLiteStore(db)
    committed: list[str] = []

    def commit_between_reads(sql: str) -> None:
        if not committed and sql.startswith("SELECT rowid FROM fts"):
            writer.stdin.write("Carol writes code\n")  # type: ignore[union-attr]
            writer.stdin.flush()  # type: ignore[union-attr]
            committed.append(writer.stdout.readline().strip())  # type: ignore[union-attr]

    try:
        with Memory(store=store, embedder="hash") as mem:
            store._conn.set_trace_callback(commit_between_reads)
            report = mem.doctor()
            store._conn.set_trace_callback(None)
            assert committed == ["wrote"]  # the write landed while doctor ran
            assert report.problems == []  # was: "1 rows in the full-text index have no matching item", ...
            assert report.counts["current"] == 2
            assert mem.doctor().ok and mem.doctor().counts["current"] == 3  # the next run sees it
    finally:
        store.close()


def test_doctor_inside_an_atomic_block_sees_the_block_s_own_writes(db: Path) -> None:
    with Memory(db, embedder="hash") as mem, mem.atomic(scope="s"):
        mem.remember("Carol writes code", scope="s")
        report = mem.doctor()
        assert report.ok, report.problems
        assert report.counts["current"] == 3
