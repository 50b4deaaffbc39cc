"""The in-memory reference store: the simplest correct implementation, used as the test oracle.

Plain dicts, no indexes, no cleverness. Every backend must give the same answers for the
same commands (the conformance suite and the Hypothesis state machine compare them).
Atomicity comes from snapshotting the dicts before a batch and restoring them on failure.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from reverie.errors import ClosedError, ReverieError, StorageError
from reverie.model import events as ev
from reverie.model.agenda import (
    Intent,
    IntentQuery,
    PutIntent,
    PutTask,
    Task,
    TaskQuery,
    agenda_problems,
    agenda_record_id,
    intent_sort_key,
    is_agenda_event,
)
from reverie.model.clock import to_iso
from reverie.model.commands import Command, Purge
from reverie.model.conversation import (
    ConversationState,
    EraseEntries,
    PutConversation,
    PutEntry,
    SetEntryVisibility,
    quote_span,
    redact_entry,
    redact_events,
)
from reverie.model.conversation import Entry as ConversationEntry
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.projection import (
    SUPERSEDED_PREFIX,
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
from reverie.model.query import Filter, Sort, sort_items
from reverie.model.redact import REDACTED, plan_erasure, revision_chain
from reverie.model.validate import fingerprints
from reverie.store import evidence, fts_tokens, idempotency, record_order
from reverie.store.blocks import refused_in_block
from reverie.store.engine import batch_runner, run_commands
from reverie.store.idempotency import Claim, Recorded
from reverie.store.protocol import (
    DREAM_RUNS_KEPT,
    VECTOR_PENDING,
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


def _in_scope(item_scope: str, scope: str, subscopes: bool) -> bool:
    return item_scope == scope or (subscopes and item_scope.startswith(scope + "/"))


class ReferenceStore:
    """Everything in process memory; lost on close. Not for production, by design."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], Item] = {}
        # (scope, fingerprint) -> every current item holding it; lookups take the oldest.
        self._fps: dict[tuple[str, str], set[str]] = {}
        # (scope, "was:" + fingerprint) -> superseded versions holding it (projection.superseded_prints)
        self._was: dict[tuple[str, str], set[str]] = {}
        self._tombs: dict[tuple[str, str], str] = {}
        self._paused: set[str] = set()
        self._edges: dict[tuple[str, str], Edge] = {}
        self._events: list[Event] = []
        self._vecs: dict[tuple[str, str], np.ndarray] = {}
        self._embedder: tuple[str, int] | None = None
        self._lock = threading.RLock()
        self._blocks = 0  # open ``atomic`` blocks (of the thread holding the lock)
        self._closed = False
        self._leases: dict[str, Lease] = {}  # coordination state, not derived from events
        # scope -> (at, summary JSON) oldest first: operational data, not derived from events either
        self._dream_runs: dict[str, list[tuple[str, str]]] = {}
        # (scope, key) -> the idempotency key's row (store/idempotency.py): not derived from events
        self._keys: dict[tuple[str, str], Recorded] = {}
        # conversations (model/conversation.py): their state, and every entry in append order
        self._convs: dict[tuple[str, str], ConversationState] = {}
        self._entries: dict[tuple[str, str], ConversationEntry] = {}
        # intents and tasks (model/agenda.py): each as its last event left it
        self._intents: dict[tuple[str, str], Intent] = {}
        self._tasks: dict[tuple[str, str], Task] = {}

    def _check_open(self) -> None:
        # Same contract as the SQLite store: after close, every call raises ClosedError (an
        # oracle that kept answering would hide a use-after-close bug in the code under test).
        if self._closed:
            raise ClosedError("this Memory is closed; open a new one")

    # -- StateView (reducer reads) -------------------------------------------------------
    def item(self, scope: str, item_id: str) -> Item | None:
        return self._items.get((scope, item_id))

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        return {i: hit.version for i in item_ids if (hit := self._items.get((scope, i))) is not None}

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        return [self._items[(scope, i)] for i in sorted(self._fps.get((scope, fingerprint), ()))]

    def tombstone(self, scope: str, fingerprint: str) -> str | None:
        return self._tombs.get((scope, fingerprint))

    def paused(self, scope: str) -> bool:
        self._check_open()
        return scope in self._paused

    def edge(self, scope: str, edge_id: str) -> Edge | None:
        return self._edges.get((scope, edge_id))

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]:
        return sorted(
            (e for (s, _), e in self._edges.items() if s == scope and {e.src, e.dst} == {a, b}), key=lambda e: e.id
        )

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        return self._convs.get((scope, conversation))

    def conversation_entry(self, scope: str, entry_id: str) -> ConversationEntry | None:
        return self._entries.get((scope, entry_id))

    def intent(self, scope: str, intent_id: str) -> Intent | None:
        return self._intents.get((scope, intent_id))

    def task(self, scope: str, task_id: str) -> Task | None:
        return self._tasks.get((scope, task_id))

    def revisions(self, scope: str, item_id: str) -> list[str]:
        pairs = [
            (str(e.payload["old_id"]), str(e.payload["item"]["id"]))
            for e in self._events
            if e.scope == scope and e.type == ev.REVISED
        ]
        return revision_chain(pairs, item_id)

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        holders = self._was.get((scope, SUPERSEDED_PREFIX + fingerprint))
        return self._items[(scope, max(holders))] if holders else None

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        found = (e for (s, _), e in self._edges.items() if s == scope and e.is_current and item_id in (e.src, e.dst))
        return sorted(found, key=lambda e: e.id)

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        return [e for e in self.edges_of(scope, item_id) if e.src == item_id and e.type == type]

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        return evidence.sources(self.events, scope, item_id)

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        wanted = set(parent_ids)
        found = [it for (s, _), it in self._items.items() if s == scope and wanted.intersection(it.parents)]
        return sorted(found, key=lambda it: it.id)

    # -- primitive writes -----------------------------------------------------------------
    def append_event(self, event: Event) -> Event:
        stored = Event(**{**event.to_dict(), "at": event.at, "seq": len(self._events) + 1})
        self._events.append(stored)
        return stored

    def apply_change(self, change: Change, vectors: Mapping[str, np.ndarray]) -> None:
        if isinstance(change, PutIntent):
            self._intents[(change.intent.scope, change.intent.id)] = change.intent
            return
        if isinstance(change, PutTask):
            self._tasks[(change.task.scope, change.task.id)] = change.task
            return
        if isinstance(change, PutConversation):
            self._convs[(change.state.scope, change.state.id)] = change.state
            return
        if isinstance(change, PutEntry):
            self._entries[(change.entry.scope, change.entry.id)] = change.entry
            return
        if isinstance(change, EraseEntries):
            self._erase_entries(change)
            return
        if isinstance(change, SetEntryVisibility):
            for entry_id, visibility in change.audiences:
                entry = self._entries.get((change.scope, entry_id))
                if entry is not None:
                    self._entries[(change.scope, entry_id)] = dataclasses.replace(entry, visibility=visibility)
            return
        if isinstance(change, EraseContent):
            self._erase(change)
            return
        if isinstance(change, PutItem):
            item = change.item
            key = (item.scope, item.id)
            if change.redact:
                self._redact(item, vectors)
            # text/key/value change only by a purge, and _redact has dropped the old prints then
            for fp in fingerprints(item.text, item.key, item.value):
                holders = self._fps.setdefault((item.scope, fp), set())
                (holders.add if item.is_current else holders.discard)(item.id)
            self._index_superseded(self._items.get(key), item)
            self._items[key] = item
            # created: its vector; an existing current item without one (stored while the embedder
            # was down): filled, as the SQLite store does (``_fill_vector``)
            fill = change.created or (item.is_current and not change.redact and key not in self._vecs)
            if fill and item.text in vectors:
                self._vecs[key] = np.asarray(vectors[item.text], dtype=np.float32)
        elif isinstance(change, PutTiers):
            for item_id, _ in change.tiers:
                old = self._items.get((change.scope, item_id))
                moved = change.moved(old) if old is not None else None
                if moved is not None:
                    self._items[(change.scope, item_id)] = moved
        elif isinstance(change, PutEdge):
            self._edges[(change.edge.scope, change.edge.id)] = change.edge
        elif isinstance(change, PutTombstone):
            self._tombs[(change.scope, change.fingerprint)] = change.item_id
        elif isinstance(change, DropTombstone):
            self._tombs.pop((change.scope, change.fingerprint), None)
        elif isinstance(change, SetPaused):
            (self._paused.add if change.paused else self._paused.discard)(change.scope)

    def _index_superseded(self, before: Item | None, item: Item) -> None:
        """Keep ``_was`` equal to ``superseded_prints`` of every stored item (re-derived per write)."""
        if before is not None:
            for fp in superseded_prints(before):
                self._was.get((before.scope, fp), set()).discard(before.id)
        for fp in superseded_prints(item):
            self._was.setdefault((item.scope, fp), set()).add(item.id)

    def _redact(self, item: Item, vectors: Mapping[str, np.ndarray]) -> None:
        """Before a purged version is stored: drop what was indexed under its old content."""
        key = (item.scope, item.id)
        old = self._items.get(key)
        if old is None or old.text == item.text:
            return  # replaying an already rewritten log: nothing to erase
        for fp in fingerprints(old.text, old.key, old.value):
            self._fps.get((item.scope, fp), set()).discard(item.id)
        if item.text in vectors:
            self._vecs[key] = np.asarray(vectors[item.text], dtype=np.float32)
        else:
            self._vecs.pop(key, None)

    def _erase(self, change: EraseContent) -> None:
        """Rewrite the scope's log before the purge, and the rows derived from what it rewrote."""
        before = [e for e in self._events if e.scope == change.scope and e.seq < change.before_seq]
        plan = plan_erasure(before, change.ids, change.fingerprints)
        for event in plan.events:
            self._events[event.seq - 1] = event  # seq is 1-based and dense here
        for edge_id, meta in plan.edge_meta.items():
            edge = self._edges.get((change.scope, edge_id))
            if edge is not None:
                self._edges[(change.scope, edge_id)] = Edge.from_dict({**edge.to_dict(), "meta": meta})
        for key, item in list(self._items.items()):
            if key[0] == change.scope and item.last_used_query in plan.queries:
                self._items[key] = item.evolve(last_used_query=REDACTED)
        for fp, holder in plan.tombstones.items():
            if holder is None:
                self._tombs.pop((change.scope, fp), None)
            else:
                self._tombs[(change.scope, fp)] = holder

    def _erase_entries(self, change: EraseEntries) -> None:
        """A purged message: its row and every earlier event that carried it (and the summaries quoting it)."""
        for entry_id in change.ids:
            entry = self._entries.get((change.scope, entry_id))
            if entry is not None:
                self._entries[(change.scope, entry_id)] = redact_entry(entry)
        before = [e for e in self._events if e.scope == change.scope and e.seq < change.before_seq]
        for event in redact_events(before, change.ids):
            self._events[event.seq - 1] = event

    # -- intents and tasks: reads ---------------------------------------------------------
    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]:
        """The scope's intents matching ``where``, highest priority first (ties: by id)."""
        self._check_open()
        found = [i for (s, _), i in self._intents.items() if s == scope and where.matches(i)]
        return sorted(found, key=intent_sort_key)[:limit]

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]:
        """The scope's tasks matching ``where``, in creation order (by id)."""
        self._check_open()
        found = [t for (s, _), t in self._tasks.items() if s == scope and where.matches(t)]
        return sorted(found, key=lambda t: t.id)[:limit]

    # -- conversations: reads -----------------------------------------------------------
    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[ConversationEntry]:
        """The conversation's entries after ``after_position``, in order (of ``kinds`` when given)."""
        self._check_open()
        out = [
            e
            for (s, _), e in self._entries.items()
            if s == scope and e.conversation == conversation and e.position > after_position
        ]
        return sorted((e for e in out if kinds is None or e.kind in kinds), key=lambda e: e.position)

    def conversations(self, scope: str) -> list[ConversationState]:
        """Every conversation of the scope, most recently active first (ties: by id)."""
        self._check_open()
        found = [c for (s, _), c in self._convs.items() if s == scope]
        return sorted(found, key=lambda c: (c.active_at or c.opened_at, c.id), reverse=True)

    def conversation_speakers(self, scope: str) -> list[str]:
        """Every speaker of a message in the scope, sorted (recall matches them as authors)."""
        self._check_open()
        said = (e for (s, _), e in self._entries.items() if s == scope and e.kind == "message")
        return sorted({e.speaker for e in said if e.speaker})

    def archive_search(
        self, scope: str, query: str, *, conversation: str | None, limit: int
    ) -> list[ConversationEntry]:
        """Messages quoting ``query`` (``model.conversation.quote_span``), newest first."""
        self._check_open()
        found = [
            e
            for (s, _), e in self._entries.items()
            if s == scope
            and e.kind == "message"
            and (conversation is None or e.conversation == conversation)
            and quote_span(e.text, query) is not None
        ]
        return list(reversed(found))[:limit]

    # -- Store protocol -------------------------------------------------------------------
    def execute(
        self,
        commands: Sequence[Command],
        *,
        now: datetime,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Outcome]:
        self._check_open()
        with self._lock:
            claim = idempotency.pending()
            self._claim(claim)  # checked first, as the first statement of a database's transaction
            snapshot = self._snapshot()
            try:
                out = run_commands(self, commands, now=now, new_id=new_id, vectors=vectors)
            except BaseException:
                self._restore(snapshot)
                raise
            for c in commands:  # as the SQLite store: a purge drops the scope's dream-run summaries
                if isinstance(c, Purge):
                    self._dream_runs.pop(c.scope, None)
            self._erase_keys(commands, claim)
            self._keep_claim(claim)
            return out

    def execute_steps(
        self,
        steps: Sequence[Step],
        *,
        now: datetime,
        new_id: Callable[[], str],
        vectors: Mapping[str, np.ndarray],
    ) -> list[Any]:
        """The SQLite savepoint semantics by snapshots: one per step, one for the whole batch."""
        self._check_open()
        batch = Batch(
            run=batch_runner(self, now=now, new_id=new_id, vectors=vectors),
            item=self.item,
        )
        out: list[Any] = []
        with self._lock:
            claim = idempotency.pending()
            self._claim(claim)
            whole = self._snapshot()
            try:
                for step in steps:
                    before = self._snapshot()
                    try:
                        out.append(step(batch))
                    except ReverieError as exc:
                        if isinstance(exc, StorageError | ClosedError):
                            raise
                        self._restore(before)
                        out.append(exc)
            except BaseException:
                self._restore(whole)
                raise
            self._keep_claim(claim)
        return out

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """The block under the store lock (``Store.read_snapshot``): every writer of this store is a
        thread of this process and waits for the lock, so no write lands between the block's reads.
        A write of this thread inside the block is not refused here (it is on SQLite and PostgreSQL)."""
        self._check_open()
        with self._lock:
            yield

    @contextlib.contextmanager
    def atomic(self, scope: str, *, wait: bool = True) -> Iterator[None]:
        """The block under the lock, restored from one snapshot if it raises (see ``Store.atomic``);
        each write inside restores its own snapshot on refusal, as SQLite's savepoints do.
        ``wait=False``: another thread holding the lock is ``WriteLockBusy``, as another process is
        on SQLite (the lock is re-entrant, so this thread's own block nests)."""
        self._check_open()
        if not self._lock.acquire(blocking=wait):
            raise WriteLockBusy("another thread holds this store's write lock; nothing was written")
        try:
            with self._atomic_held(scope):
                yield
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def _atomic_held(self, scope: str) -> Iterator[None]:
        """``atomic``'s block, with the lock taken."""
        claim = idempotency.pending()
        if claim is not None:
            idempotency.in_scope(scope, claim.claim)
        self._claim(claim)
        whole = self._snapshot()
        self._blocks += 1
        try:
            with idempotency.carried(claim):
                yield
        except BaseException:
            self._restore(whole)
            raise
        finally:
            self._blocks -= 1
        self._keep_claim(claim)

    # -- idempotency keys (store/idempotency.py) -------------------------------------------
    def _claim(self, p: idempotency.Pending | None) -> None:
        """Refuse a claim on a live key (checked before the commands run, under the lock)."""
        if p is None:
            return
        held = self._keys.get((p.claim.scope, p.claim.key))
        if held is not None and held.expires_at > p.claim.at:
            raise idempotency.refused(p)

    def _keep_claim(self, p: idempotency.Pending | None) -> None:
        """The batch succeeded: the claim's row, still without a response (``record_response``)."""
        if p is not None:
            c = p.claim
            self._keys[(c.scope, c.key)] = Recorded(c.scope, c.key, c.request, c.at, c.expires_at, None, None)
            idempotency.written(p)

    def _erase_keys(self, commands: Sequence[Command], keep: idempotency.Pending | None) -> None:
        for scope in idempotency.purged_scopes(commands):
            for (s, key), row in list(self._keys.items()):
                if s == scope and not (keep is not None and keep.claim.scope == s and keep.claim.key == key):
                    self._keys[(s, key)] = dataclasses.replace(row, request="", body=None, erased=True)

    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        self._check_open()
        row = self._keys.get((scope, key))
        return row if row is not None and row.expires_at > now else None

    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        claim = idempotency.in_scope(scope, claim)
        self._check_open()
        with self._lock:
            for k, old in list(self._keys.items()):
                if k[0] == claim.scope and old.expires_at <= now:
                    del self._keys[k]
            row = self._keys.get((claim.scope, claim.key))
            if row is None:
                row = Recorded(claim.scope, claim.key, claim.request, claim.at, claim.expires_at, status, body)
            elif row.request == claim.request and row.status is None and not row.erased:
                row = dataclasses.replace(row, status=status, body=body)
            self._keys[(claim.scope, claim.key)] = row
            return self.idempotency(claim.scope, claim.key, now=now)

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        self._check_open()
        found = [row for (s, _), row in self._keys.items() if s == scope and row.expires_at > now]
        return sorted(found, key=lambda row: row.key.encode())

    def put_idempotency(self, scope: str, rows: Sequence[Recorded]) -> int:
        checked = idempotency.of_scope(scope, rows)
        self._check_open()
        with self._lock:
            self._keys.update({(r.scope, r.key): r for r in checked})
        return len(checked)

    def take_lease(self, scope: str, owner: str, *, now: datetime, expires_at: datetime) -> Lease:
        self._check_open()
        with self._lock:
            held = self._leases.get(scope)
            if held is None or held.expires_at <= now or held.owner == owner:
                held = self._leases[scope] = Lease(scope, owner, expires_at)
            return held

    def release_lease(self, scope: str, owner: str) -> bool:
        self._check_open()
        with self._lock:
            held = self._leases.get(scope)
            if held is None or held.owner != owner:
                return False
            del self._leases[scope]
            return True

    def record_dream_run(self, scope: str, summary: Mapping[str, Any], *, at: datetime) -> None:
        self._check_open()
        text = dream_summary_json(summary)  # kept as text: both backends return fresh JSON values
        with self._lock:
            runs = self._dream_runs.setdefault(scope, [])
            runs.append((to_iso(at), text))
            del runs[:-DREAM_RUNS_KEPT]

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        self._check_open()
        runs = self._dream_runs.get(scope, [])
        return [dream_run(scope, at, json.loads(text)) for at, text in list(reversed(runs))[: max(limit, 0)]]

    def _snapshot(self) -> tuple[Any, ...]:
        return (
            dict(self._items),
            {k: set(v) for k, v in self._fps.items()},
            dict(self._tombs),
            set(self._paused),
            dict(self._edges),
            list(self._events),
            dict(self._vecs),
            dict(self._convs),
            dict(self._entries),
            dict(self._intents),
            dict(self._tasks),
            dict(self._keys),
        )

    def _restore(self, snap: tuple[Any, ...]) -> None:
        (
            self._items,
            self._fps,
            self._tombs,
            self._paused,
            self._edges,
            self._events,
            self._vecs,
            self._convs,
            self._entries,
            self._intents,
            self._tasks,
            self._keys,
        ) = snap

    def get(self, scope: str, item_id: str) -> Item | None:
        self._check_open()
        return self._items.get((scope, item_id))

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]:
        self._check_open()
        return {i: self._items[(scope, i)] for i in item_ids if (scope, i) in self._items}

    def query(
        self, scope: str, where: Filter, sort: Sort, *, limit: int, offset: int = 0, subscopes: bool = False
    ) -> list[Item]:
        self._check_open()
        found = [i for i in self._items.values() if _in_scope(i.scope, scope, subscopes) and where.matches(i)]
        return sort_items(found, sort)[offset : offset + limit]

    def count(self, scope: str, where: Filter) -> int:
        self._check_open()
        return sum(1 for i in self._items.values() if i.scope == scope and where.matches(i))

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        self._check_open()
        out = [
            e
            for (s, _), e in self._edges.items()
            if s == scope and (item_id is None or item_id in (e.src, e.dst)) and (include_closed or e.is_current)
        ]
        return sorted(out, key=lambda e: e.id)

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        self._check_open()
        out = [
            e for (s, _), e in self._edges.items() if s == scope and e.type == type and (include_closed or e.is_current)
        ]
        return sorted(out, key=lambda e: e.id)

    def events(self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000) -> list[Event]:
        self._check_open()
        out = [e for e in self._events if e.scope == scope and e.seq > after_seq]
        if item_id is not None:
            out = [e for e in out if _mentions(e, item_id)]
        return out[:limit]

    def tombstones(self, scope: str) -> list[tuple[str, str]]:
        self._check_open()
        return sorted((fp, i) for (s, fp), i in self._tombs.items() if s == scope)

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        """A plain TF-IDF-ish scorer over the tokens FTS5 indexes: enough to be an oracle for *which*
        items match. Each quoted term of ``match`` is a phrase (its tokens side by side in the text),
        as FTS5 reads it, so "東 京" does not match 京 ... 東 and "1182" matches "#1182"."""
        self._check_open()
        terms = {t.strip('"') for t in re.split(r"\s+OR\s+|\s+AND\s+", match) if t.strip('"')}
        phrases = {p for p in (tuple(fts_tokens.tokenize(t)) for t in terms) if p}
        docs = [i for i in self._items.values() if i.scope == scope and (i.is_current or not current_only)]
        counts = {d.id: _phrase_counts(fts_tokens.tokenize(d.text), phrases) for d in docs}
        df = Counter(p for c in counts.values() for p in c)
        scored = []
        for d in docs:
            tf = counts[d.id]
            s = sum(tf[p] * math.log(1 + len(docs) / df[p]) for p in phrases if p in tf)
            if s > 0:
                scored.append((d.id, s))
        scored.sort(key=lambda p: (-p[1], p[0]))
        return scored[:limit]

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        self._check_open()
        ids = sorted(i for (s, i) in self._vecs if s == scope and (not current_only or self._items[(s, i)].is_current))
        if not ids:
            dim = self._embedder[1] if self._embedder else 0
            return [], np.zeros((0, dim), dtype=np.float32)
        return ids, np.stack([self._vecs[(scope, i)] for i in ids])

    def warm(self, scope: str) -> bool:
        """No index to warm: the reference store always scans its vectors exactly."""
        self._check_open()
        return False

    def embedder(self) -> tuple[str, int] | None:
        self._check_open()
        return self._embedder

    def set_embedder(self, name: str, dim: int) -> None:
        self._check_open()
        self._embedder = (name, dim)

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int:
        self._check_open()
        keys = list(self._items)
        for start in range(0, len(keys), batch):
            chunk = keys[start : start + batch]
            vecs = embed([self._items[k].text for k in chunk])
            for k, v in zip(chunk, vecs, strict=True):
                self._vecs[k] = np.asarray(v, dtype=np.float32)
            if progress:
                progress(min(start + batch, len(keys)), len(keys))
        return len(keys)

    def doctor(self) -> DoctorReport:
        self._check_open()
        report = DoctorReport(counts={"items": len(self._items), "events": len(self._events)})
        pending = {k for k, i in self._items.items() if VECTOR_PENDING in i.flags}
        missing = [k for k in self._items if k not in self._vecs and k not in pending]
        if self._embedder and missing:
            report.problems.append(f"{len(missing)} items have no vector")
        report.counts["vectors_pending"] = sum(1 for k in pending if self._items[k].is_current)
        report.counts.update(intents=len(self._intents), tasks=len(self._tasks))
        agenda = ((e.type, e.payload) for e in self._events if is_agenda_event(e.type))
        report.problems += agenda_problems(agenda, self._intents, self._tasks)
        early = sum(1 for i in self._items.values() if i.closed_at is not None and i.closed_at < i.recorded_at)
        report.problems += record_order.problems(record_order.steps_back((e.scope, e.at) for e in self._events), early)
        return report

    def rebuild(self, embed: Embed) -> None:
        self._check_open()
        events = list(self._events)
        embedder, leases, runs, keys = self._embedder, self._leases, self._dream_runs, self._keys
        self.__init__()  # type: ignore[misc]
        # leases, dream runs and idempotency keys are not projections: kept
        self._embedder, self._leases, self._dream_runs, self._keys = embedder, leases, runs, keys
        from reverie.model.projection import ProjectionView, project

        view = ProjectionView(self.item, self.edge, self.task, self.intent)
        for e in events:
            self._events.append(e)
            texts = [e.payload["item"]["text"]] if "item" in e.payload else []
            vecs = dict(zip(texts, embed(texts), strict=True)) if texts else {}
            for change in project(e, view):
                self.apply_change(change, vecs)

    def last_recorded_at(self, scopes: Sequence[str]) -> datetime | None:
        """The log's last event time (``engine.record_time``)."""
        return self._events[-1].at if self._events else None

    def scopes(self) -> list[str]:
        """Every scope with an event in its log (``Store.scopes``), sorted."""
        self._check_open()
        return sorted({e.scope for e in self._events})

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        self._check_open()
        out: dict[str, dict[str, int]] = {"tier": {}, "kind": {}, "source": {}, "status": {}}
        for (s, _), item in self._items.items():
            if s != scope:
                continue
            out["status"][item.status] = out["status"].get(item.status, 0) + 1
            if item.is_current:
                for name in ("tier", "kind", "source"):
                    value = getattr(item, name)
                    out[name][value] = out[name].get(value, 0) + 1
        return {name: dict(sorted(counts.items())) for name, counts in out.items()}

    def in_atomic(self) -> bool:
        with self._lock:  # another thread's block is waited for: True only for this thread's own
            return self._blocks > 0

    def close(self) -> None:
        with self._lock:
            if self._blocks:
                raise refused_in_block("close()")
            self._closed = True

    def __deepcopy__(self, memo: dict[int, Any]) -> ReferenceStore:  # pragma: no cover - helper for tests
        clone = ReferenceStore()
        clone.__dict__.update({k: copy.copy(v) for k, v in self.__dict__.items() if k != "_lock"})
        clone._fps = {k: set(v) for k, v in self._fps.items()}  # the holder sets are mutable
        clone._dream_runs = {k: list(v) for k, v in self._dream_runs.items()}
        return clone


