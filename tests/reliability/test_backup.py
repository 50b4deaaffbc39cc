"""Promise: ``Memory.backup(path)`` writes a consistent, openable copy even while the source is
being written.

A writer thread keeps remembering (through its own ``Memory`` on the same file, or through the
very object being backed up) while the test takes backups. Each backup passes
``integrity_check`` and ``doctor()``, holds every write acknowledged before it began, invents
nothing, and is a *prefix* of the writer's acknowledged sequence (a snapshot, not a torn copy);
each item reads back identical to the source.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from reverie import Memory

SCOPE = "bk"


def all_ids(mem: Memory) -> list[str]:
    """Ids in creation order (ids are time-ordered uuid7; one writer thread makes them)."""
    return sorted(i.id for i in mem.list(scope=SCOPE, include_closed=True, limit=1000).items)


@pytest.mark.parametrize("writer", ["own-connection", "same-object"])
def test_backup_while_another_thread_writes(tmp_path: Path, writer: str) -> None:
    db = tmp_path / "source.db"
    mem = Memory(db, embedder="hash")
    writing = Memory(db, embedder="hash") if writer == "own-connection" else mem
    acked: list[str] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        i = 0
        try:
            while not stop.is_set() and i < 900:
                acked.append(writing.remember(f"note {i}: written during a backup", scope=SCOPE).id)
                i += 1
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while len(acked) < 20:
            assert time.monotonic() < deadline and not errors, errors
            time.sleep(0.005)
        sizes = []
        for n in range(4):
            done_before = len(acked)
            target = tmp_path / f"backup{n}.db"
            mem.backup(target)
            done_after = len(acked)
            con = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
            try:
                assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            finally:
                con.close()
            with Memory(target, embedder="hash") as copy:
                ids = all_ids(copy)
                assert copy.doctor().ok
                assert len(ids) >= done_before  # every write acknowledged before the backup began
                assert ids == acked[: len(ids)]  # a prefix of the acknowledged sequence: no holes
                assert len(ids) <= done_after + 1  # at most the write in flight as the copy ended
                source = mem.store.get_many(SCOPE, ids)
                assert [copy.get(i, scope=SCOPE) for i in ids] == [source[i] for i in ids]
                hits = copy.recall("written during a backup", scope=SCOPE, k=3, record_use=False)
                assert {h.item.id for h in hits} <= set(ids) and hits
            sizes.append(len(ids))
            time.sleep(0.02)
        assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
    finally:
        stop.set()
        thread.join(60)
        if writing is not mem:
            writing.close()
        mem.close()
    assert errors == []


def test_backup_of_an_in_memory_store_and_over_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "existing.db"
    with Memory(target, embedder="hash") as old:
        old.remember("this file is about to be replaced", scope="old")
    with Memory(":memory:", embedder="hash") as mem:
        items = [mem.remember(f"in-memory note {i}", scope=SCOPE) for i in range(5)]
        mem.backup(target, overwrite=True)  # another store holding events: replaced only on purpose
    with Memory(target, embedder="hash") as copy:
        assert copy.scopes() == [SCOPE]
        assert [copy.get(i.id, scope=SCOPE) for i in items] == items
        assert copy.doctor().ok
