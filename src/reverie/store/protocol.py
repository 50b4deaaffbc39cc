"""The narrow ``Store`` protocol every backend implements (reference, SQLite, later PostgreSQL).

Reads all take ``scope`` first, as a required positional parameter: a backend cannot offer a
read that forgets the isolation boundary (``tests/test_store_protocol.py`` checks this by
introspection). Writes go through ``execute``, which runs commands through the pure reducer
and applies the resulting events and projection changes in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from reverie.errors import InvalidInputError, StorageError
from reverie.model.commands import Command
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.query import Filter, Sort

if TYPE_CHECKING:
    from reverie.store.idempotency import Claim, Recorded

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one command did: its events (with their store-assigned ``seq``)."""

    events: tuple[Event, ...]

    @property
    def item_id(self) -> str | None:
        """The item the command created or touched, when there is one."""
        for e in self.events:
            if "item" in e.payload:
                return str(e.payload["item"]["id"])
            if "id" in e.payload:
                return str(e.payload["id"])
        return None


class WriteLockBusy(StorageError):
    """``atomic(scope, wait=False)`` found another writer holding the write lock: the block did not
    run and nothing was written. A ``StorageError`` (code ``storage``), so one that escaped would
    still read as "locked by another writer; retry"; ``Memory.recall`` catches it to keep its uses
    for later instead of waiting (``reverie.memory.pending_uses``)."""


#: Flag on an item stored while the embedder was failing: it has no vector row yet, and
#: ``doctor`` counts it (``counts["vectors_pending"]``) instead of calling it a missing vector.
#: Declared here, beside the stores that honour it; ``reverie.memory.core`` sets and clears it.
VECTOR_PENDING = "vector_pending"


@dataclass(slots=True)
class DoctorReport:
    """Projection health: empty ``problems`` means every index agrees with the record store."""

    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": list(self.problems), "counts": dict(self.counts)}


@dataclass(frozen=True, slots=True)
class Lease:
    """Who holds a scope's lease (one dream pass per scope at a time) and until when (UTC)."""

    scope: str
    owner: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Batch:
    """What one step of ``execute_steps`` may do inside the shared write transaction: run
    commands (seeing every earlier step's effects) and read an item as it stands now."""

    run: Callable[[Sequence[Command]], list[Outcome]]
    item: Callable[[str, str], Item | None]


#: One step of ``execute_steps``: raise a ``ReverieError`` to have its writes rolled back alone.
Step = Callable[[Batch], Any]

#: Dream-pass summaries a store keeps per scope (``record_dream_run``); older ones are dropped.
DREAM_RUNS_KEPT = 20
#: How long a write waits for another writer's lock before it fails with the busy error and
#: changes nothing, on every backend (SQLite's ``busy_timeout``, PostgreSQL's ``lock_timeout``).
BUSY_TIMEOUT_MS = 30_000


