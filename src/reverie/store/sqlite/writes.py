"""The SQLite store's writes: appending events and projecting them, the ``execute`` /
``execute_steps`` transactions (a purge's scrub among them), leases, dream-run records and
idempotency rows.

Why on top of the reads: the reducer runs inside the write against this store as its
``StateView`` (``reads.py``), so every check it makes reads the state the write will change.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from reverie.errors import ClosedError, ReverieError, StorageError
from reverie.model.agenda import PutIntent, PutTask
from reverie.model.clock import from_iso, to_iso
from reverie.model.commands import Command, Purge, erases_content
from reverie.model.conversation import EraseEntries, PutConversation, PutEntry, SetEntryVisibility
from reverie.model.events import Event
from reverie.model.item import Item
from reverie.model.projection import (
    Change,
    DropTombstone,
    EraseContent,
    PutEdge,
    PutItem,
    PutTiers,
    PutTombstone,
    SetPaused,
    superseded_prints,
)
from reverie.model.validate import fingerprints
from reverie.model.values import value_text
from reverie.store import idempotency
from reverie.store.engine import batch_runner, run_commands
from reverie.store.fts_tokens import index_form
from reverie.store.idempotency import Claim, Recorded
from reverie.store.protocol import DREAM_RUNS_KEPT, Batch, Lease, Outcome, Step, dream_summary_json
from reverie.store.sqlite import agenda, event_refs, fts_scope, purge
from reverie.store.sqlite import conversation as conv
from reverie.store.sqlite import idempotency as keys
from reverie.store.sqlite.reads import SQLiteReads
from reverie.store.sqlite.sql import ITEM_COLUMNS, edge_to_row, item_changes, item_to_row

_INSERT_ITEM = "INSERT INTO items (" + ", ".join(ITEM_COLUMNS) + ") VALUES (" + ", ".join("?" * len(ITEM_COLUMNS)) + ")"  # nosec B608 # constant columns, ? marks
_UPDATE_ITEM = "UPDATE items SET " + ", ".join(f"{c} = ?" for c in ITEM_COLUMNS[1:]) + " WHERE id = ?"  # nosec B608 # constant columns


_FILL_VECTOR = (
    "INSERT INTO vectors (n, scope, vec, made_by) "
    "SELECT i.n, i.scope, ?, (SELECT v FROM settings WHERE k = 'embedder') "
    "FROM items i WHERE i.id = ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.n = i.n)"
)


class SQLiteWrites(SQLiteReads):
    """``SQLiteReads`` plus every write: the log, its projections, leases, runs and keys."""

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

    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        claim = idempotency.in_scope(scope, claim)
        with self._write():
            keys.record(self._x, claim, status, body, now)
            return keys.lookup(self._conn, claim.scope, claim.key, now)

    def put_idempotency(self, scope: str, rows: Sequence[Recorded]) -> int:
        checked = idempotency.of_scope(scope, rows)
        with self._write():
            keys.put(self._x, checked)
        return len(checked)


def _extra(item: Item) -> str:
    """Secondary full-text column: the structured key/value and tags, weighted below the text."""
    parts = [p for p in (item.key, None if item.value is None else value_text(item.value)) if p]
    parts += list(item.tags)
    return " ".join(parts)
