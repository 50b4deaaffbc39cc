"""The write loop shared by every backend: decide → append → project → apply, per command.

Commands of one batch run in order inside one transaction and each sees the effects of the
ones before it (two equal claims in one batch corroborate instead of duplicating). The
backend supplies the transaction, the reads and the two primitive writes.

Item reads go through a per-call cache (``_ItemCache``): the reducer and then the projection
of the same command read the same row, and decoding a row into an ``Item`` was a third of the
cost of a one-event command (a dream pass applies ~40k of them over a 100k backlog). Every
write that can change an item row drops it from the cache, so a read still sees the row as
the transaction holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

import numpy as np

from reverie.errors import InvalidInputError
from reverie.model.agenda import Intent, PutIntent, PutTask, Task
from reverie.model.commands import Command, erases_content
from reverie.model.conversation import ConversationState
from reverie.model.conversation import Entry as ConversationEntry
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.projection import (
    Change,
    DropTombstone,
    ProjectionView,
    PutEdge,
    PutItem,
    PutTiers,
    PutTombstone,
    SetPaused,
    project,
)
from reverie.model.reduce_kit import Context, StateView
from reverie.model.reducer import decide
from reverie.store.protocol import Outcome


class Backend(StateView, Protocol):
    def append_event(self, event: Event) -> Event: ...

    def apply_change(self, change: Change, vectors: Mapping[str, np.ndarray]) -> None: ...

    def edge(self, scope: str, edge_id: str) -> Edge | None: ...

    def item(self, scope: str, item_id: str) -> Item | None: ...

    def last_recorded_at(self, scopes: Sequence[str]) -> datetime | None:
        """The time of the last event recorded in the store (PostgreSQL: in ``scopes``), None if none."""
        ...


def run_commands(
    backend: Backend,
    commands: Sequence[Command],
    *,
    now: datetime,
    new_id: Callable[[], str],
    vectors: Mapping[str, np.ndarray],
) -> list[Outcome]:
    """Run inside the backend's open write transaction; raises (and the caller rolls back) on refusal."""
    now = record_time(backend, commands, now)
    cached = _ItemCache(backend)
    view = ProjectionView(cached.item, backend.edge, backend.task, backend.intent)
    outcomes: list[Outcome] = []
    for cmd in commands:
        ctx = Context(now=now, new_id=new_id, cause=new_id())
        stored: list[Event] = []
        for event in decide(cmd, cached, ctx):
            event = backend.append_event(event)
            stored.append(event)
            for change in project(event, view):
                backend.apply_change(change, vectors)
                cached.changed(change)
        outcomes.append(Outcome(tuple(stored)))
    return outcomes


def record_time(backend: Backend, commands: Sequence[Command], now: datetime) -> datetime:
    """``now``, or the last recorded event's time if the clock reads earlier: record time never
    goes backwards.

    Why clamp rather than refuse: a clock stepping back (an NTP correction, a VM restored from a
    snapshot, two hosts a few milliseconds apart on one PostgreSQL) would otherwise leave the store
    unwritable until the clock caught up. Taken as is (outside tester, finding 16), a revise closed
    the old version before it was recorded, and ``as_of`` then showed a correction believed before
    the claim it corrects was heard. Read inside the write transaction, so no writer commits a
    later time between this read and this batch's events.
    """
    scopes = sorted({str(getattr(c, "scope", "")) for c in commands})
    last = backend.last_recorded_at(scopes)
    return last if last is not None and last > now else now


def batch_runner(
    backend: Backend, *, now: datetime, new_id: Callable[[], str], vectors: Mapping[str, np.ndarray]
) -> Callable[[Sequence[Command]], list[Outcome]]:
    """``Batch.run`` for ``execute_steps``: ``run_commands``, refusing a purge.

    Why refuse: a purge must be followed, after its commit, by scrubbing the file (SQLite keeps
    freed pages and WAL frames; see ``store/sqlite/purge.py``), which only ``Store.execute``
    does. Inside a shared batch transaction the erased content would stay on disk.
    """

    def run(commands: Sequence[Command]) -> list[Outcome]:
        if erases_content(commands):  # an item's purge or a message's
            raise InvalidInputError("a purge cannot run inside execute_steps; send it through Store.execute")
        return run_commands(backend, commands, now=now, new_id=new_id, vectors=vectors)

    return run


class _ItemCache:
    """The backend's ``StateView`` with ``item`` reads remembered until a change touches the row.

    Lives for one ``run_commands`` call (inside one transaction), so no other writer can change
    a row under it. ``PutItem`` rewrites one row, ``PutTiers`` several: those entries are
    dropped. Edges, tombstones and the paused flag live in other tables. Anything else (a purge's log rewrite redacts
    ``last_used_query`` of other items) drops every entry.
    """

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._items: dict[tuple[str, str], Item] = {}
        self._paused: dict[str, bool] = {}  # every command asks (a round trip on PostgreSQL); SetPaused drops it

    def item(self, scope: str, item_id: str) -> Item | None:
        key = (scope, item_id)
        hit = self._items.get(key)
        if hit is None:
            hit = self._backend.item(scope, item_id)
            if hit is not None:  # absence is not cached: a later event of the command may create it
                self._items[key] = hit
        return hit

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        return self._backend.versions(scope, item_ids)  # every change is written through: always current

    def changed(self, change: Change) -> None:
        if isinstance(change, SetPaused):
            self._paused.pop(change.scope, None)
        if isinstance(change, PutItem):
            self._items.pop((change.item.scope, change.item.id), None)
        elif isinstance(change, PutTiers):
            for item_id, _ in change.tiers:
                self._items.pop((change.scope, item_id), None)
        elif not isinstance(change, PutEdge | PutTombstone | DropTombstone | SetPaused | PutIntent | PutTask):
            self._items.clear()

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        return self._backend.live_holders(scope, fingerprint)

    def tombstone(self, scope: str, fingerprint: str) -> str | None:
        return self._backend.tombstone(scope, fingerprint)

    def paused(self, scope: str) -> bool:
        hit = self._paused.get(scope)
        if hit is None:
            hit = self._paused[scope] = self._backend.paused(scope)
        return hit

    def edge(self, scope: str, edge_id: str) -> Edge | None:
        return self._backend.edge(scope, edge_id)

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        return self._backend.conversation_state(scope, conversation)

    def conversation_entry(self, scope: str, entry_id: str) -> ConversationEntry | None:
        return self._backend.conversation_entry(scope, entry_id)

    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[ConversationEntry]:
        return self._backend.conversation_entries(scope, conversation, after_position=after_position, kinds=kinds)

    def intent(self, scope: str, intent_id: str) -> Intent | None:
        return self._backend.intent(scope, intent_id)

    def task(self, scope: str, task_id: str) -> Task | None:
        return self._backend.task(scope, task_id)

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]:
        return self._backend.edges_between(scope, a, b)

    def revisions(self, scope: str, item_id: str) -> list[str]:
        return self._backend.revisions(scope, item_id)

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        return self._backend.superseded_by_fingerprint(scope, fingerprint)

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        return self._backend.edges_of(scope, item_id)

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        return self._backend.edges_from(scope, item_id, type)

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        return self._backend.evidence_sources(scope, item_id)

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        return self._backend.derived(scope, parent_ids)
