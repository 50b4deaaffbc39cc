"""The SQLite store: event log + projections in one file, one ``BEGIN IMMEDIATE`` per write.

Why this shape:
- ``BEGIN IMMEDIATE`` takes the write lock before the reducer reads state, so the checks it
  makes (versions, tombstones, corroboration) cannot be invalidated by another process
  between read and write.
- WAL lets readers run while one writer commits; ``busy_timeout`` makes writers queue instead
  of failing with "database is locked".
- Every ``sqlite3`` error is translated into a ``StorageError`` (or a more precise
  ``ReverieError``) so no bare driver error reaches a caller.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from reverie.errors import ClosedError, CorruptStoreError, ReverieError, StorageError
from reverie.model.agenda import Intent, IntentQuery, PutIntent, PutTask, Task, TaskQuery
from reverie.model.clock import from_iso, to_iso
from reverie.model.commands import Command, Purge, erases_content
from reverie.model.conversation import ConversationState, EraseEntries, PutConversation, PutEntry, SetEntryVisibility
from reverie.model.conversation import Entry as ConversationEntry
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.projection import (
    SUPERSEDED_PREFIX,
    Change,
    DropTombstone,
    EraseContent,
    ProjectionView,
    PutEdge,
    PutItem,
    PutTiers,
    PutTombstone,
    SetPaused,
    project,
    superseded_prints,
)
from reverie.model.query import Filter, Sort
from reverie.model.validate import fingerprints
from reverie.model.values import value_text
from reverie.store import evidence, idempotency
from reverie.store.blocks import refused_in_block
from reverie.store.engine import batch_runner, run_commands
from reverie.store.fts_tokens import index_form, tokenize
from reverie.store.idempotency import Claim, Recorded
from reverie.store.protocol import (
    BUSY_TIMEOUT_MS,
    DREAM_RUNS_KEPT,
    Batch,
    DoctorReport,
    Embed,
    Lease,
    Outcome,
    Step,
    WriteLockBusy,
    dream_run,
    dream_summary_json,
)
from reverie.store.sqlite import agenda, event_refs, fts_scope, fts_union, lexical, purge, readonly, reindex
from reverie.store.sqlite import conversation as conv
from reverie.store.sqlite import idempotency as keys
from reverie.store.sqlite.ann import AnnConfig, AnnManager, ScopeIndex
from reverie.store.sqlite.backup import backup_target, main_file, write_backup
from reverie.store.sqlite.event_refs import ABOUT_ITEM as _ABOUT_ITEM
from reverie.store.sqlite.foreign import check_reverie_file
from reverie.store.sqlite.schema import FTS_TOKENIZE_DEFAULT, PROJECTION_TABLES, migrate
from reverie.store.sqlite.schema import current as schema_current
from reverie.store.sqlite.sql import (
    ITEM_COLUMNS,
    SELECT_ITEM,
    compile_filter,
    compile_sort,
    edge_to_row,
    item_changes,
    item_to_row,
    row_to_edge,
    row_to_item,
)
from reverie.store.sqlite.vectors import VectorCache

_lexical_in = lexical.ranked_in  # bench/scale.py compares the unsplit query through this name

DURABILITY = {"full": "FULL", "fast": "NORMAL"}
#: A WAL larger than this (twice what wal_autocheckpoint's 1000 pages normally allows) is restarted
#: after the next commit: see ``SQLiteStore._restart_wal_if_large``.
_WAL_RESTART_BYTES = 8 * 2**20
_INSERT_ITEM = "INSERT INTO items (" + ", ".join(ITEM_COLUMNS) + ") VALUES (" + ", ".join("?" * len(ITEM_COLUMNS)) + ")"  # nosec B608 # constant columns, ? marks
#: A vector row is tagged with the embedder recorded when it is written (``made_by``, schema 4).
_INSERT_VECTOR = (
    "INSERT INTO vectors (n, scope, vec, made_by) VALUES (?, ?, ?, (SELECT v FROM settings WHERE k = 'embedder'))"
)
_UPDATE_ITEM = "UPDATE items SET " + ", ".join(f"{c} = ?" for c in ITEM_COLUMNS[1:]) + " WHERE id = ?"  # nosec B608 # constant columns


_FILL_VECTOR = (
    "INSERT INTO vectors (n, scope, vec, made_by) "
    "SELECT i.n, i.scope, ?, (SELECT v FROM settings WHERE k = 'embedder') "
    "FROM items i WHERE i.id = ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.n = i.n)"
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


#: ``edges_by_type``'s two statements, whole (no SQL is assembled from parts at run time).
_EDGES_OF_TYPE_ALL = "SELECT * FROM edges WHERE scope = ? AND type = ? ORDER BY id"
_EDGES_OF_TYPE_CURRENT = "SELECT * FROM edges WHERE scope = ? AND type = ? AND closed_at IS NULL ORDER BY id"
#: The distinct scopes of the log, in order, as a skip scan of ``events_by_scope``: each step seeks
#: the next scope above the last one, so the cost grows with the scopes, not with the events
#: (``SELECT DISTINCT`` walked the whole index: ~60x slower at 200k events).
_SCOPES = (
    "WITH RECURSIVE s(scope) AS (SELECT min(scope) FROM events "
    "UNION ALL SELECT (SELECT min(scope) FROM events WHERE scope > s.scope) FROM s WHERE s.scope IS NOT NULL) "
    "SELECT scope FROM s WHERE scope IS NOT NULL"
)


class SQLiteStore:
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

    # -- StateView ------------------------------------------------------------------------
    def item(self, scope: str, item_id: str) -> Item | None:
        row = self._conn.execute(SELECT_ITEM + " WHERE id = ? AND scope = ?", (item_id, scope)).fetchone()
        return row_to_item(row) if row else None

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for start in range(0, len(item_ids), 500):
            chunk = item_ids[start : start + 500]
            # ``+scope``: one unique-index probe per id, never a scan of the scope (see get_many)
            sql = f"SELECT id, version FROM items WHERE id IN ({', '.join('?' * len(chunk))}) AND +scope = ?"  # nosec B608 # only ? marks
            out.update(self._conn.execute(sql, (*chunk, scope)).fetchall())
        return out

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        rows = self._conn.execute(
            # oldest first (uuid7 ids sort by creation time)
            "SELECT item_id FROM fingerprints WHERE scope = ? AND fp = ? ORDER BY item_id",
            (scope, fingerprint),
        ).fetchall()
        return [item for item in (self.item(scope, r[0]) for r in rows) if item is not None]

    def tombstone(self, scope: str, fingerprint: str) -> str | None:
        row = self._conn.execute(
            "SELECT item_id FROM tombstones WHERE scope = ? AND fp = ?", (scope, fingerprint)
        ).fetchone()
        return str(row[0]) if row else None

    def last_recorded_at(self, scopes: Sequence[str]) -> datetime | None:
        """The store's last event time (one writer at a time: exact inside the write)."""
        row = self._conn.execute("SELECT at FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return from_iso(row[0]) if row else None

    def paused(self, scope: str) -> bool:
        with self._read(flush=False) as c:  # ``paused`` is written directly, never pending
            row = c.execute("SELECT paused FROM scope_state WHERE scope = ?", (scope,)).fetchone()
            return bool(row and row[0])

    def edge(self, scope: str, edge_id: str) -> Edge | None:
        row = self._conn.execute("SELECT * FROM edges WHERE id = ? AND scope = ?", (edge_id, scope)).fetchone()
        return row_to_edge(row) if row else None

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]:
        # Two full (scope, src, dst) conjuncts so SQLite probes an index per direction (MULTI-INDEX
        # OR); ``scope = ? AND (… OR …)`` scanned the scope's edges: 0.3 ms per call at 3.6k edges,
        # once per link a dream pass writes.
        rows = self._conn.execute(
            "SELECT * FROM edges WHERE (scope = ? AND src = ? AND dst = ?) OR (scope = ? AND src = ? AND dst = ?) "
            "ORDER BY id",
            (scope, a, b, scope, b, a),
        )
        return [row_to_edge(r) for r in rows]

    def revisions(self, scope: str, item_id: str) -> list[str]:
        return purge.revisions(self._conn, scope, item_id)

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        row = self._conn.execute(
            # the newest superseded holder (uuid7 ids sort by creation time)
            "SELECT item_id FROM fingerprints WHERE scope = ? AND fp = ? ORDER BY item_id DESC LIMIT 1",
            (scope, SUPERSEDED_PREFIX + fingerprint),
        ).fetchone()
        return self.item(scope, row[0]) if row else None

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        rows = self._conn.execute(  # two (scope, end) probes, as in ``edges``
            "SELECT * FROM edges WHERE ((scope = ? AND src = ?) OR (scope = ? AND dst = ?)) AND closed_at IS NULL "
            "ORDER BY id",
            (scope, item_id, scope, item_id),
        )
        return [row_to_edge(r) for r in rows]

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        rows = self._conn.execute(  # the (scope, src) prefix of an index: this item's own edges
            # ``+type``: not the (scope, type) index, which holds every edge of the type in the scope
            "SELECT * FROM edges WHERE scope = ? AND src = ? AND +type = ? AND closed_at IS NULL ORDER BY id",
            (scope, item_id, type),
        )
        return [row_to_edge(r) for r in rows]

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        return evidence.sources(self.events, scope, item_id)

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        return [row_to_item(r) for r in purge.derived_rows(self._conn, scope, parent_ids)]

    # The reducer's reads below touch no table the pending moves change: no flush (see ``_read``).
    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        with self._read(flush=False) as c:
            return conv.state(c, scope, conversation)

    def conversation_entry(self, scope: str, entry_id: str) -> ConversationEntry | None:
        with self._read(flush=False) as c:
            return conv.entry(c, scope, entry_id)

    def intent(self, scope: str, intent_id: str) -> Intent | None:
        with self._read(flush=False) as c:
            return agenda.intent(c, scope, intent_id)

    def task(self, scope: str, task_id: str) -> Task | None:
        with self._read(flush=False) as c:
            return agenda.task(c, scope, task_id)

    # -- intents and tasks: reads (store/sqlite/agenda.py) -------------------------------
    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]:
        """The scope's intents matching ``where``, highest priority first (ties: by id)."""
        with self._read() as c:
            return agenda.intents(c, scope, where, limit)

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]:
        """The scope's tasks matching ``where``, in creation order (by id)."""
        with self._read() as c:
            return agenda.tasks(c, scope, where, limit)

    # -- conversations: reads (store/sqlite/conversation.py) -----------------------------
    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[ConversationEntry]:
        """The conversation's entries after ``after_position``, in order (of ``kinds`` when given)."""
        with self._read() as c:
            return conv.entries(c, scope, conversation, after_position, kinds)

    def conversations(self, scope: str) -> list[ConversationState]:
        """Every conversation of the scope, most recently active first (ties: by id)."""
        with self._read() as c:
            return conv.conversations(c, scope)

    def conversation_speakers(self, scope: str) -> list[str]:
        """Every speaker of a message in the scope, sorted (recall matches them as authors)."""
        with self._read() as c:
            return conv.speakers(c, scope)

    def archive_search(
        self, scope: str, query: str, *, conversation: str | None, limit: int
    ) -> list[ConversationEntry]:
        """Messages whose words hold ``query``'s words as a phrase, newest first (spans: the caller).

        The phrase is the query's tokens as the archive's rows hold them (``fts_tokens.tokenize``:
        "#1182" is "1182", "東京" is "東 京"), quoted: FTS5 tokenizes a string literal again, and
        these tokens come out of it unchanged."""
        tokens = tokenize(query)
        if not tokens:
            return []
        match = '"' + " ".join(tokens).replace('"', '""') + '"'
        with self._read() as c:
            return conv.archive_search(c, scope, match, conversation, limit)

    # -- primitive writes -----------------------------------------------------------------
    def append_event(self, event: Event) -> Event:
        d = event.to_dict()
        cur = self._x(
            "INSERT INTO events (id, type, scope, at, cause, payload) VALUES (?, ?, ?, ?, ?, ?)",
            (
                d["id"],
                d["type"],
                d["scope"],
                d["at"],
                d["cause"],
                json.dumps(d["payload"], ensure_ascii=False),
            ),
        )
        seq = cur.lastrowid
        assert seq is not None
        if self._event_refs:
            event_refs.record(self._x, self._xmany, seq, event_refs.refs_of(d["type"], d["payload"]))
        return Event(
            id=event.id,
            type=event.type,
            scope=event.scope,
            at=event.at,
            cause=event.cause,
            payload=event.payload,
            seq=seq,
        )

    def apply_change(self, change: Change, vectors: Mapping[str, np.ndarray]) -> None:
        if self._new_vectors and not (isinstance(change, PutItem) and change.created):
            self._write_vectors()  # a change that may read or move vector rows sees every one
        if isinstance(change, PutIntent):
            agenda.put_intent(self._x, change)
        elif isinstance(change, PutTask):
            agenda.put_task(self._x, change)
        elif isinstance(change, PutConversation):
            conv.put_conversation(self._x, change)
        elif isinstance(change, PutEntry):
            conv.put_entry(self._x, change)
        elif isinstance(change, EraseEntries):
            conv.erase_entries(self._x, self._conn, change)
        elif isinstance(change, SetEntryVisibility):
            conv.set_entry_visibility(self._x, self._conn, change)
        elif isinstance(change, PutItem):
            self._put_item(change, vectors)
        elif isinstance(change, PutTiers):
            at = to_iso(change.at)
            self._xmany(
                "UPDATE items SET tier = ?, version = version + 1, updated_at = ? WHERE id = ? AND scope = ?",
                [(tier, at, item_id, change.scope) for item_id, tier in change.tiers],
            )
        elif isinstance(change, PutEdge):
            self._x("INSERT OR REPLACE INTO edges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", edge_to_row(change.edge))
        elif isinstance(change, PutTombstone):
            self._x(
                "INSERT OR REPLACE INTO tombstones VALUES (?, ?, ?)",
                (change.scope, change.fingerprint, change.item_id),
            )
        elif isinstance(change, DropTombstone):
            self._x("DELETE FROM tombstones WHERE scope = ? AND fp = ?", (change.scope, change.fingerprint))
        elif isinstance(change, SetPaused):
            self._x("INSERT OR IGNORE INTO scope_state (scope) VALUES (?)", (change.scope,))
            self._x("UPDATE scope_state SET paused = ? WHERE scope = ?", (int(change.paused), change.scope))
        elif isinstance(change, EraseContent):
            purge.erase_log(self._x, self._conn, change)

    def _put_item(self, change: PutItem, vectors: Mapping[str, np.ndarray]) -> None:
        item = change.item
        if change.created:
            n = self._x(_INSERT_ITEM, item_to_row(item)).lastrowid
            assert n is not None
            extra = _extra(item)
            self._x(
                "INSERT INTO fts (rowid, text, extra) VALUES (?, ?, ?)", (n, index_form(item.text), index_form(extra))
            )
            terms = fts_scope.text_terms(item.text, extra)  # the row just written: no read back
            fts_scope.count(self._pending, self._conn, "fts", item.scope, n, 1, terms)
            vec = vectors.get(item.text)
            if vec is not None:
                blob = np.asarray(vec, dtype=np.float32).tobytes()
                self._new_vectors.append((n, item.scope, blob))  # written by ``_write_vectors``
                self._bump(item.scope, "vec_appends")
            for fp in fingerprints(item.text, item.key, item.value):
                self._x("INSERT OR IGNORE INTO fingerprints VALUES (?, ?, ?)", (item.scope, fp, item.id))
            return
        if not change.redact and item.is_current and item.text in vectors:
            self._fill_vector(item, vectors[item.text])
        if change.redact:
            # A purged version: every index row of the old content is replaced, then the row.
            shares = fts_scope.shares(self._conn, item.id)  # the scope's counters follow the rewrite
            rewritten = purge.reindex_redacted(self._x, self._conn, item, vectors, _extra)
            if rewritten is not None:
                fts_scope.follow(self._pending, self._conn, item.scope, shares)
                if rewritten:
                    self._bump(item.scope, "vec_removals")
                self._x(_UPDATE_ITEM, (*item_to_row(item)[1:], item.id))
                return
        elif change.before is not None and self._update_changed(change.before, item):
            if change.before.is_current and not item.is_current:
                n = self._conn.execute("SELECT n FROM items WHERE id = ?", (item.id,)).fetchone()[0]
                self._retire(n, item)
                self._index_superseded(item)
            return
        was = self._conn.execute("SELECT n, closed_at FROM items WHERE id = ?", (item.id,)).fetchone()
        self._x(_UPDATE_ITEM, (*item_to_row(item)[1:], item.id))
        if was is not None and was[1] is None and not item.is_current:
            self._retire(was[0], item)
            self._index_superseded(item)

    def _fill_vector(self, item: Item, vec: np.ndarray) -> None:
        """A current item stored while the embedder was down gets its vector (a backfill); an
        item that has one keeps it (graceful degradation, ``reverie.memory.core.VECTOR_PENDING``)."""
        blob = np.asarray(vec, dtype=np.float32).tobytes()
        added = self._x(_FILL_VECTOR, (blob, item.id)).rowcount
        if added:
            self._bump(item.scope, "vec_appends")

    def _update_changed(self, before: Item, item: Item) -> bool:
        """Write only the columns that differ from ``before``; False if the row is not ``before``.

        The ``version`` in the WHERE clause checks the hint: the row must still be the one the
        projection read (same version), or nothing is written and the caller rewrites the row.
        """
        changes = item_changes(before, item)
        if not changes:  # not diffable, or nothing differs: the full rewrite decides
            return False
        sets = ", ".join(f"{col} = ?" for col, _ in changes)
        sql = f"UPDATE items SET {sets} WHERE id = ? AND version = ?"  # nosec B608 # columns from sql._FIELD_COLUMNS
        return self._x(sql, (*(v for _, v in changes), item.id, before.version)).rowcount == 1

    def _retire(self, n: int, item: Item) -> None:
        """Move a newly closed item's index rows to the history twins (current indexes stay live-only)."""
        fts_scope.count(self._pending, self._conn, "fts", item.scope, n, -1)
        self._x("DELETE FROM fts WHERE rowid = ?", (n,))
        extra = _extra(item)
        self._x(
            "INSERT INTO fts_history (rowid, text, extra) VALUES (?, ?, ?)",
            (n, index_form(item.text), index_form(extra)),
        )
        terms = fts_scope.text_terms(item.text, extra)
        fts_scope.count(self._pending, self._conn, "fts_history", item.scope, n, 1, terms)
        moved = self._x("INSERT INTO vectors_history SELECT * FROM vectors WHERE n = ?", (n,)).rowcount
        if moved:
            self._x("DELETE FROM vectors WHERE n = ?", (n,))
            self._bump(item.scope, "vec_removals")
        self._x("DELETE FROM fingerprints WHERE item_id = ?", (item.id,))

    def _index_superseded(self, item: Item) -> None:
        """A version a correction just closed: keep its fingerprints, prefixed, so a later echo of it
        is recognised (``superseded_by_fingerprint``). A purge deletes them with the rest (by item)."""
        for fp in superseded_prints(item):
            self._x("INSERT OR IGNORE INTO fingerprints VALUES (?, ?, ?)", (item.scope, fp, item.id))

    def _bump(self, scope: str, column: str) -> None:
        self._pending.move(scope, column, 1)  # written with the transaction's other moves

    # -- Store protocol: writes -----------------------------------------------------------
    def execute(
        self,
        commands: Sequence[Command],
        *,
        now: datetime,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Outcome]:
        self._check_open()
        if erases_content(commands):  # an item's purge or a message's: both scrub the file
            return self._execute_purge(commands, now=now, new_id=new_id, vectors=vectors)
        claim = idempotency.pending()  # an idempotency key this write carries (store/idempotency.py)
        with self._write():
            keys.claim(self._x, claim)
            out = run_commands(self, commands, now=now, new_id=new_id, vectors=vectors)
        idempotency.written(claim)
        return out

    def _execute_purge(
        self,
        commands: Sequence[Command],
        *,
        now: datetime,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Outcome]:
        """A batch with a purge: ``secure_delete`` on, FTS merged in the transaction, file scrubbed after.

        An item's purge or a message's (``erases_content``): a ``PurgeMessage`` alone (its memory
        purged before, no later turn quoting it) is scrubbed the same way, or its words would stay
        in the freed cells and the WAL. The archive index is merged by ``conversation.erase_entries``
        in this transaction. See ``store/sqlite/purge.py`` for where SQLite keeps deleted bytes.
        """
        with self._lock:
            self._check_open()
            previous = int(self._conn.execute("PRAGMA secure_delete").fetchone()[0])
            self._conn.execute("PRAGMA secure_delete = ON")  # zero every cell this transaction frees
            try:
                claim = idempotency.pending()
                with self._write():
                    keys.claim(self._x, claim)
                    out = run_commands(self, commands, now=now, new_id=new_id, vectors=vectors)
                    # Dream-run summaries may quote the purged text (attention, reasons): dropped with it.
                    for scope in sorted({c.scope for c in commands if isinstance(c, Purge)}):
                        self._x("DELETE FROM dream_runs WHERE scope = ?", (scope,))
                    keys.erase(self._x, commands, claim)  # recorded responses may quote it too
                    purge.optimize_fts(self._x)
                    if self.path != ":memory:":
                        purge.mark_scrub_pending(self._x)  # cleared by scrub_file; a crash before: next open
                idempotency.written(claim)
                if any(isinstance(c, Purge) for c in commands):  # a message alone changes no vector
                    self._ann.clear(drop_files=True)  # an ANN sidecar may hold a purged text's vector
                if self._atomic:  # a savepoint of ``atomic``: the file is scrubbed once the block commits
                    self._scrub_due = self.path != ":memory:"
                    return out
                if self._scrub_hook is not None:
                    self._scrub_hook()
                purge.scrub_file(self._conn, self.path)
            finally:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute(f"PRAGMA secure_delete = {previous}")
            return out

    def execute_steps(
        self,
        steps: Sequence[Step],
        *,
        now: datetime,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Any]:
        """Every step in one ``BEGIN IMMEDIATE``, each in its own savepoint (see ``Store``)."""
        self._check_open()
        batch = Batch(
            run=batch_runner(self, now=now, new_id=new_id, vectors=vectors),
            item=self.item,
        )
        out: list[Any] = []
        claim = idempotency.pending()
        with self._write() as c:
            keys.claim(self._x, claim)
            for step in steps:
                c.execute("SAVEPOINT step")
                try:
                    out.append(step(batch))
                    self._flush()  # the step's moves, inside its savepoint
                except ReverieError as exc:
                    if isinstance(exc, StorageError | ClosedError):
                        raise  # the storage failed, not the step: the whole batch rolls back
                    # Undo this step's statements only; the transaction and earlier steps stay.
                    self._pending.clear()  # and what it held back
                    self._new_vectors.clear()
                    c.execute("ROLLBACK TO step")
                    out.append(exc)
                c.execute("RELEASE step")
        idempotency.written(claim)
        return out

    # -- leases ---------------------------------------------------------------------------
    def take_lease(self, scope: str, owner: str, *, now: datetime, expires_at: datetime) -> Lease:
        """One upsert inside a write transaction: it writes only when the row is free, expired
        at ``now``, or already ours (a renewal), so two processes can never both hold it."""
        with self._write() as c:
            c.execute(
                "INSERT INTO leases (scope, owner, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (scope) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at "
                "WHERE leases.expires_at <= ? OR leases.owner = excluded.owner",
                (scope, owner, to_iso(expires_at), to_iso(now)),
            )
            row = c.execute("SELECT owner, expires_at FROM leases WHERE scope = ?", (scope,)).fetchone()
        return Lease(scope, str(row[0]), from_iso(str(row[1])))

    def release_lease(self, scope: str, owner: str) -> bool:
        with self._write() as c:
            return c.execute("DELETE FROM leases WHERE scope = ? AND owner = ?", (scope, owner)).rowcount > 0

    # -- dream runs -----------------------------------------------------------------------
    def record_dream_run(self, scope: str, summary: Mapping[str, Any], *, at: datetime) -> None:
        """Insert the run and prune the scope to its newest ``DREAM_RUNS_KEPT`` in one transaction,
        so a reader sees the new run and the pruned list together or neither (see ``Store``)."""
        text = dream_summary_json(summary)
        with self._write():
            self._x("INSERT INTO dream_runs (scope, at, summary) VALUES (?, ?, ?)", (scope, to_iso(at), text))
            # The (KEPT+1)-th newest and everything older; NULL (nothing to drop) while there are fewer.
            self._x(
                "DELETE FROM dream_runs WHERE scope = ? AND n <= "
                "(SELECT n FROM dream_runs WHERE scope = ? ORDER BY n DESC LIMIT 1 OFFSET ?)",
                (scope, scope, DREAM_RUNS_KEPT),
            )

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        with self._read() as c:
            rows = c.execute(
                "SELECT scope, at, summary FROM dream_runs WHERE scope = ? ORDER BY n DESC LIMIT ?",
                (scope, max(limit, 0)),
            ).fetchall()
        return [dream_run(r[0], r[1], json.loads(r[2])) for r in rows]

    # -- idempotency keys (store/idempotency.py) -------------------------------------------
    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        with self._read() as c:
            return keys.lookup(c, scope, key, now)

    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        claim = idempotency.in_scope(scope, claim)
        with self._write():
            keys.record(self._x, claim, status, body, now)
            return keys.lookup(self._conn, claim.scope, claim.key, now)

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        with self._read() as c:
            return keys.rows(c, scope, now)

    def put_idempotency(self, scope: str, rows: Sequence[Recorded]) -> int:
        checked = idempotency.of_scope(scope, rows)
        with self._write():
            keys.put(self._x, checked)
        return len(checked)

    # -- Store protocol: reads ------------------------------------------------------------
    def get(self, scope: str, item_id: str) -> Item | None:
        with self._read():
            return self.item(scope, item_id)

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]:
        out: dict[str, Item] = {}
        ids = list(dict.fromkeys(item_ids))
        with self._read() as c:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                # ``+scope`` keeps SQLite off the scope indexes: with more than a few ids and no
                # ANALYZE statistics its planner preferred scanning the whole scope (5 ms at 10k
                # items, linear in the scope) over one unique-index probe per id (0.1 ms).
                sql = SELECT_ITEM + f" WHERE id IN ({', '.join('?' * len(chunk))}) AND +scope = ?"
                for row in c.execute(sql, (*chunk, scope)):
                    out[row[0]] = row_to_item(row)
        return out

    def query(
        self, scope: str, where: Filter, sort: Sort, *, limit: int, offset: int = 0, subscopes: bool = False
    ) -> list[Item]:
        params: list[Any] = [scope]
        scope_sql = "scope = ?"
        if subscopes:
            scope_sql = "(scope = ? OR (scope >= ? AND scope < ?))"
            params += [scope + "/", scope + "0"]  # '0' is the character after '/'
        cond = compile_filter(where, params)
        sql = f"{SELECT_ITEM} WHERE {scope_sql} AND {cond} ORDER BY {compile_sort(sort)} LIMIT ? OFFSET ?"
        with self._read() as c:
            return [row_to_item(r) for r in c.execute(sql, (*params, limit, offset))]

    def count(self, scope: str, where: Filter) -> int:
        params: list[Any] = [scope]
        cond = compile_filter(where, params)
        with self._read() as c:
            return int(c.execute(f"SELECT count(*) FROM items WHERE scope = ? AND {cond}", params).fetchone()[0])  # nosec B608 # compile_filter: values are ? params

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        sql = "SELECT * FROM edges WHERE scope = ?"
        params: list[Any] = [scope]
        if item_id is not None:
            # Spelled as two (scope, end) pairs so SQLite probes edges_by_src and edges_by_dst
            # (MULTI-INDEX OR); ``scope = ? AND (src = ? OR dst = ?)`` scanned every edge of the
            # scope (7 ms per call at 20k edges; recall makes one call per returned hit).
            sql = "SELECT * FROM edges WHERE ((scope = ? AND src = ?) OR (scope = ? AND dst = ?))"
            params = [scope, item_id, scope, item_id]
        if not include_closed:
            sql += " AND closed_at IS NULL"
        with self._read() as c:
            return [row_to_edge(r) for r in c.execute(sql + " ORDER BY id", params)]

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        # Probes ``edges_by_type`` (scope, type): an alias lookup reads the scope's alias edges,
        # not every about / derived_from edge extraction adds (it read all of them once per claim).
        sql = _EDGES_OF_TYPE_ALL if include_closed else _EDGES_OF_TYPE_CURRENT
        with self._read() as c:
            return [row_to_edge(r) for r in c.execute(sql, (scope, type))]

    def events(self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000) -> list[Event]:
        sql = "SELECT seq, id, type, scope, at, cause, payload FROM events WHERE scope = ? AND seq > ?"
        params: list[Any] = [scope, after_seq]
        if item_id is not None:
            if self._event_refs and event_refs.is_indexed(item_id):
                # The events about the id (``event_refs``), not a scan of every payload.
                sql += event_refs.LOOKUP
                params.append(item_id)
            # instr() is a cheap prefilter; _ABOUT_ITEM keeps only events *about* the item (as the
            # reference store does), not ones that merely quote its id (a child's parents, a text).
            sql += f" AND instr(payload, ?) > 0 AND ({_ABOUT_ITEM})"
            params += [item_id] * (1 + _ABOUT_ITEM.count("?"))
        sql += " ORDER BY seq LIMIT ?"
        params.append(limit)
        with self._read() as c:
            rows = c.execute(sql, params).fetchall()
        return [
            Event.from_dict(
                {
                    "seq": r[0],
                    "id": r[1],
                    "type": r[2],
                    "scope": r[3],
                    "at": r[4],
                    "cause": r[5],
                    "payload": json.loads(r[6]),
                }
            )
            for r in rows
        ]

    def tombstones(self, scope: str) -> list[tuple[str, str]]:
        with self._read() as c:
            rows = c.execute("SELECT fp, item_id FROM tombstones WHERE scope = ? ORDER BY fp", (scope,))
            return [(r[0], r[1]) for r in rows]

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        """Ranked by bm25 over ``scope``'s own statistics, whatever other scopes hold (``fts_scope``)."""
        with self._read() as c:
            # Current and closed rows are ranked as one collection, not table by table (``fts_union``).
            out = (
                lexical.search(c, "fts", match, scope, limit)
                if current_only
                else fts_union.search(c, match, scope, limit)
            )
        out.sort(key=lambda p: (-p[1], p[0]))
        return out[:limit]

    def nearest(self, scope: str, query: np.ndarray, *, limit: int) -> list[str] | None:
        """The current items of ``scope`` nearest ``query`` by the ANN index, best first; None when the
        scope is below ``AnnConfig.threshold`` (the caller then scans ``vectors`` exactly)."""
        embedder = self.embedder()
        if embedder is None:
            return None
        with self._read() as c:
            reindex.check_served(c, "vectors", scope, embedder[0])
            hits = self._ann.nearest(c, scope, query, limit, embedder)
        return None if hits is None else [item_id for item_id, _ in hits]

    def warm(self, scope: str) -> bool:
        """Bring ``scope``'s ANN index up to date and save its sidecar (``AnnManager.warm``).

        False when the scope is below ``AnnConfig.threshold`` or no embedder is set: nothing to
        warm. The slow build runs on a private read connection without the store lock (other
        calls and ``close()`` go on meanwhile); only installing and catching up take the lock.
        """
        self._check_open()
        if self.path != ":memory:":  # a second connection to ":memory:" would be another database
            prepared = self._prepare_ann(scope)
            if prepared is not None:
                with self._read():
                    self._ann.install(scope, prepared)
        embedder = self.embedder()
        if embedder is None:
            return False
        with self._read() as c:
            return self._ann.warm(c, scope, embedder)

    def _prepare_ann(self, scope: str) -> ScopeIndex | None:
        """Build (or load) the scope's index on a private read connection, off the store lock.

        One read transaction, so the embedder, counters and rows it sees agree (WAL: writers go
        on); ``warm`` then installs it under the lock and catches it up with what came since.
        """
        try:
            with contextlib.closing(sqlite3.connect(self.path, isolation_level=None, timeout=30.0)) as c:
                c.execute("BEGIN")
                try:
                    rows = dict(c.execute("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')"))
                    if "embedder" not in rows:
                        return None
                    return self._ann.prepare(c, scope, (rows["embedder"], int(rows["embedder_dim"])))
                finally:
                    c.execute("ROLLBACK")
        except sqlite3.Error as exc:
            raise _storage_error(exc) from None

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        name, dim = self.embedder() or ("", 0)
        with self._read() as c:
            if name:
                reindex.check_served(c, "vectors", scope, name)
            ids, mat = self._vectors.get(c, scope, "vectors", dim, name)
            if current_only:
                return ids, mat
            if name:
                reindex.check_served(c, "vectors_history", scope, name)
            hids, hmat = self._vectors.get(c, scope, "vectors_history", dim)
            return ids + hids, np.concatenate([mat, hmat]) if hids else mat

    def embedder(self) -> tuple[str, int] | None:
        with self._read() as c:
            rows = dict(c.execute("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')").fetchall())
        if "embedder" not in rows:
            return None
        return rows["embedder"], int(rows["embedder_dim"])

    def set_embedder(self, name: str, dim: int) -> None:
        with self._write() as c:
            c.execute("INSERT OR REPLACE INTO settings VALUES ('embedder', ?)", (name,))
            c.execute("INSERT OR REPLACE INTO settings VALUES ('embedder_dim', ?)", (str(dim),))

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int:
        """Recompute every stored vector with ``embed`` under the recorded embedder, built aside and
        swapped in with one transaction (``reindex.py``): never a mix, safe beside other writers."""
        self._check_open()
        done = reindex.run(self._read, self._write, embed, batch=batch, progress=progress)
        self._vectors.clear()
        self._ann.clear(drop_files=True)
        return done

    def scopes(self) -> list[str]:
        """Every scope with an event in its log (``Store.scopes``), sorted: one index seek per scope
        (``_SCOPES``), not a walk of the whole log, since the review page reads it on every view."""
        with self._read() as c:
            return [str(r[0]) for r in c.execute(_SCOPES)]

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        """Counts by tier / kind / source (current items) and by status (all items)."""
        out: dict[str, dict[str, int]] = {}
        with self._read() as c:
            for col, current in (("tier", True), ("kind", True), ("source", True), ("status", False)):
                where = "scope = ? AND closed_at IS NULL" if current else "scope = ?"
                rows = c.execute(
                    f"SELECT {col}, count(*) FROM items WHERE {where} GROUP BY {col} ORDER BY {col}",  # nosec B608 # constants
                    (scope,),
                )
                out[col] = {r[0]: r[1] for r in rows}
        return out

    # -- health ---------------------------------------------------------------------------
    def doctor(self) -> DoctorReport:
        from reverie.store.sqlite.health import check

        with self._snapshot() as c:  # one commit's state: a write landing meanwhile is no drift
            report = check(c)
            problems, counts = self._ann.drift(c)
            agenda_problems, agenda_counts = agenda.check(c)
            scrub_due = self.path != ":memory:" and purge.scrub_pending(c)
        problems += agenda_problems
        counts.update(agenda_counts)
        report.problems += problems
        report.counts.update(counts)
        if scrub_due:
            report.problems.append(
                "a purge is committed but the file still holds its erased bytes (its scrub did not finish): "
                "close other connections to the store, then reopen it or purge the same id again"
            )
        return report

    def rebuild(self, embed: Embed) -> None:
        """Drop every projection and replay the event log through the same projection code."""
        with self._write() as c:
            for table in PROJECTION_TABLES:
                c.execute(f"DELETE FROM {table}")  # nosec B608 # table from PROJECTION_TABLES
            view = ProjectionView(self.item, self.edge, self.task, self.intent)
            cur = c.execute("SELECT seq, id, type, scope, at, cause, payload FROM events ORDER BY seq")
            for r in cur.fetchall():
                event = Event.from_dict(
                    {
                        "seq": r[0],
                        "id": r[1],
                        "type": r[2],
                        "scope": r[3],
                        "at": r[4],
                        "cause": r[5],
                        "payload": json.loads(r[6]),
                    }
                )
                texts = [event.payload["item"]["text"]] if "item" in event.payload else []
                vecs = dict(zip(texts, embed(texts), strict=True)) if texts else {}
                for change in project(event, view):
                    self.apply_change(change, vecs)
        self._vectors.clear()
        self._ann.clear(drop_files=True)

    def checkpoint(self) -> None:
        with self._read() as c:
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def backup(self, target: str | Path, *, overwrite: bool = False) -> None:
        """A consistent copy through SQLite's online backup API (never a file copy of a live WAL).

        A target that names no file, the store itself or another application's database, or
        (without ``overwrite``) another reverie store holding events, is refused
        (``InvalidInputError``) before anything is written: see ``backup.py``.
        """
        with self._read() as c:
            if self._atomic:
                raise refused_in_block("backup()")
            write_backup(c, backup_target(target, main_file(c), source=c, overwrite=overwrite))

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


def _extra(item: Item) -> str:
    """Secondary full-text column: the structured key/value and tags, weighted below the text."""
    parts = [p for p in (item.key, None if item.value is None else value_text(item.value)) if p]
    parts += list(item.tags)
    return " ".join(parts)