def _mentions(event: Event, item_id: str) -> bool:
    """Is ``event`` about ``item_id``: the paths of ``sqlite.event_refs.ABOUT_PATHS`` and ``ABOUT_LISTS``,
    as both databases test them. Not ``by`` (a superseder named by its loser's ``memory.superseded``):
    the oracle matching it made ``events(item_id=...)`` disagree with the stores it checks."""
    p = event.payload
    if is_agenda_event(event.type):
        return agenda_record_id(p) == item_id
    if item_id in (p.get("id"), p.get("old_id")):
        return True
    if isinstance(p.get("item"), dict) and p["item"].get("id") == item_id:
        return True
    if isinstance(p.get("edge"), dict) and item_id in (p["edge"].get("src"), p["edge"].get("dst")):
        return True
    if event.type == ev.USED:
        return any(u[0] == item_id for u in p.get("uses", []))
    if event.type == ev.TIERS_SET:
        return any(c.get("id") == item_id for c in p.get("changes", []))
    return False


def _phrase_counts(tokens: list[str], phrases: set[tuple[str, ...]]) -> Counter[tuple[str, ...]]:
    """How often each of ``phrases`` stands in ``tokens`` (its tokens side by side)."""
    out: Counter[tuple[str, ...]] = Counter()
    for p in phrases:
        n = len(p)
        hits = sum(1 for at in range(len(tokens) - n + 1) if tuple(tokens[at : at + n]) == p)
        if hits:
            out[p] = hits
    return out
