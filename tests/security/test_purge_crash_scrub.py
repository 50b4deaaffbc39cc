"""Finding 4 (issue #14): a crash between a purge's commit and its file scrub must not leave the
erased bytes on disk for good.

The purge commits first (every read is clean from then on), then rewrites the file (``VACUUM``)
and empties the WAL. A process killed in between left old page images in the WAL and in free
pages with nothing to redo the scrub. Now the purge's own transaction writes a "scrub pending"
marker, the scrub clears it, and opening a store that still has it finishes the scrub first.
The kill is a real SIGKILL of a child process at that exact point (``SQLiteStore._scrub_hook``).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import sqlite3
from pathlib import Path

import pytest

from reverie import Memory, StorageError
from reverie.model.redact import REDACTED
from reverie.store.sqlite import SQLiteStore

from .kit import found_on_disk
from .workers import SCOPE, purge_killed_before_scrub

CANARY = "Wc8Crash3Scrub"


def _killed_purge(db: Path) -> None:
    proc = mp.get_context("spawn").Process(target=purge_killed_before_scrub, args=(str(db), CANARY))
    proc.start()
    proc.join(120)
    assert proc.exitcode == -signal.SIGKILL, proc.exitcode


def test_opening_a_store_after_a_crash_between_purge_commit_and_scrub_finishes_the_scrub(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    _killed_purge(db)
    assert found_on_disk(db, [CANARY]) != {}  # the crash really left the old bytes behind
    with Memory(db, embedder="hash") as mem:
        assert found_on_disk(db, [CANARY]) == {}  # scrubbed on open, before any call
        purged = [i for i in mem.list(scope=SCOPE, include_closed=True, limit=1000).items if "purged" in i.flags]
        assert len(purged) == 2 and {i.text for i in purged} == {REDACTED}
        assert mem.doctor().ok
        assert isinstance(mem.store, SQLiteStore)
        assert mem.store.scrub_pending() is False
        mem.remember("writes work after the recovery", scope=SCOPE)
    assert found_on_disk(db, [CANARY]) == {}
    with Memory(db, embedder="hash") as again:  # nothing pending: a plain open
        assert again.store.scrub_pending() is False  # type: ignore[attr-defined]


def test_a_scrub_blocked_by_a_reader_stays_pending_is_reported_and_the_next_open_finishes_it(tmp_path: Path) -> None:
    db = tmp_path / "held.db"
    mem = Memory(store=SQLiteStore(db, busy_timeout_ms=200), embedder="hash")
    try:
        item = mem.remember(f"the alarm code is {CANARY}", scope=SCOPE)
        reader = sqlite3.connect(db)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM items").fetchone()  # holds a snapshot: the WAL cannot be emptied
            with pytest.raises(StorageError, match="purge is committed"):
                mem.forget(item.id, scope=SCOPE, purge=True)
            assert isinstance(mem.store, SQLiteStore) and mem.store.scrub_pending()
            assert any("scrub did not finish" in p for p in mem.doctor().problems)
            with Memory(db, embedder="hash") as blocked:  # opening while still held: works, stays pending
                assert blocked.store.scrub_pending()  # type: ignore[attr-defined]
        finally:
            reader.close()
    finally:
        mem.close()
    with contextlib.closing(sqlite3.connect(db)) as raw:  # still marked after every connection closed
        assert raw.execute("SELECT v FROM settings WHERE k = 'purge_scrub_pending'").fetchall() == [("1",)]
    with Memory(db, embedder="hash") as again:
        assert not again.store.scrub_pending()  # type: ignore[attr-defined]
        assert again.doctor().ok
    assert found_on_disk(db, [CANARY]) == {}
