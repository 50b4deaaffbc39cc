"""The PostgreSQL store: the same belief store as the SQLite file, on a server many processes share.

Why this shape:
- **One transaction per write, serialised per scope.** Each write takes a transaction-level
  advisory lock per scope it touches (``pg_advisory_xact_lock``) before the reducer reads, so
  its checks (versions, tombstones, corroboration) cannot be invalidated by another process
  between read and write, the way ``BEGIN IMMEDIATE`` does on SQLite, but only writers of the
  same scope wait for each other. Versions are checked inside that transaction (optimistic).
- **The scope set per transaction** (``set_config('reverie.scopes', ..., true)``) feeds the
  row-level security policies (``schema.py``): as the owner it changes nothing, as an
  application role it is the only thing that role can see.
- **Every statement goes through ``_run``**, so a test can see every statement the store issues
  (``tests/postgres/test_pg_audit.py``: each carries the scope predicate) and every driver
  error becomes a ``ReverieError``.
- **Reads outside a transaction where one statement is one snapshot anyway.** The store's
  transactions are READ COMMITTED, where every statement of a read transaction takes its own
  snapshot, so a read of plain statements (``_read``) gets the same rows without BEGIN and
  COMMIT around it. Each of its statements is sent in one pipeline behind the scopes'
  ``set_config(..., true)``, with one Sync: the server runs the two as one implicit transaction,
  so the naming holds for that statement and ends with it, in one round trip a statement.
  Why: a recall made ~18 store calls of one or two statements; BEGIN / set_config / COMMIT were
  ~55 of its ~75 round trips (``bench/pg_recall_ab.py``).
- **Nothing outlives a transaction on the server session.** Every scope naming, and a write's
  lock timeout, is transaction-local, so a transaction-mode pooler (PgBouncer) may hand the
  server session to another client the moment our transaction ends: it sees none of our
  scopes, and our next statement, on whatever session, names its own. (Reads once named the
  scopes for the session, ``set_config(..., false)``: behind such a pooler the next client read
  the principal's rows, and the store, on a session another client had named, read none.)
- **Writes wait a bounded time.** A write transaction's first statement sets ``lock_timeout``
  (transaction-local) to the store's ``lock_timeout_ms``, SQLite's busy timeout by default, so a
  write beside a long writer fails with SQLite's busy error and rolls back instead of waiting
  without limit.
- **One snapshot where statements must agree.** A read whose statements are compared with each
  other (``doctor``: the log against the projections) runs in a REPEATABLE READ, READ ONLY
  transaction (``_snapshot``), so a write committed meanwhile is in all of them or in none; a read
  that can be one statement is one (``summary_counts``).
- **Dense search on the server above a size, exact in numpy below it.** A scope with fewer than
  ``ann.ANN_THRESHOLD`` vectors is scanned exactly (the SQLite store's numbers, bit for bit);
  above, once ``warm`` has built the scope's own HNSW index, pgvector answers ``nearest``.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np

from reverie.errors import ClosedError, EmbedderMismatchError, InvalidInputError, ReverieError, StorageError
from reverie.model.agenda import Intent, IntentQuery, Task, TaskQuery
from reverie.model.clock import from_iso, to_iso
from reverie.model.commands import Command, Purge
from reverie.model.conversation import ConversationState
from reverie.model.conversation import Entry as ConversationEntry
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.projection import SUPERSEDED_PREFIX, Change, ProjectionView, project
from reverie.model.query import Filter, Sort
from reverie.store import evidence, idempotency
from reverie.store.blocks import refused_in_block
from reverie.store.engine import batch_runner, run_commands
from reverie.store.idempotency import Claim, Recorded
from reverie.store.postgres import agenda, ann, edgerun, health, lexical, prefetch, projections, purge, scopestats
from reverie.store.postgres import connect as pgconnect
from reverie.store.postgres import conversation as conv
from reverie.store.postgres import idempotency as keys
from reverie.store.postgres import legacy_names as legacy
from reverie.store.postgres.filters import compile_filter, compile_sort
from reverie.store.postgres.schema import (
    PROJECTION_TABLES,
    SCHEMA_VERSION,
    SCOPES_VIEW,
    UUID_PATTERN,
    upgrade_statements,
)
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
from reverie.store.sqlite.sql import SELECT_ITEM, row_to_edge, row_to_item

#: Marks the few statements that read every scope on purpose (maintenance: doctor, rebuild,
#: scopes); the statement audit lists them (on Citus they are multi-shard queries).
ALL_SCOPES = "/* all scopes */"
#: The distinct scopes of the log, in order, through the schema's view (``schema.SCOPES_VIEW``: a
#: skip scan of the log's primary key, with its owner's rights), so the owner and an application
#: role list the same scopes: RLS would show that role only the scopes its transaction names.
_SCOPES = f"SELECT scope FROM {SCOPES_VIEW} {ALL_SCOPES} ORDER BY scope"  # nosec B608 # constants
#: The scopes (and whether their subscopes) RLS lets a transaction (is_local) or the session see.
_NAME_SCOPES = "SELECT set_config('reverie.scopes', %s::text[]::text, true), set_config('reverie.subscopes', %s, true)"
#: Appended to a write transaction's first naming (or sent alone): how long its locks may wait.
_WRITE_WAIT = "set_config('lock_timeout', %s, true)"
_EVENTS = "SELECT seq, id, type, scope, at, cause, payload FROM events"
#: An id the log's index holds (``schema._V6``); any other id is found by the scan.
_UUID = re.compile(UUID_PATTERN)
_ABOUT_ITEM = (
    "((payload::jsonb ->> 'id') = %s OR (payload::jsonb ->> 'old_id') = %s "
    "OR (payload::jsonb #>> '{item,id}') = %s "
    "OR (payload::jsonb #>> '{edge,src}') = %s OR (payload::jsonb #>> '{edge,dst}') = %s "
    "OR (payload::jsonb #>> '{intent,id}') = %s OR (payload::jsonb #>> '{task,id}') = %s "
    "OR (type = 'memory.used' AND EXISTS "
    "(SELECT 1 FROM jsonb_array_elements(payload::jsonb -> 'uses') u WHERE (u ->> 0) = %s)) "
    "OR (type = 'memory.tiers_set' AND EXISTS "
    "(SELECT 1 FROM jsonb_array_elements(payload::jsonb -> 'changes') c WHERE (c ->> 'id') = %s)))"
)

#: ``summary_counts`` in one scan: the items grouped by each column on its own (grouping sets),
#: every group with its current and its total count; ``grouping()`` says which column a row is of
#: (its bit is 0: tier 7, kind 11, source 13, status 14). The columns are NOT NULL.
_SUMMARY = (
    "SELECT grouping(tier, kind, source, status), coalesce(tier, kind, source, status), "
    "count(*) FILTER (WHERE closed_at IS NULL), count(*) FROM items WHERE scope = %s "
    "GROUP BY GROUPING SETS ((tier), (kind), (source), (status)) ORDER BY 1, 2"
)
_SUMMARY_SETS = {7: "tier", 11: "kind", 13: "source", 14: "status"}


def _event(r: Sequence[Any]) -> Event:
    return Event.from_dict(
        {"seq": r[0], "id": r[1], "type": r[2], "scope": r[3], "at": r[4], "cause": r[5], "payload": json.loads(r[6])}
    )


class PostgresStore:
    """A store in one PostgreSQL database. Thread-safe: one connection behind a lock."""

    def __init__(self, url: str, *, read_only: bool = False, lock_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        """``lock_timeout_ms``: how long a write waits for a lock another writer holds before it fails
        with the busy error and changes nothing (SQLite's ``busy_timeout_ms``; 0 fails at once)."""
        if isinstance(lock_timeout_ms, bool) or not isinstance(lock_timeout_ms, int) or lock_timeout_ms < 0:
            raise InvalidInputError(
                f"lock_timeout_ms must be a whole number of milliseconds >= 0, got {lock_timeout_ms!r}"
            )
        self.url = url
        #: ``lock_timeout`` of every write transaction (PostgreSQL's 0 would mean "wait forever").
        self._write_wait = f"{max(1, lock_timeout_ms)}ms"
        self._wait_due = False  # the open write transaction has not set its lock timeout yet
        self.path = pgconnect.redact(url)  # what messages and ``Memory`` show as the store's location
        self.read_only = bool(read_only)
        self._lock = threading.RLock()
        self._closed = False
        self._txn_scopes: list[str] | None = None  # scopes of the open transaction (None: none open)
        self._made_by: tuple[str | None] | None = None  # ``made_by()`` of the open transaction, once read
        self._absent: prefetch.Absent | None = None  # keys a write batch read as absent (prefetch.py)
        self._writing = False  # the open transaction is a write (scopestats.py caches nothing then)
        self._stats = scopestats.Cache()
        self._locked: set[str] = set()  # scopes the open write transaction holds the lock of
        self._atomic = False  # inside ``atomic``: each write is a savepoint of its transaction
        self._subscopes = False
        #: The scopes the open ``_read`` names in front of each of its statements (None: no read open).
        self._read_scopes: tuple[str, ...] | None = None
        self._local_named = False  # the open transaction named its scopes itself (set_config local)
        self._keys: dict[str, tuple[Any, ...]] | None = None  # scope -> its log key, within one ``_read``
        self._edge_run = edgerun.EdgeRun()  # the open edges of what get_many just read (edgerun.py)
        self._vector_cache: dict[tuple[str, bool], tuple[tuple[Any, ...], list[str], np.ndarray]] = {}
        #: Test-only: called with each statement before it runs (the audit and fault tests use it).
        self._statement_hook: Callable[[str], None] | None = None
        self._conn = pgconnect.connect(url)
        self._pipelines = pgconnect.pipelines()
        try:
            self._migrate()
        except BaseException:
            self._conn.close()
            raise

    # -- statements -----------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any] = (), *, binary: bool = False) -> Any:
        if self._wait_due:
            self._set_write_wait()
        if self._statement_hook is not None:
            self._statement_hook(sql)
        if self._writing and scopestats.may_change(sql):
            self._stats.moved()
        try:
            if self._txn_scopes is None and self._read_scopes:
                return self._named(sql, params, binary)
            return self._conn.execute(sql, params, binary=binary)
        except ReverieError:
            raise
        except Exception as exc:
            raise self._translate(exc) from None

    def _named(self, sql: str, params: Sequence[Any], binary: bool) -> Any:
        """One statement of a ``_read`` behind its scopes' naming, both in one implicit transaction
        (one pipeline, one Sync): one round trip, and the naming ends with the statement."""
        names = (list(self._read_scopes or ()), "off")
        if self._pipelines:
            with self._conn.pipeline():
                self._conn.execute(_NAME_SCOPES, names)
                cur = self._conn.execute(sql, params, binary=binary)
            return cur
        with self._conn.transaction():  # a libpq without pipelines: the same, in four round trips
            self._conn.execute(_NAME_SCOPES, names)
            return self._conn.execute(sql, params, binary=binary)

    def _set_write_wait(self) -> None:
        """The open write transaction's lock timeout, when no naming carried it (``_name_txn``)."""
        self._wait_due = False
        self.q(f"SELECT {_WRITE_WAIT}", (self._write_wait,))

    def _translate(self, exc: BaseException) -> ReverieError:
        import psycopg

        if isinstance(exc, psycopg.Error):
            return pgconnect.translate(exc, self.url)
        raise exc

    def x(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write statement inside the open transaction; the rows it changed."""
        if self._absent is not None:
            self._absent.discard(sql, params)
        return int(self._run(sql, params).rowcount)

    def q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a read statement; its rows."""
        return list(self._run(sql, params).fetchall())

    def xmany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if self._absent is not None:
            for row in rows:
                self._absent.discard(sql, row)
        if self._wait_due:
            self._set_write_wait()
        if self._statement_hook is not None:
            self._statement_hook(sql)
        if self._writing and scopestats.may_change(sql):
            self._stats.moved()
        try:
            with self._conn.cursor() as cur:
                cur.executemany(sql, rows)
        except Exception as exc:
            raise self._translate(exc) from None

    def made_by(self) -> str | None:
        """The recorded embedder's name; read once per transaction (every item insert asks)."""
        if self._made_by is None:
            rows = self.q("SELECT v FROM settings WHERE k = 'embedder'")
            self._made_by = (str(rows[0][0]) if rows else None,)
        return self._made_by[0]

    # -- schema ---------------------------------------------------------------------------
    def _migrate(self) -> None:
        version = self._schema_version()
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            from reverie.errors import CorruptStoreError

            raise CorruptStoreError(
                f"this database was written by a newer reverie (schema {version} > {SCHEMA_VERSION}); upgrade reverie"
            )
        if self.read_only:
            raise StorageError(f"{self.path} holds no reverie store yet, and a read-only open cannot create one")
        self._ensure_vector_extension()
        with self._txn([]):
            self.x("SELECT pg_advisory_xact_lock(0x72657665)")  # two processes migrating: one waits
            if self._schema_version() == SCHEMA_VERSION:
                return
            found = self._schema_version()
            if found and not self._owns_tables():
                raise StorageError(
                    f"{self.path} holds reverie schema {found} and this reverie needs schema {SCHEMA_VERSION}; "
                    "only the owner of its tables (the role that created them) may upgrade it: open it once as "
                    "that role, then connect as this one again. Nothing was changed"
                )
            for stmt in upgrade_statements(found):
                self.x(stmt)
            if 1 <= found < 7:  # schema 7: documents of the new index form (no DDL)
                from reverie.store.postgres import fts_form

                fts_form.rewrite(self.q, self.x)
            if 1 <= found < 8:  # schema 8: fingerprints and tombstones in today's comparison form (no DDL)
                from reverie.store.postgres import print_form

                print_form.rewrite(self.q, self.x)
            legacy.upgrade(self.q, self.x, found)  # schema 10 (no DDL): model.legacy_names
            self.x(
                "INSERT INTO settings (k, v) VALUES ('schema_version', %s) "
                "ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                (str(SCHEMA_VERSION),),
            )
            self.x("INSERT INTO settings (k, v) VALUES ('event_seq', '0') ON CONFLICT (k) DO NOTHING")

    def _owns_tables(self) -> bool:
        """The current role may act as the owner of the log (a superuser may): an upgrade's DDL needs
        it, and an application role (``roles.create_app_role``) is not it."""
        rows = self.q("SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = to_regclass('events')")
        return bool(rows and rows[0][0])

    def _schema_version(self) -> int:
        rows = self.q("SELECT to_regclass('settings') IS NOT NULL")
        if not rows[0][0]:
            return 0
        found = self.q("SELECT v FROM settings WHERE k = 'schema_version'")
        text = str(found[0][0]) if found else "0"
        if not (text.isascii() and text.isdigit()):
            from reverie.errors import CorruptStoreError

            raise CorruptStoreError(f"{self.path} has schema_version {text[:40]!r}, which is no integer")
        return int(text)

    def _ensure_vector_extension(self) -> None:
        pgconnect.ensure_vector(self.q, self.x, self.path)

    # -- transactions ---------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError("this Memory is closed; open a new one")

    @contextmanager
    def _txn(
        self, scopes: Sequence[str], *, write: bool = False, subscopes: bool = False, snapshot: bool = False
    ) -> Iterator[None]:
        """One transaction naming ``scopes`` (nested calls join the open one), under the lock.
        ``snapshot``: a read of one snapshot (``_snapshot``), if this call opens the transaction."""
        with self._lock:
            self._edge_run.end()
            self._check_open()
            if write and self.read_only:
                from reverie.errors import ReadOnlyError

                raise ReadOnlyError(f"{self.path} is open read-only; open it without --read-only to change it")
            if self._txn_scopes is not None:
                if write and self._atomic:  # a write inside ``atomic``: all or nothing on its own
                    with self._savepoint():
                        self._allow(scopes, subscopes=subscopes)
                        yield
                    return
                self._allow(scopes, subscopes=subscopes)
                yield
                return
            self._reconnect_if_broken()
            try:
                tx = self._conn.transaction()
                tx.__enter__()
            except Exception as exc:
                raise self._translate(exc) from None
            if snapshot:
                self._one_snapshot(tx)
            self._txn_scopes = []
            self._subscopes = False
            self._wait_due = write  # before the transaction's first statement (``_run``)
            self._local_named = False
            self._made_by = None
            self._absent = None
            self._writing = write
            self._locked.clear()
            self._stats.moved()
            try:
                self._allow(scopes, subscopes=subscopes)
                yield
            except BaseException as exc:
                self._txn_scopes = None
                self._wait_due = False
                self._writing = False
                self._stats.moved()
                with contextlib.suppress(Exception):
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                raise
            self._txn_scopes = None
            self._wait_due = False
            self._writing = False
            self._stats.moved()
            try:
                tx.__exit__(None, None, None)
            except Exception as exc:
                raise self._translate(exc) from None

    def _one_snapshot(self, tx: Any) -> None:
        """Make the transaction ``tx`` just began REPEATABLE READ and READ ONLY: its statements all
        read the snapshot its first one takes. Sent as the transaction's own first statement, not
        as a default of the connection or the session, so nothing outlives the transaction (a
        pooler's next client on this server session gets READ COMMITTED, as before). A read-only
        REPEATABLE READ transaction takes no lock a row write waits for and never fails to
        serialise; what it costs is that VACUUM keeps the rows it may see until it ends."""
        try:
            self._conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        except Exception as exc:
            with contextlib.suppress(Exception):
                tx.__exit__(type(exc), exc, exc.__traceback__)
            raise self._translate(exc) from None

    @contextmanager
    def _snapshot(self, scopes: Sequence[str]) -> Iterator[None]:
        """A read of several statements that must agree, in one snapshot (``_one_snapshot``).

        Why: at READ COMMITTED each statement reads the newest commit, so ``doctor``, which reads
        the log's agenda events and then the intent rows, saw another process's new intent in the
        rows only and reported "intent rows disagree with the log" on a healthy store (as SQLite's
        doctor did beside a writer: ``SQLiteStore._snapshot``). Inside this thread's open
        transaction it joins that one and sees what it sees (its own writes among them).
        """
        with self._txn(scopes, snapshot=True):
            yield

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        """A savepoint of the open transaction. If the block raises, its writes are undone, and so
        is what this store remembers of them: figures and vectors read after them, absent keys,
        the scope locks it took and the scopes it named (``set_config`` is undone with it). A
        storage failure is left to roll the whole transaction back (the session may be gone)."""
        allowed = list(self._txn_scopes or [])
        try:
            try:
                with self._conn.transaction():
                    yield
            except ReverieError:
                raise
            except Exception as exc:  # the savepoint's own statements (psycopg's, not ``_run``'s)
                import psycopg

                if isinstance(exc, psycopg.Error):
                    raise self._translate(exc) from None
                raise
        except Exception as exc:
            if isinstance(exc, StorageError | ClosedError):
                raise
            self._stats.moved()
            self._vector_cache.clear()
            self._absent = None
            self._locked.clear()
            self._txn_scopes = []
            self._local_named = False
            self._wait_due = self._writing  # a timeout set inside the savepoint went with it
            self._allow(allowed)
            raise

    @contextmanager
    def atomic(self, scope: str, *, wait: bool = True) -> Iterator[None]:
        """The block in one transaction holding ``scope``'s write lock, each write a savepoint
        (see ``Store.atomic``). ``wait=False``: ``_try_write_lock`` instead of waiting for it."""
        self._check_open()
        claim = idempotency.pending()
        if claim is not None:
            idempotency.in_scope(scope, claim.claim)
        try:
            with self._txn([], write=True):
                if not wait:
                    self._try_write_lock(scope)
                self._write_scopes([scope])
                self._claim(claim)
                outer, self._atomic = not self._atomic, True
                try:
                    with idempotency.carried(claim):
                        yield
                finally:
                    self._atomic = not outer
        except BaseException:
            self._vector_cache.clear()  # keyed by the scope's last seq, which the rollback gives back
            raise
        idempotency.written(claim)

    def _reconnect_if_broken(self) -> None:
        if self._conn.closed or self._conn.broken:
            # The server went away (restart, failover, a killed backend): the failed write was
            # rolled back with its session; the next call reconnects instead of failing forever.
            # The scopes the session named died with it (leases are rows: nothing to forget).
            self._conn = pgconnect.connect(self.url)

    @contextmanager
    def _read(self, scopes: Sequence[str] | None, *, keep_run: bool = False) -> Iterator[None]:
        """Reads of ``scopes`` (None: of tables without row-level security) outside a transaction:
        each statement its own implicit transaction, the scopes named in front of it (``_named``;
        a nested read names the outer read's scopes too, until the outer one ends). Inside an open
        transaction, joins it as ``_txn`` does. Only for bodies of plain reads: nothing
        transaction-local (``set_config(..., true)``, advisory xact locks) and no writes. Ends the
        run of ``get_many`` / ``edges`` calls (``edgerun.py``) unless ``keep_run``."""
        with self._lock:
            if not keep_run:
                self._edge_run.end()
            if self._txn_scopes is not None:
                with self._txn(scopes or []):
                    yield
                return
            self._check_open()
            self._reconnect_if_broken()
            outer = self._keys is None
            if scopes is not None:
                self._read_scopes = tuple(dict.fromkeys([*(self._read_scopes or ()), *scopes]))
            if outer:
                self._keys = {}
            try:
                yield
            finally:
                if outer:
                    self._keys = None
                    self._read_scopes = None

    def _scope_key(self, scope: str) -> tuple[Any, ...]:
        """The scope's log position and the store's vector epoch and embedder: what the scope's cached
        figures and vectors are valid for. Read once per ``_read`` (a recall's dense leg asked three
        times). Why that is safe: a key read before the rows it tags can only be older than them,
        so a later read finds it moved and reads again; never newer rows under an older key."""
        if self._keys is not None and self._txn_scopes is None and scope in self._keys:
            return self._keys[scope]
        key = tuple(self.q(scopestats.KEY, (scope,))[0])
        if self._keys is not None and self._txn_scopes is None:
            self._keys[scope] = key
        return key

    def _name_txn(self) -> None:
        """The open transaction's own scopes for RLS, transaction-local (with a write's lock timeout,
        if not set yet: one statement for both)."""
        assert self._txn_scopes is not None
        if not self._local_named and not self._txn_scopes and not self._subscopes:
            return  # naming none: what the session names (nothing: nothing outlives a transaction)
        self._local_named = True
        params: list[Any] = [self._txn_scopes, "on" if self._subscopes else "off"]
        sql = _NAME_SCOPES
        if self._wait_due:
            self._wait_due = False
            sql, params = f"{sql}, {_WRITE_WAIT}", [*params, self._write_wait]
        self.q(sql, params)

    def _allow(self, scopes: Sequence[str], *, subscopes: bool = False, lock: bool = False) -> None:
        """Name ``scopes`` for row-level security in this transaction (and lock them for a write)."""
        assert self._txn_scopes is not None
        new = [s for s in dict.fromkeys(scopes) if s not in self._txn_scopes]
        if new or (subscopes and not self._subscopes):
            self._txn_scopes += new
            self._subscopes = self._subscopes or subscopes
            self._name_txn()
        if lock:
            # every scope not yet locked, named before or not: a read earlier in the transaction
            # (a dream step's version check) names a scope without locking it
            for scope in sorted({s for s in scopes if s not in self._locked}):
                self.q("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (scope,))
                self._locked.add(scope)

    def _try_write_lock(self, scope: str) -> None:
        """Take what a write of ``scope`` waits for, or raise ``WriteLockBusy`` without waiting:
        the scope's advisory lock and the ``event_seq`` row, which every writer of any scope locks
        at its first append until it commits (``append_event``) — so a long write in another
        scope makes a write here wait as well. Same order as a plain write (scope, then row)."""
        if scope not in self._locked:
            self._allow([scope])
            if not self.q("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", (scope,))[0][0]:
                raise WriteLockBusy(f"another writer holds scope {scope!r}'s write lock; nothing was written")
            self._locked.add(scope)
        if not self.q("SELECT 1 FROM settings WHERE k = 'event_seq' FOR UPDATE SKIP LOCKED"):
            raise WriteLockBusy("another writer is appending to the log; nothing was written")

    def _write_scopes(self, scopes: Sequence[str]) -> None:
        """Inside a write: name and lock the scopes a batch of commands touches, in a fixed order."""
        assert self._txn_scopes is not None
        missing = sorted({s for s in scopes if s not in self._locked})
        self._allow(missing, lock=True)

    # -- StateView ------------------------------------------------------------------------
    def item(self, scope: str, item_id: str) -> Item | None:
        with self._read([scope]):
            rows = self.q(SELECT_ITEM + " WHERE scope = %s AND id = %s", (scope, item_id))
        return row_to_item(rows[0]) if rows else None

    def last_recorded_at(self, scopes: Sequence[str]) -> datetime | None:
        """The last event time in ``scopes``: exact under their write locks, taken before the
        batch runs. Per scope, not per store: the one row ordering every writer (``event_seq``)
        is locked only at the first append, after the batch's record time is chosen."""
        with self._read(list(scopes)):
            times = [self.q("SELECT at FROM events WHERE scope = %s ORDER BY seq DESC LIMIT 1", (s,)) for s in scopes]
        found = [from_iso(str(rows[0][0])) for rows in times if rows]
        return max(found) if found else None  # a batch names one scope nearly always: one round trip

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        with self._read([scope]):
            rows = self.q("SELECT id, version FROM items WHERE scope = %s AND id = ANY (%s)", (scope, list(item_ids)))
        return {str(r[0]): int(r[1]) for r in rows}

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        if self._absent is not None and (scope, fingerprint) in self._absent.fingerprints:
            return []
        with self._read([scope]):
            rows = self.q(
                "SELECT item_id FROM fingerprints WHERE scope = %s AND fp = %s ORDER BY item_id",
                (scope, fingerprint),
            )
            return [item for item in (self.item(scope, r[0]) for r in rows) if item is not None]

    def tombstone(self, scope: str, fingerprint: str) -> str | None:
        if self._absent is not None and (scope, fingerprint) in self._absent.tombstones:
            return None
        with self._read([scope]):
            rows = self.q("SELECT item_id FROM tombstones WHERE scope = %s AND fp = %s", (scope, fingerprint))
        return str(rows[0][0]) if rows else None

    def paused(self, scope: str) -> bool:
        with self._read([scope]):
            rows = self.q("SELECT paused FROM scope_state WHERE scope = %s", (scope,))
        return bool(rows and rows[0][0])

    def edge(self, scope: str, edge_id: str) -> Edge | None:
        with self._read([scope]):
            rows = self.q(
                f"SELECT {projections._EDGE_COLUMNS} FROM edges WHERE scope = %s AND id = %s",  # nosec B608 # constant
                (scope, edge_id),
            )
        return row_to_edge(rows[0]) if rows else None

    def _edges(self, scope: str, where: str, params: Sequence[Any], *, keep_run: bool = False) -> list[Edge]:
        sql = f"SELECT {projections._EDGE_COLUMNS} FROM edges WHERE scope = %s AND {where} ORDER BY id"  # nosec B608 # constant
        with self._read([scope], keep_run=keep_run):
            return [row_to_edge(r) for r in self.q(sql, (scope, *params))]

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]:
        return self._edges(scope, "((src = %s AND dst = %s) OR (src = %s AND dst = %s))", (a, b, b, a))

    def revisions(self, scope: str, item_id: str) -> list[str]:
        with self._read([scope]):
            return purge.revisions(self.q, scope, item_id)

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        if self._absent is not None and (scope, SUPERSEDED_PREFIX + fingerprint) in self._absent.fingerprints:
            return None
        with self._read([scope]):
            rows = self.q(
                "SELECT item_id FROM fingerprints WHERE scope = %s AND fp = %s ORDER BY item_id DESC LIMIT 1",
                (scope, SUPERSEDED_PREFIX + fingerprint),
            )
            return self.item(scope, rows[0][0]) if rows else None

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        return self._edges(scope, "(src = %s OR dst = %s) AND closed_at IS NULL", (item_id, item_id))

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        return self._edges(scope, "src = %s AND type = %s AND closed_at IS NULL", (item_id, type))

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        return evidence.sources(self.events, scope, item_id)

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        with self._read([scope]):
            return [row_to_item(r) for r in purge.derived_rows(self.q, scope, parent_ids)]

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        with self._read([scope]):
            return conv.state(self.q, scope, conversation)

    def conversation_entry(self, scope: str, entry_id: str) -> ConversationEntry | None:
        with self._read([scope]):
            return conv.entry(self.q, scope, entry_id)

    # -- conversations: reads -------------------------------------------------------------
    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[ConversationEntry]:
        with self._read([scope]):
            return conv.entries(self.q, scope, conversation, after_position, kinds)

    def conversations(self, scope: str) -> list[ConversationState]:
        with self._read([scope]):
            return conv.conversations(self.q, scope)

    def conversation_speakers(self, scope: str) -> list[str]:
        with self._read([scope]):
            return conv.speakers(self.q, scope)

    def archive_search(
        self, scope: str, query: str, *, conversation: str | None, limit: int
    ) -> list[ConversationEntry]:
        with self._read([scope]):
            return conv.archive_search(self.q, scope, query, conversation, limit)

    # -- primitive writes -----------------------------------------------------------------
    def append_event(self, event: Event) -> Event:
        d = event.to_dict()
        self._write_scopes([event.scope])
        # The log's position from one counter row updated in this transaction, not a sequence: a
        # PostgreSQL sequence never gives back the values of a rolled-back write, so refused batches
        # would leave gaps that SQLite's log (and the reference store's) does not have. The row lock
        # orders writers across scopes until they commit, as SQLite's one write lock does; per-scope
        # counters are the way to lift that if cross-scope write throughput ever needs it.
        # One round trip: the counter's UPDATE and the INSERT in one statement (a data-modifying
        # CTE runs exactly once, before the INSERT reads its value).
        rows = self.q(
            "WITH s AS (UPDATE settings SET v = (v::bigint + 1)::text WHERE k = 'event_seq' "
            "RETURNING v::bigint AS seq) "
            "INSERT INTO events (scope, seq, id, type, at, cause, payload) "
            "SELECT %s, s.seq, %s, %s, %s, %s, %s FROM s RETURNING seq",
            (
                d["scope"],
                d["id"],
                d["type"],
                d["at"],
                d["cause"],
                json.dumps(d["payload"], ensure_ascii=False),
            ),
        )
        return Event(
            id=event.id,
            type=event.type,
            scope=event.scope,
            at=event.at,
            cause=event.cause,
            payload=event.payload,
            seq=int(rows[0][0]),
        )

    def apply_change(self, change: Change, vectors: Mapping[str, np.ndarray]) -> None:
        projections.apply(self, change, vectors)

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
        scopes = sorted({str(getattr(c, "scope", "")) for c in commands})
        claim = idempotency.pending()  # an idempotency key this write carries (store/idempotency.py)
        with self._txn([], write=True):
            self._write_scopes(scopes)
            self._claim(claim)
            if self._absent is None or self._atomic:  # the outermost write of this transaction, or
                self._absent = self._absent or prefetch.Absent()  # each of an atomic block (prefetch.py)
                self._absent.load(self.q, commands)
            out = run_commands(self, commands, now=now, new_id=new_id, vectors=vectors)
            for scope in sorted({c.scope for c in commands if isinstance(c, Purge)}):
                # Dream-run summaries may quote the purged text: dropped with it, as on SQLite.
                self.x("DELETE FROM dream_runs WHERE scope = %s", (scope,))
            keys.erase(self, commands, claim)  # and so may recorded responses
        idempotency.written(claim)
        return out

    def execute_steps(
        self,
        steps: Sequence[Step],
        *,
        now: datetime,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Any]:
        """Every step in one transaction, each in a savepoint (see ``Store``)."""
        self._check_open()
        inner = batch_runner(self, now=now, new_id=new_id, vectors=vectors)

        def run(commands: Sequence[Command]) -> list[Outcome]:
            self._write_scopes(sorted({str(getattr(c, "scope", "")) for c in commands}))
            return inner(commands)

        batch = Batch(run=run, item=self.item)
        out: list[Any] = []
        claim = idempotency.pending()
        with self._txn([], write=True):
            self._claim(claim)
            for step in steps:
                try:
                    with self._savepoint():
                        out.append(step(batch))
                except ReverieError as exc:
                    if isinstance(exc, StorageError | ClosedError):
                        raise
                    out.append(exc)
        idempotency.written(claim)
        return out

    # -- idempotency keys (store/idempotency.py) -------------------------------------------
    def _claim(self, p: idempotency.Pending | None) -> None:
        """Inside a write: lock the claim's scope (a no-op if the commands' include it), take the key."""
        if p is not None:
            self._write_scopes([p.claim.scope])
            keys.claim(self, p)

    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        with self._read([scope]):
            return keys.lookup(self.q, scope, key, now)

    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        claim = idempotency.in_scope(scope, claim)
        with self._txn([claim.scope], write=True):
            keys.record(self, claim, status, body, now)
            return keys.lookup(self.q, claim.scope, claim.key, now)

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        with self._read([scope]):
            return keys.rows(self.q, scope, now)

    def put_idempotency(self, scope: str, rows: Sequence[Recorded]) -> int:
        checked = idempotency.of_scope(scope, rows)
        with self._txn([], write=True):
            self._write_scopes([scope])  # as a write's claim does: the scope named and locked
            keys.put(self, checked)
        return len(checked)

    # -- leases ---------------------------------------------------------------------------
    def take_lease(self, scope: str, owner: str, *, now: datetime, expires_at: datetime) -> Lease:
        """One upsert in one write transaction, as on SQLite: it writes only when the row is free,
        expired at ``now``, or already ours (a renewal), so two stores can never both hold it.

        The row alone decides, with nothing kept on the server session (no session advisory
        lock): behind a transaction pooler a session serves many clients in turn, and a
        session's advisory lock is re-entrant, so another client of the holder's session would
        have taken a live lease. A holder that died is freed by its row's expiry, or sooner by
        a pass on its host that finds its process gone (``reverie.dream.lease``)."""
        with self._txn([scope], write=True):
            rows = self.q(
                "INSERT INTO leases (scope, owner, expires_at) VALUES (%s, %s, %s) ON CONFLICT (scope) "
                "DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at "
                "WHERE leases.expires_at <= %s OR leases.owner = excluded.owner "
                "RETURNING owner, expires_at",
                (scope, owner, to_iso(expires_at), to_iso(now)),
            )
            if not rows:  # held by another owner, unexpired: the upsert wrote nothing
                rows = self.q("SELECT owner, expires_at FROM leases WHERE scope = %s", (scope,))
        return Lease(scope, str(rows[0][0]), from_iso(str(rows[0][1])))

    def release_lease(self, scope: str, owner: str) -> bool:
        with self._txn([scope], write=True):
            return self.x("DELETE FROM leases WHERE scope = %s AND owner = %s", (scope, owner)) > 0

    # -- dream runs -----------------------------------------------------------------------
    def record_dream_run(self, scope: str, summary: Mapping[str, Any], *, at: datetime) -> None:
        text = dream_summary_json(summary)
        with self._txn([scope], write=True):
            self.x("INSERT INTO dream_runs (scope, at, summary) VALUES (%s, %s, %s)", (scope, to_iso(at), text))
            self.x(
                "DELETE FROM dream_runs WHERE scope = %s AND n <= "
                "(SELECT n FROM dream_runs WHERE scope = %s ORDER BY n DESC LIMIT 1 OFFSET %s)",
                (scope, scope, DREAM_RUNS_KEPT),
            )

    # -- intents and tasks (store/postgres/agenda.py) --------------------------------------
    def intent(self, scope: str, intent_id: str) -> Intent | None:
        with self._read([scope]):
            return agenda.intent(self.q, scope, intent_id)

    def task(self, scope: str, task_id: str) -> Task | None:
        with self._read([scope]):
            return agenda.task(self.q, scope, task_id)

    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]:
        """The scope's intents matching ``where``, highest priority first (ties: by id)."""
        with self._read([scope]):
            return agenda.intents(self.q, scope, where, limit)

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]:
        """The scope's tasks matching ``where``, in creation order (by id)."""
        with self._read([scope]):
            return agenda.tasks(self.q, scope, where, limit)

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        with self._read([scope]):
            rows = self.q(
                "SELECT scope, at, summary FROM dream_runs WHERE scope = %s ORDER BY n DESC LIMIT %s",
                (scope, max(limit, 0)),
            )
        return [dream_run(r[0], r[1], json.loads(r[2])) for r in rows]

    # -- Store protocol: reads ------------------------------------------------------------
    def get(self, scope: str, item_id: str) -> Item | None:
        return self.item(scope, item_id)

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]:
        ids = list(dict.fromkeys(item_ids))
        with self._read([scope], keep_run=True):
            rows = self.q(SELECT_ITEM + " WHERE scope = %s AND id = ANY (%s)", (scope, ids))
            if self._txn_scopes is None:
                self._edge_run.saw(scope, ids)  # recall asks their edges next (edgerun.py)
        return {r[0]: row_to_item(r) for r in rows}

    def query(
        self, scope: str, where: Filter, sort: Sort, *, limit: int, offset: int = 0, subscopes: bool = False
    ) -> list[Item]:
        params: list[Any] = [scope]
        scope_sql = "scope = %s"
        if subscopes:
            scope_sql = "(scope = %s OR starts_with(scope, %s))"
            params.append(scope + "/")
        cond = compile_filter(where, params)
        sql = f"{SELECT_ITEM} WHERE {scope_sql} AND {cond} ORDER BY {compile_sort(sort)} LIMIT %s OFFSET %s"
        with self._txn([scope], subscopes=subscopes):
            return [row_to_item(r) for r in self.q(sql, (*params, limit, offset))]

    def count(self, scope: str, where: Filter) -> int:
        params: list[Any] = [scope]
        cond = compile_filter(where, params)
        with self._read([scope]):
            return int(self.q(f"SELECT count(*) FROM items WHERE scope = %s AND {cond}", params)[0][0])  # nosec B608 # compiled: values are params

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        where, params = ("true", ()) if item_id is None else ("(src = %s OR dst = %s)", (item_id, item_id))
        if not include_closed:
            where += " AND closed_at IS NULL"
        if item_id is None or include_closed:
            return self._edges(scope, where, params)
        with self._read([scope], keep_run=True):  # an item get_many just read: its run's one statement
            if self._txn_scopes is None and self._edge_run.covers(scope, item_id):
                return self._edge_run.edges(self.q, scope, item_id)
            return self._edges(scope, where, params, keep_run=True)

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        return self._edges(scope, "type = %s" + ("" if include_closed else " AND closed_at IS NULL"), (type,))

    def events(self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000) -> list[Event]:
        sql = _EVENTS + " WHERE scope = %s AND seq > %s"
        params: list[Any] = [scope, after_seq]
        if item_id is not None:
            if _UUID.fullmatch(item_id):  # the events naming the id (schema 6), not a scan of the scope's
                sql += " AND reverie_event_refs(payload) @> ARRAY[%s]::text[]"
                params.append(item_id)
            sql += f" AND strpos(payload, %s) > 0 AND {_ABOUT_ITEM}"
            params += [item_id] * (1 + _ABOUT_ITEM.count("%s"))
        sql += " ORDER BY seq LIMIT %s"
        params.append(limit)
        with self._read([scope]):
            return [_event(r) for r in self.q(sql, params)]

    def tombstones(self, scope: str) -> list[tuple[str, str]]:
        with self._read([scope]):
            rows = self.q("SELECT fp, item_id FROM tombstones WHERE scope = %s ORDER BY fp", (scope,))
        return [(r[0], r[1]) for r in rows]

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        """bm25 over the scope's own statistics (``lexical.py``); with history, over current and closed
        rows as one collection (the two sets' statistics summed), so their scores compare."""
        with self._read([scope]):
            out = lexical.search(
                self.q, scope, match, limit, current=True if current_only else None, stats=self.scope_stats
            )
        out.sort(key=lambda p: (-p[1], p[0]))
        return out[:limit]

    def _check_served(self, scope: str, name: str, current: bool) -> None:
        st = self.scope_stats(scope, current)
        lo, hi, untagged = st.made_by_min, st.made_by_max, st.untagged
        if lo is None and not untagged:
            return
        if untagged or lo != name or hi != name:
            other = lo if lo != name else hi
            raise EmbedderMismatchError(
                f"scope {scope!r} holds vectors made by {other!r} but the store's embedder is {name!r}: a reindex "
                "did not finish; run `reverie reindex` (Memory.reindex()) to finish it"
            )

    def scope_stats(self, scope: str, current: bool) -> scopestats.Stats:
        """The scope's row, token and vector counts (``scopestats.py``: kept while its log stands)."""
        with self._read([scope]):
            return self._stats.get(
                self.q,
                scope,
                current,
                writing=self._writing,
                locked=scope in self._locked,
                key=lambda: self._scope_key(scope),
            )

    def _matrix(self, scope: str, current: bool, dim: int) -> tuple[list[str], np.ndarray]:
        state = "IS NULL" if current else "IS NOT NULL"
        cur = self._run(
            f"SELECT id, vec FROM items WHERE scope = %s AND vec IS NOT NULL AND closed_at {state} ORDER BY n",  # nosec B608 # constant
            (scope,),
            binary=True,
        )
        rows = cur.fetchall()
        if not rows:
            return [], np.zeros((0, dim), dtype=np.float32)
        # pgvector's binary form: int16 dimension, int16 unused, then big-endian float32s
        raw = b"".join(bytes(r[1])[4:] for r in rows)
        mat = np.frombuffer(raw, dtype=">f4").astype(np.float32).reshape(len(rows), -1)
        return [str(r[0]) for r in rows], mat

    def _cached_matrix(self, scope: str, current: bool, dim: int) -> tuple[list[str], np.ndarray]:
        """``_matrix``, kept until the scope's log moves: every change to a scope's vectors comes with
        an event of that scope (from any process), and ``reindex`` / ``rebuild`` bump ``vectors_epoch``.
        Why: reading 10k vectors from the server is most of a recall's time otherwise."""
        key = self._scope_key(scope)
        hit = self._vector_cache.get((scope, current))
        if hit is not None and hit[0] == key:
            return hit[1], hit[2]
        ids, mat = self._matrix(scope, current, dim)
        if len(self._vector_cache) > 64:
            self._vector_cache.clear()
        self._vector_cache[(scope, current)] = (key, ids, mat)
        return ids, mat

    def _bump_vectors_epoch(self) -> None:
        self.x(
            "INSERT INTO settings (k, v) VALUES ('vectors_epoch', '1') "
            "ON CONFLICT (k) DO UPDATE SET v = (settings.v::bigint + 1)::text"
        )

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        with self._read([scope]):
            name, dim = self._embedder_of(scope) or ("", 0)
            if name:
                self._check_served(scope, name, True)
            ids, mat = self._cached_matrix(scope, True, dim)
            if current_only:
                return ids, mat
            if name:
                self._check_served(scope, name, False)
            hids, hmat = self._cached_matrix(scope, False, dim)
        return ids + hids, np.concatenate([mat, hmat]) if hids else mat

    def nearest(self, scope: str, query: np.ndarray, *, limit: int) -> list[str] | None:
        """pgvector's HNSW answer for a scope with its own index (``ann.py``); None: scan exactly."""
        return ann.nearest(self, scope, query, limit)

    def warm(self, scope: str) -> bool:
        """Build ``scope``'s own HNSW index if it is large enough (``ann.warm``)."""
        return ann.warm(self, scope)

    def _embedder_of(self, scope: str) -> tuple[str, int] | None:
        """``embedder()`` from the scope's key (``_scope_key``): no statement of its own in a read
        that needs the key anyway (the dense leg: ``vectors``, ``ann.nearest``)."""
        key = self._scope_key(scope)
        return None if key[2] is None else (str(key[2]), int(key[3]))

    def embedder(self) -> tuple[str, int] | None:
        with self._read(None):
            rows = dict(self.q("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')"))
        if "embedder" not in rows:
            return None
        return str(rows["embedder"]), int(rows["embedder_dim"])

    def set_embedder(self, name: str, dim: int) -> None:
        before = self.embedder()
        with self._txn([], write=True):
            for k, v in (("embedder", name), ("embedder_dim", str(dim))):
                self.x(
                    "INSERT INTO settings (k, v) VALUES (%s, %s) ON CONFLICT (k) DO UPDATE SET v = excluded.v", (k, v)
                )
            self._made_by = None
            if before is not None and before[1] != dim:
                # each scope's HNSW index is over vec::vector(old dim): gone with it (warm rebuilds)
                for index in ann.indexes(self.q):
                    self.x(f"DROP INDEX IF EXISTS {index}")

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int:
        """Every stored vector recomputed under the recorded embedder in one transaction: readers see
        the old vectors until it commits, then the new ones; never a mix."""
        self._check_open()
        name = (self.embedder() or ("", 0))[0]
        with self._txn([], write=True):
            scopes = [str(r[0]) for r in self.q(_SCOPES)]  # every item's scope has its events
            self._write_scopes(scopes)
            self._bump_vectors_epoch()
            todo: list[tuple[str, str, str]] = []
            for scope in scopes:
                todo += [
                    (scope, str(r[0]), str(r[1]))
                    for r in self.q("SELECT id, text FROM items WHERE scope = %s ORDER BY n", (scope,))
                ]
            for start in range(0, len(todo), batch):
                chunk = todo[start : start + batch]
                vecs = embed([t for _, _, t in chunk])
                self.xmany(
                    "UPDATE items SET vec = %s::vector, made_by = %s WHERE scope = %s AND id = %s",
                    [(projections.vector_literal(v), name, s, i) for (s, i, _), v in zip(chunk, vecs, strict=True)],
                )
                if progress:
                    progress(min(start + batch, len(todo)), len(todo))
        return len(todo)

    def scopes(self) -> list[str]:
        """Every scope with an event in its log (``Store.scopes``), sorted, by a skip scan of the
        log's primary key (``_SCOPES``): one index probe per scope, however long the log."""
        with self._txn([]):
            return [str(r[0]) for r in self.q(_SCOPES)]

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        """Counts by tier / kind / source (current items) and by status (all items), in one
        statement, so all four are of one commit: as four statements, a write committed between
        them was in the counts by status and not in those by tier (``_SUMMARY``)."""
        out: dict[str, dict[str, int]] = {col: {} for col in _SUMMARY_SETS.values()}
        with self._read([scope]):
            for mask, value, current, every in self.q(_SUMMARY, (scope,)):
                col = _SUMMARY_SETS[int(mask)]
                n = int(every if col == "status" else current)
                if n:
                    out[col][str(value)] = n
        return out

    # -- health ---------------------------------------------------------------------------
    def doctor(self) -> DoctorReport:
        with self._snapshot([]):  # one commit's state: a write landing meanwhile is no drift
            scopes = [str(r[0]) for r in self.q(_SCOPES)]
            self._allow(scopes)
            report = health.check(self.q, scopes, self.made_by())
            problems, counts = agenda.check(self.q, scopes)
        report.problems += problems
        report.counts.update(counts)
        return report

    def scrub_purged(self) -> list[str]:
        """Rewrite every table (``VACUUM (FULL)``, as the owner) so purged text leaves their pages;
        returns the tables. Locks each table while it is copied: see ``store/postgres/scrub.py``."""
        from reverie.store.postgres.scrub import scrub

        with self._lock:
            self._check_open()
            if self.read_only:
                from reverie.errors import ReadOnlyError

                raise ReadOnlyError(f"{self.path} is open read-only; open it without --read-only to scrub it")
            return scrub(self.q, self.x)

    def rebuild(self, embed: Embed) -> None:
        """Empty every projection and replay the event log through the same projection code."""
        with self._txn([], write=True):
            scopes = [str(r[0]) for r in self.q(_SCOPES)]
            self._write_scopes(scopes)
            self._bump_vectors_epoch()
            for table in PROJECTION_TABLES:
                self.x(f"DELETE FROM {table} WHERE scope = ANY (%s)", (scopes,))  # nosec B608 # constant table
            view = ProjectionView(self.item, self.edge, self.task, self.intent)
            for r in self.q(_EVENTS + " WHERE scope = ANY (%s) ORDER BY seq", (scopes,)):
                event = _event(r)
                texts = [event.payload["item"]["text"]] if "item" in event.payload else []
                vecs = dict(zip(texts, embed(texts), strict=True)) if texts else {}
                for change in project(event, view):
                    self.apply_change(change, vecs)

    def replay(self, events: Sequence[Event], vectors: Callable[[Event], Mapping[str, np.ndarray]]) -> None:
        """Append ``events`` (another store's log, in its order) and project them, in one transaction
        (``reverie migrate``): the copy gets new ``seq`` numbers in the same order."""
        with self._txn([], write=True):
            view = ProjectionView(self.item, self.edge, self.task, self.intent)
            for event in events:
                stored = self.append_event(event)
                for change in project(stored, view):
                    self.apply_change(change, vectors(event))

    def in_atomic(self) -> bool:
        with self._lock:  # another thread's block is waited for: True only for this thread's own
            return self._atomic

    def close(self) -> None:
        with self._lock:
            if self._atomic:
                raise refused_in_block("close()")
            if not self._closed:
                self._closed = True
                with contextlib.suppress(Exception):
                    self._conn.close()

    def now_iso(self, when: datetime) -> str:
        return to_iso(when)


def check_url_or_raise(url: str) -> None:
    """``InvalidInputError`` unless ``url`` is a PostgreSQL URL (for callers that route by scheme)."""
    if not pgconnect.is_url(url):
        raise InvalidInputError(f"{url!r} is not a postgresql:// URL")
