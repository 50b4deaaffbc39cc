"""The SQLite store's connection and transactions: one ``BEGIN IMMEDIATE`` per write.

Why this shape:
- ``BEGIN IMMEDIATE`` takes the write lock before the reducer reads state, so the checks it
  makes (versions, tombstones, corroboration) cannot be invalidated by another process
  between read and write.
- WAL lets readers run while one writer commits; ``busy_timeout`` makes writers queue instead
  of failing with "database is locked".
- Every ``sqlite3`` error is translated into a ``StorageError`` (or a more precise
  ``ReverieError``) so no bare driver error reaches a caller.

``SQLiteBase`` is the bottom layer of ``SQLiteStore`` (``store.py`` says how the layers stack):
opening and configuring the file, the write / read / snapshot transactions every other layer
runs its statements in, and closing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from reverie.errors import ClosedError, CorruptStoreError, ReverieError, StorageError
from reverie.model.clock import to_iso
from reverie.store import idempotency
from reverie.store.blocks import refused_in_block, refused_in_snapshot
from reverie.store.protocol import BUSY_TIMEOUT_MS, WriteLockBusy
from reverie.store.sqlite import event_refs, fts_scope, purge, readonly
from reverie.store.sqlite import idempotency as keys
from reverie.store.sqlite.ann import AnnConfig, AnnManager
from reverie.store.sqlite.foreign import check_reverie_file
from reverie.store.sqlite.schema import FTS_TOKENIZE_DEFAULT, migrate
from reverie.store.sqlite.schema import current as schema_current
from reverie.store.sqlite.vectors import VectorCache

DURABILITY = {"full": "FULL", "fast": "NORMAL"}
#: A WAL larger than this (twice what wal_autocheckpoint's 1000 pages normally allows) is restarted
#: after the next commit: see ``SQLiteStore._restart_wal_if_large``.
_WAL_RESTART_BYTES = 8 * 2**20
#: A vector row is tagged with the embedder recorded when it is written (``made_by``, schema 4).
_INSERT_VECTOR = (
    "INSERT INTO vectors (n, scope, vec, made_by) VALUES (?, ?, ?, (SELECT v FROM settings WHERE k = 'embedder'))"
)


def _storage_error(exc: sqlite3.Error) -> ReverieError:
    """Translate a driver error into the stable tree, saying what happened and what to do.

    SQLite's result code (``sqlite_errorname``) decides where it has one: the message text of an
    I/O error ("disk I/O error") names neither the cause nor whether the write took effect. The
    text is the fallback for errors raised without a code. Every write runs in one transaction
    that SQLite rolls back on these errors, so "nothing was changed" holds for all of them.
    """
    text = str(exc)
    name = str(getattr(exc, "sqlite_errorname", None) or "")
    detail = f"{text}, {name}" if name else text
    if isinstance(exc, sqlite3.DatabaseError) and (name.startswith("SQLITE_CORRUPT") or "malformed" in text):
        return CorruptStoreError(f"the store file is damaged ({detail}); restore a backup")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
        return StorageError(f"the store stayed locked by another writer past the busy timeout ({detail}); retry")
    if name == "SQLITE_FULL" or "full" in text:
        return StorageError(
            f"the disk holding the store is full ({detail}); nothing was changed; free space and retry "
            "(the same Memory works again once there is room)"
        )
    if name.startswith("SQLITE_IOERR") or "I/O error" in text:
        return StorageError(
            f"the operating system failed a read or write of the store file ({detail}); nothing was changed; "
            "check the disk or file system (kernel log, quota, file-size limit) and retry"
        )
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")):
        # CANTOPEN also covers the -wal / -shm files WAL mode creates beside the store.
        return StorageError(
            f"the store file or its -wal / -shm companions cannot be opened for writing ({detail}); nothing was "
            "changed; check that the path is a file in an existing, writable directory (not a read-only mount)"
        )
    return StorageError(f"storage failure: {detail}")


class SQLiteBase:
    """A store in one SQLite file (or ``:memory:``). Thread-safe: one connection behind a lock."""

    def __init__(
        self,
        path: str | Path,
        *,
        durability: str = "full",
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        fts_tokenize: str = FTS_TOKENIZE_DEFAULT,
        ann: AnnConfig | None = None,
        read_only: bool = False,
    ) -> None:
        if durability not in DURABILITY:
            from reverie.errors import InvalidInputError

            raise InvalidInputError(f"durability must be 'full' or 'fast', got {durability!r}")
        self.path = str(path)
        #: Opened for inspection: every write raises ``ReadOnlyError`` before touching the file.
        self.read_only = bool(read_only)
        self._lock = threading.RLock()
        self._closed = False
        self._crash_hook: Callable[[str], None] | None = None  # test-only: called before each statement
        # Test-only: called after a purge commits and before its file scrub (a crash there is tested).
        self._scrub_hook: Callable[[], None] | None = None
        # The term and counter moves of the open write, written once before it commits (fts_scope.Pending).
        self._pending = fts_scope.Pending()
        # New items' vector rows, written after the transaction's full-text rows (``_write_vectors``).
        self._new_vectors: list[tuple[int, str, bytes]] = []
        self._atomic = False  # inside ``atomic``: each write is a savepoint of its transaction
        self._reading = False  # inside ``read_snapshot``: every write is refused
        self._scrub_due = False  # a purge inside ``atomic``: the file is scrubbed once the block commits
        self._busy_timeout_ms = int(busy_timeout_ms)  # restored after a write that did not wait
        timeout = busy_timeout_ms / 1000
        try:
            if self.read_only:
                self._conn = readonly.connect(self.path, timeout)
            else:
                self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=timeout)
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None
        try:
            if self.read_only:
                self._configure_read_only(busy_timeout_ms)
            else:
                self._configure(durability, busy_timeout_ms)
                self._migrate(fts_tokenize)
            # A read-only open of a file no writer of this reverie has opened yet has no index of
            # the log: its item reads scan the log, as before (``events``).
            self._event_refs = event_refs.available(self._conn)
        except BaseException:
            self._conn.close()
            raise
        self._vectors = VectorCache()
        # Large scopes search an IVF index instead of the exact scan (``ann.py``); ``ann`` sets when.
        # Read-only: no sidecar is written beside the file (an index built for a search stays in memory).
        cfg = ann or AnnConfig()
        self._ann = AnnManager(self.path, dataclasses.replace(cfg, persist=False) if self.read_only else cfg)
        if self.read_only:
            return  # a read-only open cannot finish a pending scrub: the marker stays for the next writer
        try:
            self._finish_pending_scrub()
        except BaseException:
            self._conn.close()
            raise

    def _migrate(self, fts_tokenize: str) -> None:
        """Bring the file to the current schema, taking the write lock only if it needs a step.

        Why: a current file needs no write, and the write lock is what another process's long
        write (an import's ``atomic`` block) holds for its whole run; an open that took it for
        nothing waited the busy timeout and failed, though WAL lets reads run beside a writer
        (outside probe 5, finding 6). The check reads in one transaction, so it sees one commit.
        """
        c = self._conn
        try:
            c.execute("BEGIN")
            try:
                ready = schema_current(c)
            finally:
                c.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None
        # A file this process may not write (chmod 0444, a read-only mount) still takes the locked
        # path, whose write fails at once: such an open is refused with the fix, as before.
        if not ready or not (self.path == ":memory:" or os.access(self.path, os.W_OK)):
            with self._write():
                migrate(c, fts_tokenize)

    def _finish_pending_scrub(self) -> None:
        """A purge committed but its process died before scrubbing the file: scrub it now.

        Best effort: if other connections keep the WAL busy the open still succeeds, the marker
        stays (``doctor`` reports it) and the next purge or open tries again. A reader holding a
        snapshot would make each TRUNCATE checkpoint wait the whole busy timeout (2 x 30 s by
        default) inside the constructor, so this waits 250 ms instead.
        """
        if self.path == ":memory:":
            return
        with self._lock:
            c = self._conn
            try:
                if not purge.scrub_pending(c):
                    return
                self._ann.clear(drop_files=True)  # as the purge itself: a sidecar may hold a purged vector
                timeout = int(c.execute("PRAGMA busy_timeout").fetchone()[0])
                c.execute("PRAGMA busy_timeout = 250")
                try:
                    with contextlib.suppress(StorageError):
                        self._scrub()
                finally:
                    c.execute(f"PRAGMA busy_timeout = {timeout}")
            except sqlite3.Error as exc:
                raise _storage_error(exc) from None

    def _scrub(self) -> None:
        """``purge.scrub_file`` with ``secure_delete`` on, restored afterwards."""
        previous = int(self._conn.execute("PRAGMA secure_delete").fetchone()[0])
        self._conn.execute("PRAGMA secure_delete = ON")
        try:
            purge.scrub_file(self._conn, self.path)
        finally:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute(f"PRAGMA secure_delete = {previous}")

    def scrub_pending(self) -> bool:
        """True while a committed purge has not finished rewriting the file (see ``purge.scrub_file``)."""
        with self._read() as c:
            return self.path != ":memory:" and purge.scrub_pending(c)

    def _configure_read_only(self, busy_timeout_ms: int) -> None:
        try:
            readonly.configure(self._conn, self.path, busy_timeout_ms)
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None

    def _configure(self, durability: str, busy_timeout_ms: int) -> None:
        c = self._conn
        try:
            c.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            # Before WAL mode, which rewrites the file's header: another application's database
            # must be refused before any byte of it changes (``foreign.py``).
            check_reverie_file(c, self.path)
            if self.path != ":memory:":
                mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":  # pragma: no cover - e.g. a read-only medium
                    raise StorageError(f"could not switch {self.path} to WAL mode (got {mode})")
            c.execute(f"PRAGMA synchronous = {DURABILITY[durability]}")
            c.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None

    # -- transactions ---------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError("this Memory is closed; open a new one")

    @contextmanager
    def _write(self, *, wait: bool = True) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any error, under the connection lock.

        ``wait=False``: the BEGIN alone runs with a busy timeout of 0, so a lock held by another
        connection raises ``WriteLockBusy`` at once instead of after the busy timeout.
        """
        with self._lock:
            # Writers other than ``execute`` (set_embedder, reindex, rebuild) must also report
            # ClosedError, not the driver's "Cannot operate on a closed database" as a StorageError.
            self._check_open()
            if self.read_only:
                raise readonly.refusal(self.path)
            if self._reading:
                raise refused_in_snapshot()
            if self._atomic:
                with self._savepoint() as c:
                    yield c
                return
            c = self._conn
            self._begin_immediate(c, wait)
            try:
                yield c
                self._flush()
                c.execute("COMMIT")
            except BaseException as exc:
                self._pending.clear()  # moves of a rolled-back write are not written later
                self._new_vectors.clear()
                # A disk-full error has already rolled the transaction back: ROLLBACK then
                # would raise "no transaction is active" and mask the real error.
                if c.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # nothing more to undo
                        c.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _storage_error(exc) from None
                raise
            self._restart_wal_if_large(c)

    def _begin_immediate(self, c: sqlite3.Connection, wait: bool) -> None:
        """``BEGIN IMMEDIATE``; without ``wait``, under a zero busy timeout restored right after."""
        try:
            if wait:
                c.execute("BEGIN IMMEDIATE")
                return
            c.execute("PRAGMA busy_timeout = 0")
            try:
                c.execute("BEGIN IMMEDIATE")
            finally:
                c.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
        except sqlite3.Error as exc:
            name = str(getattr(exc, "sqlite_errorname", None) or "")
            if not wait and not c.in_transaction and (name.startswith("SQLITE_BUSY") or "locked" in str(exc)):
                raise WriteLockBusy(
                    f"another writer holds the write lock of {self.path}; nothing was written"
                ) from None
            raise _storage_error(exc) from None

    @contextmanager
    def _savepoint(self) -> Iterator[sqlite3.Connection]:
        """A write inside ``atomic``: a savepoint, so the call stays all or nothing on its own (a
        batch refused half-way leaves none of its commands) while the block decides what commits."""
        c = self._conn
        if not c.in_transaction:
            # SQLite rolled the block back itself (a full disk): a SAVEPOINT now would open a new
            # transaction, and this write would commit without the block's earlier ones.
            raise StorageError("the store rolled back this atomic block after a storage failure; nothing was written")
        try:
            self._flush()  # what earlier writes of the block hold back is theirs, not this savepoint's
            c.execute("SAVEPOINT nested")
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None
        try:
            yield c
            self._flush()
            c.execute("RELEASE nested")
        except BaseException as exc:
            self._pending.clear()
            self._new_vectors.clear()
            if c.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    c.execute("ROLLBACK TO nested")
                    c.execute("RELEASE nested")
            self._forget_caches()
            if isinstance(exc, sqlite3.Error):
                raise _storage_error(exc) from None
            raise

    def _forget_caches(self) -> None:
        """After a rollback inside a transaction that may have read: the vector counters went back, so
        a matrix cached meanwhile could match them again with rows that are gone (``vectors.py``)."""
        self._vectors.clear()
        self._ann.clear()

    @contextmanager
    def atomic(self, scope: str, *, wait: bool = True) -> Iterator[None]:
        """The block's writes in one ``BEGIN IMMEDIATE``, each a savepoint (see ``Store.atomic``).

        A purge inside the block is scrubbed from the file after the block commits: ``VACUUM``
        cannot run inside a transaction, and a rolled-back block has nothing to scrub.
        """
        self._check_open()
        claim = idempotency.pending()
        if claim is not None:
            idempotency.in_scope(scope, claim.claim)
        with self._lock:
            outer = not self._atomic
            try:
                with self._write(wait=wait):
                    keys.claim(self._x, claim)
                    self._atomic = True
                    try:
                        with idempotency.carried(claim):
                            yield
                    finally:
                        self._atomic = not outer
            except BaseException:
                if outer:
                    self._scrub_due = False
                    self._forget_caches()
                raise
            idempotency.written(claim)
            if outer and self._scrub_due:
                self._scrub_due = False
                if self._scrub_hook is not None:
                    self._scrub_hook()
                self._scrub()

    def _restart_wal_if_large(self, c: sqlite3.Connection) -> None:
        """After a commit, restart a WAL that has outgrown its checkpoints (the write is already done).

        SQLite's automatic checkpoint is PASSIVE: it never waits for readers, so while some reader
        always holds a snapshot (processes reading in turn) the WAL can never restart and grows
        without bound — checkpoint starvation; the soak saw a 1.3 GB WAL beside a 54 MB database,
        and reads slow down as it grows. Past ``_WAL_RESTART_BYTES`` a TRUNCATE checkpoint waits
        briefly for readers of older snapshots (new readers stop needing the WAL once it is copied
        back) and empties it. It never fails the write: if readers outlast the wait, a later commit
        tries again.
        """
        if self.path == ":memory:":
            return
        try:
            if Path(f"{self.path}-wal").stat().st_size <= _WAL_RESTART_BYTES:
                return
        except OSError:
            return
        with contextlib.suppress(sqlite3.Error):
            timeout = int(c.execute("PRAGMA busy_timeout").fetchone()[0])
            c.execute("PRAGMA busy_timeout = 250")
            try:
                c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                c.execute(f"PRAGMA busy_timeout = {timeout}")

    @contextmanager
    def _read(self, *, flush: bool = True) -> Iterator[sqlite3.Connection]:
        """The connection under the lock. A read inside this thread's open write (a step of
        ``execute_steps`` that recalls) first writes what the write holds back (``_flush``), so it
        sees it; ``flush=False`` for the reducer's per-command reads of tables that never wait."""
        with self._lock:
            self._check_open()
            try:
                if flush and (self._pending or self._new_vectors):
                    self._flush()
                yield self._conn
            except sqlite3.Error as exc:
                raise _storage_error(exc) from None

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """``_read`` inside one read transaction: every statement sees the same commit.

        Why: outside a transaction each statement reads the newest commit, so a check that reads
        the items and then the indexes saw another process's write in the indexes only and
        reported drift on a healthy store (outside probe 5, finding 8). A WAL read transaction
        never waits for a writer. Inside this thread's open write it is that write's view.
        """
        with self._read() as c:
            if c.in_transaction:
                yield c
                return
            c.execute("BEGIN")
            try:
                yield c
            finally:
                if c.in_transaction:
                    c.execute("COMMIT")  # nothing was written: ends the read, whatever happened

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """The block's reads in one read transaction (``Store.read_snapshot``, ``_snapshot``).

        WAL gives the transaction the snapshot its first read takes, so a write another connection
        commits meanwhile is in none of the block's reads; writers never wait for it. The store lock
        is held for the block (this store's other threads wait, as for ``doctor``). A write inside
        is refused (``_write``): ``BEGIN IMMEDIATE`` cannot open inside the read transaction.
        """
        with self._snapshot():
            outer = not self._reading
            self._reading = True
            try:
                yield
            finally:
                if outer:
                    self._reading = False

    def _flush(self) -> None:
        """Write what the open transaction holds back: new vector rows, then the summed term and
        counter moves (``fts_scope.Pending``)."""
        self._write_vectors()
        if self._pending:
            self._pending.flush(self._x, self._xmany)

    def _write_vectors(self) -> None:
        """Insert the new items' vector rows held back by ``_put_item``.

        Why they wait: ``vectors`` has an insert trigger (``schema._made_by_trigger``), so each
        insert runs in a statement savepoint, and opening a savepoint makes FTS5 write its pending
        in-memory terms out as a new segment. Inserted after each item's full-text row, the vector
        made FTS5 write one segment per item (and merge them) instead of one per transaction: 8 %
        of a batched write's instructions. Everything that reads or moves vector rows inside the
        write runs after this (``apply_change`` for any other change, ``_read``, the commit).
        """
        if self._new_vectors:
            rows, self._new_vectors = self._new_vectors, []
            self._xmany(_INSERT_VECTOR, rows)

    def _x(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Execute inside a write; the crash hook lets tests kill a command at any statement."""
        if self._crash_hook is not None:
            self._crash_hook(sql)
        return self._conn.execute(sql, params)

    def _xmany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """``executemany`` inside a write, through the same crash hook as ``_x``."""
        if self._crash_hook is not None:
            self._crash_hook(sql)
        self._conn.executemany(sql, rows)

    def in_atomic(self) -> bool:
        with self._lock:  # another thread's block is waited for: True only for this thread's own
            return self._atomic

    def close(self) -> None:
        with self._lock:
            if self._atomic:
                raise refused_in_block("close()")
            if not self._closed:
                with contextlib.suppress(ReverieError, sqlite3.Error):
                    self._ann.persist(self._conn)  # a cache: a reopen catches up or rebuilds without it
                self._closed = True
                self._conn.close()

    def now_iso(self, when: datetime) -> str:
        return to_iso(when)
