"""Promise 1, faults: disk full and I/O errors surface as ``StorageError``, change nothing, and pass.

Each test puts the store on its own small tmpfs (a real file system with a real size limit) and
produces the fault in the kernel, not in Python:

- **Disk full**: a ballast file takes every free block, so SQLite's next write to the WAL gets
  ``ENOSPC`` (``SQLITE_FULL``). With a few KiB left instead, a batch runs out of room half-way.
- **I/O error**: the process's file-size limit (``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored) is
  lowered below the WAL's end, so the kernel fails each write with ``EFBIG``; SQLite reports it
  as ``SQLITE_IOERR_WRITE``, the code a failing disk's ``EIO`` gives. Remounting the tmpfs
  read-only mid-session would be the obvious fault, but the kernel refuses it (``EBUSY``) while
  SQLite holds the file open for writing; a store opened on a read-only mount is tested apart.

Every failed call must raise ``StorageError`` (code ``storage``) with a message naming the cause,
leave the event log, the projections and the committed file exactly as they were, keep
``doctor`` clean, and the *same* ``Memory`` object must write and recall again once the fault
clears. The tests skip, saying why, where ``mount`` is refused (not root, no CAP_SYS_ADMIN).
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import signal
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory, StorageError

SCOPE = "faults"
TMPFS_BYTES = 8 * 2**20  # room for the store and its WAL; small enough to fill in milliseconds


class Tmpfs:
    """A mounted tmpfs plus the memories opened on it, closed before it is unmounted."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.db = root / "reverie.db"
        self.ballast = root / "ballast"
        self.opened: list[Memory] = []

    def open(self, **kwargs: Any) -> Memory:
        mem = Memory(self.db, embedder="hash", seed=0, **kwargs)
        self.opened.append(mem)
        return mem

    def free_bytes(self) -> int:
        st = os.statvfs(self.root)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int = 0) -> None:
        """Write a ballast file until at most ``leave`` bytes (rounded to a page) stay free."""
        with open(self.ballast, "ab", buffering=0) as f:
            for chunk in (2**20, 2**16, 4096):
                with contextlib.suppress(OSError):  # ENOSPC ends this chunk size; a smaller one goes on
                    while self.free_bytes() - chunk >= leave:
                        f.write(bytes(chunk))
            if leave == 0:
                with pytest.raises(OSError) as full:
                    while True:
                        f.write(bytes(4096))
                assert full.value.errno == errno.ENOSPC

    def clear(self) -> None:
        self.ballast.unlink(missing_ok=True)

    def truncate_wal(self) -> None:
        """Empty the WAL (from a second connection, as any other process could).

        SQLite reuses an existing WAL file from its start after a checkpoint, so without this a
        small write would still fit in space the WAL already holds and succeed — correctly — on
        a full disk. Truncated, every write needs new blocks.
        """
        with contextlib.closing(sqlite3.connect(self.db)) as c:
            busy, _, _ = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0 and (self.root / "reverie.db-wal").stat().st_size == 0


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Tmpfs]:
    root = tmp_path / "tmpfs"
    root.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CAP_SYS_ADMIN); the fault tests need a real full disk")
    mounted = _run("mount", "-t", "tmpfs", "-o", f"size={TMPFS_BYTES},mode=0700", "reverie-faults", str(root))
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs was refused ({mounted.stderr.strip()}); the fault tests need a real small disk")
    fs = Tmpfs(root)
    try:
        yield fs
    finally:
        for mem in fs.opened:
            mem.close()
        _run("mount", "-o", "remount,rw", str(root))
        unmounted = _run("umount", str(root))
        if unmounted.returncode != 0:  # never leave a mount behind, even if something still holds it
            _run("umount", "-l", str(root))
            pytest.fail(f"umount {root} failed ({unmounted.stderr.strip()}): something kept the store open")


