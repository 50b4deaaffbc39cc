"""Copy a store, with its full event log, from one backend to another (SQLite ⇄ PostgreSQL).

Why the log and not the rows: every projection is derived from the log, so the copy replays the
source's events, in their order, through the destination's own projection code, in one
transaction (a failure leaves the destination as it was). The vectors are the source's (keyed
by the item each event carries), so no embedder runs and recall answers identically. Dream-run
summaries (operational data, not in the log) are copied too; leases are not (they belong to the
processes of the source).

Idempotency keys (``store/idempotency.py``: not in the log either) are copied in the events'
transaction, every row unexpired at the time of the copy, as it is (expiry, status, body, erased):
without them the same ``reverie import`` run on the destination imported its file a second time,
and a client retrying a write after the move had it applied twice. Expired rows stay behind
(no lookup would find them).

The source is read in one snapshot (``Store.read_snapshot``) before anything is written: a live
store's write committed during the copy is copied whole or not at all, and the report counts
what was copied (the items were counted after the copy, so a claim written meanwhile was
counted and never copied; a log read scope by scope could hold half of a write).

Every scope with an event in its log is copied (``Store.scopes``), whatever it holds: a scope of
intents, tasks or conversations and no item too (``scopes`` once listed only the scopes holding
items, and such a scope was silently left behind).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from reverie.errors import InvalidInputError
from reverie.model.clock import from_iso
from reverie.model.events import Event
from reverie.model.legacy_names import plan, renamed_event
from reverie.model.projection import ProjectionView, project
from reverie.outfiles import is_store_file
from reverie.store.idempotency import Recorded
from reverie.store.opening import open_store
from reverie.store.protocol import DREAM_RUNS_KEPT, Store

_PAGE = 1000


@dataclass(frozen=True, slots=True)
class MigrateReport:
    """What ``migrate`` copied, and the destination's ``doctor`` verdict."""

    scopes: int
    events: int
    items: int
    dream_runs: int
    doctor_ok: bool
    problems: tuple[str, ...]
    #: Idempotency keys copied (import keys and HTTP ``Idempotency-Key`` rows unexpired at the copy).
    idempotency_keys: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "scopes": self.scopes,
            "events": self.events,
            "items": self.items,
            "dream_runs": self.dream_runs,
            "idempotency_keys": self.idempotency_keys,
            "doctor": {"ok": self.doctor_ok, "problems": list(self.problems)},
        }


def _log(store: Store, scope: str) -> Iterator[Event]:
    after = 0
    while True:
        page = store.events(scope, after_seq=after, limit=_PAGE)
        yield from page
        if len(page) < _PAGE:
            return
        after = page[-1].seq or after


def copy_store(source: Store, dest: Store, *, now: datetime | None = None) -> MigrateReport:
    """Replay ``source``'s log into the empty ``dest`` (see the module docstring); keys expired at
    ``now`` (default: the wall clock) are not copied."""
    at = now if now is not None else datetime.now(UTC)
    with source.read_snapshot():  # one commit of the source, whatever it commits meanwhile
        scopes = source.scopes()
        # ``events`` too: a PostgreSQL role lists no scope its transaction does not name (RLS)
        if dest.scopes() or any(dest.events(s, limit=1) for s in scopes):
            raise InvalidInputError("the destination already holds a store; migrate into an empty database or file")
        events = sorted((e for s in scopes for e in _log(source, s)), key=lambda e: e.seq or 0)
        keys: dict[str, list[Recorded]] = {s: source.idempotency_rows(s, now=at) for s in scopes}
        vectors: dict[str, np.ndarray] = {}
        for s in scopes:
            ids, mat = source.vectors(s, current_only=False)
            vectors.update(zip(ids, mat, strict=True))
        recorded = source.embedder()
        dream_runs = {s: source.dream_runs(s, limit=DREAM_RUNS_KEPT) for s in scopes}
        items = sum(sum(source.summary_counts(s)["status"].values()) for s in scopes)
    if recorded is not None:
        dest.set_embedder(*recorded)

    def vectors_of(event: Event) -> Mapping[str, np.ndarray]:
        item = event.payload.get("item")
        if not isinstance(item, dict) or item.get("id") not in vectors:
            return {}
        return {str(item["text"]): vectors[str(item["id"])]}

    # A conversation the source holds under a principal's name hidden from it (a store of an
    # older reverie, opened read-only here, so never renamed) lands renamed (``model.legacy_names``).
    renames = plan(c for s in scopes for c in getattr(source, "conversations", lambda _s: [])(s))
    backend: Any = dest
    # ``atomic``: one write transaction, and a write inside it (the keys) is a savepoint of it, not
    # a transaction of its own. Its scope is only the first lock taken: each event locks its own.
    with dest.atomic(scopes[0]) if scopes else contextlib.nullcontext():
        view = ProjectionView(backend.item, backend.edge, backend.task, backend.intent)
        for event in events:
            stored = backend.append_event(renamed_event(event, renames))
            for change in project(stored, view):
                backend.apply_change(change, vectors_of(event))
        for r in renames:
            backend.append_event(r.event(max(e.at for e in events if e.scope == r.scope)))
        copied = sum(dest.put_idempotency(s, rows) for s, rows in keys.items() if rows)
    runs = 0
    for s in scopes:
        for run in reversed(dream_runs[s]):
            summary = {k: v for k, v in run.items() if k not in ("scope", "at")}
            dest.record_dream_run(s, summary, at=from_iso(str(run["at"])))
            runs += 1
    report = dest.doctor()
    return MigrateReport(len(scopes), len(events), items, runs, report.ok, tuple(report.problems), copied)


def migrate(src: str, dst: str) -> MigrateReport:
    """Copy the store at ``src`` into the empty store at ``dst`` (a file path or a postgresql:// URL)."""
    if str(src) == str(dst):
        raise InvalidInputError("source and destination are the same store")
    if _is_path(src) and _is_path(dst) and is_store_file(str(dst), str(src)):
        # Its -wal / -shm / -journal too: the next open of the source took a copy written there for
        # its own log and deleted it, after migrate had reported "doctor ok".
        raise InvalidInputError(
            f"destination {dst} is the source store itself (or a file SQLite keeps beside it): the copy "
            "would overwrite, or be deleted by, what it copies; give another file path"
        )
    source = open_store(src, read_only=True)
    try:
        dest = open_store(dst)
        try:
            return copy_store(source, dest)
        finally:
            dest.close()
    finally:
        source.close()


def _is_path(location: str) -> bool:
    """A SQLite file path, not a ``postgresql://`` URL (nor the in-memory store)."""
    text = str(location)
    return "://" not in text and text != ":memory:"
