"""The PostgreSQL store's writes: appending events and projecting them (``projections.py``),
the ``execute`` / ``execute_steps`` transactions, idempotency claims and rows, leases and
dream-run records.

Why on top of the reads: the reducer runs inside the write against this store as its
``StateView`` (``reads.py``), so every check it makes reads the state the write will change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from reverie.errors import ClosedError, ReverieError, StorageError
from reverie.model.clock import from_iso, to_iso
from reverie.model.commands import Command, Purge
from reverie.model.events import Event
from reverie.model.projection import Change
from reverie.store import idempotency
from reverie.store.engine import batch_runner, run_commands
from reverie.store.idempotency import Claim, Recorded
from reverie.store.postgres import idempotency as keys
from reverie.store.postgres import prefetch, projections
from reverie.store.postgres.reads import PostgresReads
from reverie.store.protocol import DREAM_RUNS_KEPT, Batch, Lease, Outcome, Step, dream_summary_json


class PostgresWrites(PostgresReads):
    """``PostgresReads`` plus every write: the log, its projections, keys, leases and runs."""

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
    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        claim = idempotency.in_scope(scope, claim)
        with self._txn([claim.scope], write=True):
            keys.record(self, claim, status, body, now)
            return keys.lookup(self.q, claim.scope, claim.key, now)

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