@contextlib.contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Until exit, the kernel fails this process's writes past ``limit`` bytes of any file (EFBIG).

    ``SIGXFSZ`` is ignored meanwhile (its default action kills the process), and both the limit
    and the handler are restored even if the body fails.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


def seed(mem: Memory) -> dict[str, str]:
    """A small population dream has work on: corroborations, a keyed claim, an edge, a revision."""
    kettle = mem.remember("the kettle is in the second cupboard", scope=SCOPE, tags=["kitchen"])
    tea = mem.remember("Alice drinks green tea", scope=SCOPE, key="alice.drink", value="green tea")
    for i in range(12):
        mem.remember(f"Bob waters the ferns on day {i % 3}", scope=SCOPE, importance=0.2 + 0.05 * i)
    mem.link(kettle.id, tea.id, "about", scope=SCOPE)
    mem.revise(tea.id, "Alice drinks green tea, no sugar", scope=SCOPE)
    return {"kettle": kettle.id, "tea": tea.id}


def state(mem: Memory) -> dict[str, Any]:
    """Everything a write could change, as the Memory sees it."""
    return {
        "events": [e.seq for e in mem.events(scope=SCOPE, limit=100_000)],
        "items": mem.list(scope=SCOPE, include_closed=True, limit=1000, sort="id").items,
        "edges": mem.edges(scope=SCOPE, include_closed=True),
        "summary": mem.summary(scope=SCOPE),
    }