class Store(Protocol):
    def execute(
        self,
        commands: Sequence[Command],
        *,
        now: Any,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Outcome]:
        """Apply all commands atomically (all or none) and return one outcome per command."""
        ...

    def execute_steps(
        self,
        steps: Sequence[Step],
        *,
        now: Any,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Any]:
        """Run ``steps`` in order in one write transaction, each inside a savepoint.

        A step that raises a ``ReverieError`` (a stale version, a closed item) is rolled back
        alone and the error takes its place in the result; the others commit together. Any
        other exception rolls the whole transaction back and propagates. Why: a dream pass
        applies thousands of small actions; one transaction instead of one per action makes
        a backlog pass fast, and the savepoints keep one stale action from failing the rest.
        """
        ...

    def atomic(self, scope: str, *, wait: bool = True) -> AbstractContextManager[None]:
        """Run the block's writes (``execute``, ``execute_steps``, any other) in one transaction.

        The block commits when it ends and rolls back whole if it raises, or if the process dies
        inside it. Each write inside is a savepoint of it, so a write refused inside the block
        undoes only itself, as it would alone; reads inside see the block's writes. The block
        holds the write lock throughout (SQLite: the file's; PostgreSQL: ``scope``'s, taken
        first), so other writers wait for it. An idempotency claim pending on entry
        (``idempotency.carrying``) is taken by the block's first statement and written with it.
        Why: an import replays thousands of calls that must land together or not at all.

        ``wait=False``: take the write lock only if it is free now, else raise ``WriteLockBusy``
        before the block runs (nothing written, no waiting for the busy timeout). Inside this
        thread's own open block the lock is held already and the block simply nests. Why: recording
        a recall's use is a write, and a read must not queue behind another process's import.
        """
        ...

    def read_snapshot(self) -> AbstractContextManager[None]:
        """Run the block's reads against one commit of the store: a write another connection or
        process commits meanwhile is in all of them or in none.

        Outside the block each read is its own snapshot, so a caller that reads several times
        (``Memory.summary``'s counts, a slice export's items, edges and log, ``migrate``'s whole
        source) could see a write in some reads and not in others: counts that disagree, a slice
        holding a claim as current beside the edge that closed it. SQLite: one WAL read
        transaction (it never waits for a writer, and writers never wait for it); PostgreSQL: one
        REPEATABLE READ, READ ONLY transaction; the reference store: its lock. Reads only: a
        write inside the block raises ``ConflictError`` before anything changes (SQLite and
        PostgreSQL). Inside this thread's open ``atomic`` block it is that block's view; a nested
        block joins the outer one. The store's other threads wait for the block to end.
        """
        ...

    def take_lease(self, scope: str, owner: str, *, now: datetime, expires_at: datetime) -> Lease:
        """Take (or renew, for the same ``owner``) the scope's lease if it is free or expired
        at ``now``, atomically; returns the lease as it stands afterwards — held by ``owner``
        on success, else by whoever holds it."""
        ...

    def release_lease(self, scope: str, owner: str) -> bool:
        """Drop the lease if ``owner`` holds it; returns whether it did."""
        ...

    def record_dream_run(self, scope: str, summary: Mapping[str, Any], *, at: datetime) -> None:
        """Keep ``summary`` (JSON-ready: ``reverie.dream.runs.summarize``) of a pass over ``scope``
        made at ``at``, and drop the scope's runs beyond the newest ``DREAM_RUNS_KEPT``, atomically.

        Why in the store and not the log: a summary is operational data, like a lease — the pass's
        actions and reasons are events already, and this is what a cron job's pass looked like for
        the readers that were not there (the review page, ``reverie dream --last``). It is not
        derived from events, so ``rebuild`` keeps it; a purge drops the scope's runs (they may quote
        the purged text). A summary that is not JSON is refused with ``InvalidInputError``.
        """
        ...

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        """The scope's recorded runs, newest (last recorded) first, at most ``limit``: each its
        summary with ``scope`` and ``at`` (ISO-8601 UTC) as recorded."""
        ...

    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        """The idempotency key's row in ``scope`` unless it expired at ``now`` (``store/idempotency.py``).

        The row itself is written by ``execute`` / ``execute_steps``: the first transaction that
        commits while a claim is pending (``idempotency.carrying``) inserts it as its first
        statement, or raises ``IdempotencyInProgressError`` (writing nothing) if the key is held.
        """
        ...

    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        """Record the response of ``claim``'s request (``scope`` is the claim's own) on its row, or
        insert a complete row if the request wrote nothing; a row of another request, or one a purge
        erased, is left as it is. Drops the scope's rows expired at ``now``. Returns the key's row
        as it stands afterwards."""
        ...

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        """The scope's idempotency keys unexpired at ``now``, by key, each as it is (with its
        response, without one yet, or erased by a purge): what ``reverie migrate`` copies."""
        ...

    def put_idempotency(self, scope: str, rows: Sequence[Recorded]) -> int:
        """Write ``rows`` (each of ``scope``, else ``InvalidInputError`` and nothing written) as they
        are, replacing a row of the same key; returns how many. Inside ``atomic`` they commit with
        the block: ``reverie migrate`` writes them in the transaction that copies the events."""
        ...

    def get(self, scope: str, item_id: str) -> Item | None: ...

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]: ...

    def query(
        self,
        scope: str,
        where: Filter,
        sort: Sort,
        *,
        limit: int,
        offset: int = 0,
        subscopes: bool = False,
    ) -> list[Item]: ...

    def count(self, scope: str, where: Filter) -> int: ...

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]: ...

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        """The scope's edges of one ``type`` (current ones unless ``include_closed``), by id.

        Why a typed read: the alias groups conflict detection and the person book need are a
        handful of ``alias`` edges in a scope whose ``about`` / ``derived_from`` edges grow with
        every extracted claim; reading them all per claim made conversation ingest quadratic.
        """
        ...

    def events(
        self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000
    ) -> list[Event]: ...

    def paused(self, scope: str) -> bool: ...

    def tombstones(self, scope: str) -> list[tuple[str, str]]: ...

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        """Full-text candidates best-first as (id, score) — higher score is better."""
        ...

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        """All stored vectors of the scope's items, as ids and an (n, dim) float32 matrix."""
        ...

    def warm(self, scope: str) -> bool:
        """Bring any search index of ``scope`` up to date now (idle work: a dream pass ends with it),
        so the next search does not pay for it; True if there was an index to warm."""
        ...

    def embedder(self) -> tuple[str, int] | None: ...

    def set_embedder(self, name: str, dim: int) -> None: ...

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int: ...

    def doctor(self) -> DoctorReport: ...

    def rebuild(self, embed: Embed) -> None: ...

    def scopes(self) -> list[str]:
        """Every scope whose log holds an event, sorted: a scope with any content (items, edges,
        intents, tasks, conversations, a learning pause), not only the scopes holding items —
        what ``migrate`` copies and what a dump of "every scope" must walk."""
        ...

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        """Counts by ``tier`` / ``kind`` / ``source`` over current items and by ``status`` over all
        (counted by the store: a summary of a million items must not read a million rows)."""
        ...

    def in_atomic(self) -> bool:
        """Is the calling thread inside this store's ``atomic`` block? (Another thread's block is
        waited for, so the answer is about this thread.) Why: ``close`` and ``backup`` inside the
        block would pull the connection from under its open write (``blocks.py``)."""
        ...

    def close(self) -> None:
        """Release the connection; ``ConflictError`` (nothing closed) inside this thread's ``atomic`` block."""
        ...


def dream_summary_json(summary: Mapping[str, Any]) -> str:
    """``summary`` as strict JSON text, the form both backends keep (so both return the same values).

    Strict: NaN or an object JSON cannot carry is refused here, at the write, rather than
    surfacing later as an HTTP response that cannot be encoded.
    """
    if not isinstance(summary, Mapping):
        raise InvalidInputError("a dream run summary must be a mapping")
    try:
        return json.dumps(dict(summary), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"a dream run summary must be JSON ({exc})") from None


def dream_run(scope: str, at: str, summary: Mapping[str, Any]) -> dict[str, Any]:
    """One recorded run as a store returns it: ``scope`` and ``at`` from the row, then the summary."""
    rest = {k: v for k, v in summary.items() if k not in ("scope", "at")}
    return {"scope": scope, "at": at, **rest}
