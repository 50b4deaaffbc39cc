"""The PostgreSQL store's connection, statements and transactions.

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

``PostgresBase`` is the bottom layer of ``PostgresStore`` (``store.py`` says how the layers
stack): connecting, migrating the schema, running statements (``_run``, ``q``, ``x``), and the
transactions and plain reads every other layer runs them in.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np

from reverie.errors import ClosedError, InvalidInputError, ReverieError, StorageError
from reverie.model.clock import to_iso
from reverie.store import idempotency
from reverie.store.blocks import refused_in_block, refused_in_snapshot
from reverie.store.postgres import connect as pgconnect
from reverie.store.postgres import edgerun, prefetch, scopestats
from reverie.store.postgres import idempotency as keys
from reverie.store.postgres import legacy_names as legacy
from reverie.store.postgres.schema import SCHEMA_VERSION, SCOPES_VIEW, upgrade_statements
from reverie.store.protocol import BUSY_TIMEOUT_MS, WriteLockBusy

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


class PostgresBase:
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
        self._reading = False  # inside ``read_snapshot``: every write is refused
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
            if write and self._reading:
                raise refused_in_snapshot()
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
    def read_snapshot(self) -> Iterator[None]:
        """The block's reads in one REPEATABLE READ, READ ONLY transaction (``Store.read_snapshot``,
        ``_snapshot``): they all read the snapshot its first statement takes, so a write another
        session commits meanwhile is in none of them. Nothing outlives it on the server session.
        A write inside is refused (``_txn``), before the server would fail it as read-only."""
        with self._snapshot([]):
            outer = not self._reading
            self._reading = True
            try:
                yield
            finally:
                if outer:
                    self._reading = False

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

    def _claim(self, p: idempotency.Pending | None) -> None:
        """Inside a write: lock the claim's scope (a no-op if the commands' include it), take the key."""
        if p is not None:
            self._write_scopes([p.claim.scope])
            keys.claim(self, p)

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