def committed(db: Path) -> tuple[int, int, int]:
    """(events, items, fingerprints) as a *separate* connection reads them: what is really in the file."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c:
        return (
            c.execute("SELECT count(*) FROM events").fetchone()[0],
            c.execute("SELECT count(*) FROM items").fetchone()[0],
            c.execute("SELECT count(*) FROM fingerprints").fetchone()[0],
        )


def writes(ids: dict[str, str]) -> dict[str, Callable[[Memory], Any]]:
    return {
        "remember": lambda m: m.remember("the teapot is on the top shelf", scope=SCOPE),
        "remember_many": lambda m: m.remember_many([f"batch fact {i} about shelves" for i in range(20)], scope=SCOPE),
        "revise": lambda m: m.revise(ids["kettle"], "the kettle is in the third cupboard", scope=SCOPE),
        "dream": lambda m: m.dream(scope=SCOPE),
    }


def assert_refused_and_unchanged(fs: Tmpfs, mem: Memory, ids: dict[str, str], cause: str) -> list[str]:
    """Every write path fails with StorageError naming ``cause``; nothing changed anywhere."""
    before, on_disk = state(mem), committed(fs.db)
    messages = []
    for name, call in writes(ids).items():
        with pytest.raises(StorageError) as info:
            call(mem)
        err = info.value
        assert type(err) is StorageError and err.code == "storage", name
        assert cause in err.message and "nothing was changed" in err.message, f"{name}: {err.message}"
        assert not isinstance(err, sqlite3.Error) and err.__cause__ is None  # no driver error leaks out
        messages.append(err.message)
        assert state(mem) == before, f"{name} left a partial change behind"
        assert committed(fs.db) == on_disk, f"{name} left a partial change in the file"
    report = mem.doctor()
    assert report.ok, report.problems
    return messages


def assert_works_again(mem: Memory, ids: dict[str, str]) -> None:
    """The same Memory object writes (every path that failed) and recalls after the fault clears."""
    before = len(mem.events(scope=SCOPE, limit=100_000))
    fresh = mem.remember("the teapot is on the top shelf", scope=SCOPE)
    mem.remember_many([f"batch fact {i} about shelves" for i in range(20)], scope=SCOPE)
    mem.revise(ids["kettle"], "the kettle is in the third cupboard", scope=SCOPE)
    assert mem.dream(scope=SCOPE).skipped is None  # the failed pass left no lease behind
    assert fresh.id in {h.item.id for h in mem.recall("where is the teapot", scope=SCOPE, k=5)}
    assert len(mem.events(scope=SCOPE, limit=100_000)) >= before + 23
    assert mem.doctor().ok


def test_disk_full_refuses_every_write_changes_nothing_and_recovers(tmpfs: Tmpfs) -> None:
    mem = tmpfs.open()
    ids = seed(mem)
    tmpfs.truncate_wal()
    tmpfs.fill()
    # SQLite keeps the descriptor of a closed connection open while another connection of the
    # process holds locks on the file (closing it would drop their POSIX locks), and reuses it on
    # the next open: read the file once so the count below measures the failed writes alone.
    committed(tmpfs.db)
    fds = len(os.listdir("/proc/self/fd"))
    messages = assert_refused_and_unchanged(tmpfs, mem, ids, "disk holding the store is full")
    assert "SQLITE_FULL" in messages[0]
    assert len(os.listdir("/proc/self/fd")) == fds  # a failed write leaks no descriptor
    tmpfs.clear()
    assert_works_again(mem, ids)


def test_a_batch_that_runs_out_of_room_half_way_leaves_none_of_it(tmpfs: Tmpfs) -> None:
    """With 256 KiB free, a 40-item batch of 2 KB claims (about 1 MB of WAL) fills the disk part-way through its
    transaction: not one of its items (or events) may survive."""
    mem = tmpfs.open()
    ids = seed(mem)
    tmpfs.truncate_wal()
    tmpfs.fill(leave=256 * 1024)
    mem.remember("a small write still fits", scope=SCOPE)  # the disk is nearly, not quite, full
    before, on_disk = state(mem), committed(tmpfs.db)
    batch = [f"shelf {i}: " + "a long inventory line. " * 90 for i in range(40)]
    with pytest.raises(StorageError, match="full"):
        mem.remember_many(batch, scope=SCOPE)
    assert state(mem) == before and committed(tmpfs.db) == on_disk
    assert mem.doctor().ok
    tmpfs.clear()
    assert len(mem.remember_many(batch, scope=SCOPE)) == 40
    assert_works_again(mem, ids)


def test_io_error_refuses_every_write_changes_nothing_and_recovers(tmpfs: Tmpfs) -> None:
    mem = tmpfs.open()
    ids = seed(mem)
    tmpfs.truncate_wal()
    with file_size_limit(0):
        messages = assert_refused_and_unchanged(tmpfs, mem, ids, "operating system failed a read or write")
    assert "SQLITE_IOERR" in messages[0]
    assert_works_again(mem, ids)


def test_open_on_a_full_disk_raises_storage_error_then_opens_once_there_is_room(tmpfs: Tmpfs) -> None:
    tmpfs.fill()
    fds = len(os.listdir("/proc/self/fd"))
    with pytest.raises(StorageError, match="full") as info:
        tmpfs.open()
    assert type(info.value) is StorageError
    assert len(os.listdir("/proc/self/fd")) == fds  # the half-opened connection was closed
    tmpfs.clear()
    mem = tmpfs.open()
    mem.remember("opened once there was room", scope=SCOPE)
    assert mem.doctor().ok


def test_store_on_a_read_only_file_system_is_refused_with_storage_error(tmpfs: Tmpfs) -> None:
    with Memory(tmpfs.db, embedder="hash") as mem:
        mem.remember("written before the file system went read-only", scope=SCOPE)
    remount = _run("mount", "-o", "remount,ro", str(tmpfs.root))
    assert remount.returncode == 0, remount.stderr
    with pytest.raises(StorageError, match="cannot be opened for writing") as info:
        tmpfs.open()
    assert type(info.value) is StorageError and "read-only mount" in info.value.message
    assert _run("mount", "-o", "remount,rw", str(tmpfs.root)).returncode == 0
    mem = tmpfs.open()
    assert [i.text for i in mem.list(scope=SCOPE).items] == ["written before the file system went read-only"]
