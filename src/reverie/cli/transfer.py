"""Export a scope's event log as JSON lines; import one by replaying it through the public API.

Events are the portable form: every projection (items, edges, indexes) is rebuilt from them.
An import cannot append another store's events verbatim — their ids, sequence numbers and
record times belong to that store — so it *replays* each one as the API call that produced
it, in file order, against the target scope:

- ids are re-assigned: every new item and edge gets a fresh id, and a map old id → new id is
  kept (and reported), so ``parents``, edge ends, revisions and later events are remapped;
- record time is re-stamped (``recorded_at`` is when *this* store learned it); valid time
  (``valid_from`` / ``valid_to``), text, kind, source, key/value, author, tags, meta,
  provenance (origin / ref / locator), all five scores and visibility (who may see the claim:
  ``memory.visibility_set`` is replayed too) are carried over;
- uses are replayed (``record_use``), so learned ``value`` and episodic → semantic graduation
  match the source; learning pause / resume are scope settings, not beliefs, and are skipped;
- conflict detection is off during the replay: the export's own ``contradicts`` edges are replayed;
- a ``count_once`` corroboration or echo is replayed naming its source (``source_ref``), so the copy
  counts that source once too; a ``memory.restated`` (that source said it again) changed nothing and
  is skipped;
- conversations are replayed entry by entry with the commands the live wing runs, and intents
  and tasks through ``mem.intents`` / ``mem.tasks`` (``reverie.memory.replay_conversations``,
  ``reverie.cli.replay_agenda``): their ids are re-assigned too, and every claim that names an
  entry, a conversation, an intent or a task names the copy's.

What this scope forgot, purged or dismissed since the file was written stays so (``cli.kept_out``):
such a claim is skipped and counted by why (``ImportReport.kept_out``), every later event about it
is skipped with it, and a message purged here is purged again in the copy; ``restore_purged``
(``--restore-purged``) lets purged claims and messages back.

A refused event (e.g. its item failed earlier) is reported and the replay goes on: a partial
import says exactly what it left out rather than dying half-way. An event no call can replay —
a type this build does not know, a bias alert's dismissal (it names the source's alerts, which
are digests of the source's item ids) — is reported the same way, as failed with the code
``not_replayable``, never skipped in silence: the import exits 1 and names it.

**Whole or not at all, and once.** The replay runs inside one ``Memory.atomic`` block: every
call commits with the last one, and a process killed part-way leaves nothing (each call was its
own transaction, so a killed import left a prefix behind, and running it again corroborated
that prefix a second time and failed on its revisions). The block carries an idempotency key
(``import_digest``: the events and the principal, digested), kept for the life of the store, so
the same events imported into the same scope again add nothing: the report says when they
were imported and what that import did (``ImportReport.already_imported``). A refused event
belongs to the import that refused it: running it again does not retry it (fix the file: a
changed file is another import). A storage failure is no refused event: it ends the block, and
nothing of the import is written.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from reverie import (
    ClosedError,
    ConflictError,
    Event,
    InvalidInputError,
    Item,
    Memory,
    NotFoundError,
    ReverieError,
    StorageError,
)
from reverie.cli import replay_agenda
from reverie.cli.kept_out import REASONS, SAYS, KeptOut, Why
from reverie.errors import DismissedValueError, IdempotencyInProgressError, IdempotencyKeyReusedError
from reverie.memory.replay_conversations import REPLAYED as CONVERSATION_EVENTS
from reverie.model.clock import to_iso
from reverie.model.validate import unique_keys

_SCOPE_SETTINGS = ("scope.learning_paused", "scope.learning_resumed")
#: Event types that changed no projection, and why: skipped (counted), never failed.
_NO_CHANGE = {
    "memory.restated": "a source already counted said it again: nothing changes",
    "conversation.renamed": "a record: the events before it already name the conversation so",
}
#: Event types no call can replay, and why (each fails the import, named: ``not_replayable``).
_NOT_REPLAYABLE = {
    "alert.dismissed": "a bias alert's id and evidence are digests of the source's item ids, which are new "
    "here; run a dream pass in this scope and dismiss the alert again",
}
#: How long an import's idempotency key is kept: for the life of the store (the same file run
#: again years later must still add nothing), not the 24 h of a retried HTTP request.
IMPORT_KEPT = timedelta(days=100 * 365)
_KEY_PREFIX = "import:sha256:"


def export_events(mem: Memory, scope: str, write: Callable[[str], object]) -> int:
    """Write every event of ``scope`` as one JSON object per line, in log order; returns the count.

    Pages are ``Memory.events``'s default size (1000, or ``Limits.max_events`` if lower): a fixed
    page of our own was refused by a ``Memory`` whose ``max_events`` is smaller.

    Every page is of one commit (``Store.read_snapshot``): read apart, a purge another process
    committed between two pages left the erased text in an early page beside the
    ``memory.purged`` event of a later one, a log the store never held.
    """
    after, count = 0, 0
    with mem.store.read_snapshot():
        while True:
            batch = mem.events(scope=scope, after_seq=after)
            if not batch:
                return count
            for event in batch:
                write(json.dumps(event.to_dict(), ensure_ascii=False, sort_keys=True) + "\n")
            count += len(batch)
            after = batch[-1].seq


def read_events(lines: Iterable[str]) -> list[Event]:
    """Parse a whole export before anything is written, so a malformed file imports nothing."""
    events = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, object_pairs_hook=unique_keys("the line"))  # the rule of every face
            if not isinstance(data, dict):
                raise TypeError(f"a JSON {type(data).__name__}, not an object")
            if not all(isinstance(data.get(k), str) for k in ("id", "type", "scope", "cause")):
                raise TypeError("its id, type, scope and cause must be strings")  # a list type crashed replay
            events.append(Event.from_dict(data))
        except (ValueError, KeyError, TypeError, RecursionError) as exc:  # RecursionError: JSON nested 1000s deep
            raise InvalidInputError(
                f"line {number} is not a reverie event ({type(exc).__name__}: {exc}); "
                "import reads the JSON lines `reverie export` writes"
            ) from None
    return events


def import_digest(events: Iterable[Event], principal: str | None) -> str:
    """SHA-256 (hex) of the events as they are replayed and of who replays them.

    Of the parsed events, not the file's bytes: blank lines, key order or spacing change nothing.
    The principal is part of it: the same file imported by another principal is another write
    (its restricted claims name that principal), and must not be told what the first one did.
    """
    h = hashlib.sha256(json.dumps(principal).encode())
    for event in events:
        h.update(b"\n" + json.dumps(event.to_dict(), ensure_ascii=False, sort_keys=True).encode())
    return h.hexdigest()


@dataclass
class ImportReport:
    """What a replay did: counts by event type, what it skipped or could not apply, and the id maps."""

    scope: str
    #: The import's idempotency key (``import_digest`` of its events, prefixed).
    key: str = ""
    #: Set when these events were imported into this scope before: when, and what that import
    #: did (None if its summary was erased by a purge or never recorded). Nothing was added.
    already_imported: dict[str, Any] | None = None
    events: int = 0
    applied: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    failed: list[dict[str, Any]] = field(default_factory=list)
    notes: Counter[str] = field(default_factory=Counter)
    ids: dict[str, str] = field(default_factory=dict)
    edges: dict[str, str] = field(default_factory=dict)
    #: The file's conversation names -> the names here (``<name>~2`` when this scope had one).
    conversations: dict[str, str] = field(default_factory=dict)
    #: The file's conversation entry ids -> the entry ids here.
    entries: dict[str, str] = field(default_factory=dict)
    #: The file's intent and task ids -> the ids here.
    intents: dict[str, str] = field(default_factory=dict)
    tasks: dict[str, str] = field(default_factory=dict)
    #: Claims read from the file: ``created`` (new items), ``corroborated`` (an equivalent current
    #: claim gained evidence), ``skipped`` (left out: see ``kept_out``), ``echoed`` (a corrected
    #: claim said again: evidence on its superseded version, as in the source).
    items: Counter[str] = field(default_factory=Counter)
    #: The skipped claims by why (``cli.kept_out``): ``forgotten``, ``purged`` or ``dismissed`` in
    #: this scope before the import. Every later event about one is skipped too (``skipped``).
    kept_out: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "key": self.key,
            "already_imported": self.already_imported,
            "events": self.events,
            "applied": dict(self.applied),
            "skipped": dict(self.skipped),
            "failed": self.failed,
            "notes": dict(self.notes),
            "ids": self.ids,
            "edges": self.edges,
            "conversations": self.conversations,
            "entries": self.entries,
            "intents": self.intents,
            "tasks": self.tasks,
            "items": {k: self.items.get(k, 0) for k in ("created", "corroborated", "skipped", "echoed")},
            "kept_out": {k: self.kept_out.get(k, 0) for k in REASONS},
        }


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _landed(item: Item) -> str:
    """What remembering a claim from the file did, from the item ``remember`` returned.

    ``remember`` returns a closed (superseded) version only for an echo — a corrected claim said
    again lands on its superseded copy — which was counted ``corroborated`` (a current belief
    gaining evidence: the opposite of what happened). A new item starts with one piece of
    evidence; a corroborated one has just gained another.
    """
    if not item.is_current:
        return "echoed"
    return "corroborated" if item.evidence_count > 1 else "created"


def _audience(item: Item) -> list[str] | None:
    """``item``'s visibility as ``remember`` takes it: None for everyone, else the principals.

    Why: a claim corroborates only a claim with the same audience, so a replayed corroboration or
    echo of a restricted claim without it would make a new claim readable by every principal.
    """
    return list(item.visibility) if item.visibility else None


def _counted(event: Event) -> dict[str, Any]:
    """A ``count_once`` statement's source (``source_ref``), replayed as one: the copy records that
    the source counted, so its later statements there count nothing either (``model.evidence``)."""
    ref = event.payload.get("source_ref")
    if not isinstance(ref, dict) or not isinstance(ref.get("ref"), str):
        return {}
    return {"provenance": {"origin": ref.get("origin"), "ref": ref["ref"]}, "count_once": True}


class Replayer:
    """Re-issues an export's events as API calls against ``scope`` (see the module docstring)."""

    def __init__(self, mem: Memory, scope: str, *, allow_future: bool = False, restore_purged: bool = False) -> None:
        self.mem = mem
        self.scope = scope
        #: False: a message dated past the clock's skew bound refuses the whole import (``run``).
        self.allow_future = allow_future
        self.report = ImportReport(scope)
        #: What this scope keeps out; ``restore_purged``: a claim purged here comes back (``cli.kept_out``).
        self._kept = KeptOut(mem, scope, restore_purged=restore_purged)
        self._left_out: dict[str, Why] = {}  # old item id -> why it was left out
        self._left_edges: dict[str, Why] = {}  # old edge id -> why (an end was left out)
        self._left_prints: dict[str, Why] = {}  # fingerprints of dismissals skipped with their claim
        self._dismissed: list[tuple[str, list[str]]] = []  # (new item id, its tombstoned fingerprints)
        self._parents: dict[str, tuple[str, ...]] = {}  # old item id -> old parent ids
        self._edge_ends: dict[str, tuple[str, str, str]] = {}  # old edge id -> (type, old src, old dst)
        self._conversations = mem.conversation_replay(scope=scope)
        self._conversations.restore_purged = restore_purged
        self._agenda = replay_agenda.AgendaReplay(mem, scope, self.report.ids, self.report.notes)
        # The report shows the replays' maps as they fill (the same dicts).
        self.report.conversations = self._conversations.names
        self.report.entries = self._conversations.entries
        self.report.intents = self._agenda.intents
        self.report.tasks = self._agenda.tasks
        self._handlers: dict[str, Callable[[Event], None]] = {
            "memory.remembered": self._remembered,
            "memory.corroborated": self._corroborated,
            "memory.echoed": self._echoed,
            "memory.revised": self._revised,
            "memory.forgotten": self._forgotten,
            "memory.purged": self._purged,
            "memory.dismissed": self._dismissed_event,
            "memory.undismissed": self._undismissed,
            "memory.scores_set": self._scores_set,
            "memory.tier_set": self._tier_set,
            "memory.tiers_set": self._tiers_set,
            "memory.promoted": self._promoted,
            "memory.flags_set": self._flags_set,
            "memory.visibility_set": self._visibility_set,
            "memory.used": self._used,
            "edge.linked": self._linked,
            "edge.unlinked": self._unlinked,
            "memory.superseded": self._superseded,
            **dict.fromkeys(CONVERSATION_EVENTS, self._conversation),
            **dict.fromkeys(replay_agenda.REPLAYED, self._agenda.replay),
        }

    # -- driving ----------------------------------------------------------------------------------
    def run(self, events: list[Event], progress: Callable[[int, int], None]) -> ImportReport:
        """Replay ``events`` once into the scope, in one transaction (see the module docstring)."""
        digest = import_digest(events, self.mem.principal)
        self.report.key = key = _KEY_PREFIX + digest
        self.report.events = len(events)
        if self._seen_before(key, digest):
            return self.report
        if not self.allow_future:
            self._conversations.check_times(events)  # refused before the block: nothing is written
        try:
            with (
                self.mem.idempotency.claim(key, scope=self.scope, request=digest, window=IMPORT_KEPT) as pending,
                self.mem.atomic(scope=self.scope),
            ):
                self._replay(events, progress)
        except IdempotencyInProgressError:
            # Another process imported the same events while this one waited for the write lock:
            # the claim is the block's first statement, so nothing of this run was written.
            if self._seen_before(key, digest):
                return self.report
            raise
        try:
            status = 1 if self.report.failed else 0
            self.mem.idempotency.record(pending.claim, status=status, body=json.dumps(self._summary()))
        except ReverieError as err:  # the import is committed: a lost summary only shortens a later report
            self.report.notes[f"the summary for a later run was not recorded ({err.code})"] += 1
        return self.report

    def _seen_before(self, key: str, digest: str) -> bool:
        """Were these events imported here before? If so, the report says when and what it did."""
        row = self.mem.idempotency.recorded(key, scope=self.scope)
        if row is None:
            return False
        if not row.erased and row.request != digest:  # erased: a purge in the scope kept only the key
            raise IdempotencyKeyReusedError(f"the key {key} of this import is held by another request in this scope")
        first = None
        if row.body is not None:
            try:
                first = json.loads(row.body)
            except ValueError:
                first = None  # not a summary this module wrote: say only when
        self.report = ImportReport(self.scope, key=key, events=self.report.events)
        self.report.already_imported = {"key": key, "at": to_iso(row.at), "first": first}
        return True

    def _summary(self) -> dict[str, Any]:
        """What a later run of the same import is told this one did (counts only: no claim's text)."""
        r = self.report
        return {
            "events": r.events,
            "applied": sum(r.applied.values()),
            "skipped": sum(r.skipped.values()),
            "failed": len(r.failed),
            "items": r.to_dict()["items"],
        }

    def _conversation(self, event: Event) -> None:
        self._conversations.replay(event)

    def _replay(self, events: list[Event], progress: Callable[[int, int], None]) -> None:
        """Replay in file order; a conflict resolution (several events of one transaction) as one call."""
        i = 0
        while i < len(events):
            n = self._resolution_length(events, i)
            if n:
                self._guard(events[i : i + n], functools.partial(self._resolve, events[i], events[i + 1]))
            else:
                self._one(events[i])
                n = 1
            i += n
            progress(i, len(events))
        self._purge_again()

    def _purge_again(self) -> None:
        """Purge the copies of the file's messages this scope had purged (``ConversationReplay``), with
        the live purge: the summaries, recaps and later turns quoting them are erased or re-written too."""
        for name, entry_id in self._conversations.purged_again:
            self.mem.conversation(name, scope=self.scope).purge(entry_id, reason="purged in this scope before")
            self.report.notes["conversation messages purged in this scope: their copies are purged again"] += 1

    def _one(self, event: Event) -> None:
        if event.type in _SCOPE_SETTINGS:
            self.report.skipped[f"{event.type} (scope setting)"] += 1
            return
        if event.type in _NO_CHANGE:
            self.report.skipped[f"{event.type} ({_NO_CHANGE[event.type]})"] += 1
            return
        handler = self._handlers.get(event.type)
        if handler is None:
            why = _NOT_REPLAYABLE.get(event.type, "this build knows no such event type (an export of a newer build?)")
            error = f"{event.type} cannot be replayed: {why}"
            self.report.failed.append({"seq": event.seq, "type": event.type, "code": "not_replayable", "error": error})
            return
        self._guard([event], lambda: handler(event))

    def _guard(self, events: list[Event], apply: Callable[[], None]) -> None:
        """Apply one unit; a refusal is recorded against its (first) event and the replay continues."""
        event = events[0]
        try:
            apply()
        except (StorageError, ClosedError):
            raise  # the store failed, not the event: the whole import rolls back
        except _LeftOut as left:  # about a claim this scope keeps out: skipped with it, never failed
            self._leave_out_made(event, left.why)
            self.report.skipped[f"{event.type} (about a claim left out: {left.why} in this scope)"] += 1
        except DismissedValueError:  # a revision into a value dismissed here (a claim: ``_remembered``)
            self._leave_out_made(event, "dismissed")
            self._count_kept_out(event.type, "dismissed")
        except ReverieError as err:
            self.report.failed.append({"seq": event.seq, "type": event.type, "code": err.code, "error": err.message})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # hand-edited: a field missing or mistyped
            error = f"malformed payload ({type(exc).__name__}: {exc})"
            self.report.failed.append({"seq": event.seq, "type": event.type, "code": "invalid_input", "error": error})
        else:
            self.report.applied.update(e.type for e in events)

    def _item(self, old: str) -> str:
        new = self.report.ids.get(old)
        if new is None and old in self._left_out:
            raise _LeftOut(self._left_out[old])
        if new is None:
            raise NotFoundError(f"item {old} of the export was not imported (its own event was skipped or failed)")
        return new

    def _edge(self, old: str) -> str:
        new = self.report.edges.get(old)
        if new is None and old in self._left_edges:
            raise _LeftOut(self._left_edges[old])
        if new is None:
            raise NotFoundError(f"edge {old} of the export was not imported")
        return new

    # -- items ------------------------------------------------------------------------------------
    def _remember_as(self, source: str, text: str, fields: dict[str, Any], *, corroborate: bool = True) -> Item:
        """Every claim read from a file is stored as ``imported`` (``Memory.remember_imported``): the
        source the file names is kept in ``provenance.source``, never replayed as authority."""
        new = self.mem.remember_imported(
            text, scope=self.scope, original_source=source, corroborate=corroborate, **fields
        )
        self.report.items[_landed(new)] += 1
        return new

    def _count_kept_out(self, event_type: str, why: Why) -> None:
        self.report.items["skipped"] += 1
        self.report.kept_out[why] += 1
        self.report.skipped[f"{event_type} ({SAYS[why]})"] += 1

    def _leave_out_made(self, event: Event, why: Why) -> None:
        """Remember that what ``event`` would have made (a version, an edge) was left out, so every
        later event about it is skipped with it instead of failing as "not imported"."""
        p = event.payload
        if isinstance(p.get("item"), dict) and isinstance(p["item"].get("id"), str):
            self._left_out[p["item"]["id"]] = why
        if isinstance(p.get("edge"), dict) and isinstance(p["edge"].get("id"), str):
            self._left_edges[p["edge"]["id"]] = why
        if isinstance(p.get("edge_id"), str) and event.type != "edge.unlinked":
            self._left_edges[p["edge_id"]] = why
        if event.type == "memory.dismissed":  # its undismiss is about the claim left out too
            self._left_prints.update(dict.fromkeys(map(str, p.get("fingerprints") or ()), why))

    def _remembered(self, event: Event) -> None:
        it = event.payload["item"]
        why = self._kept.why(it)
        if why is not None:
            self._left_out[it["id"]] = why
            self._count_kept_out(event.type, why)
            return
        scores = it.get("scores") or {}
        # What names a conversation entry, a conversation, a task or an intent names the copy's.
        meta, provenance = self._conversations.item_refs(it.get("meta") or {}, it.get("provenance") or {})
        meta = self._agenda.item_meta(meta)
        fields: dict[str, Any] = {
            "kind": it["kind"],
            "key": it.get("key"),
            "value": it.get("value"),
            "author": it.get("author"),
            "tags": it.get("tags") or (),
            "meta": meta or None,
            "parents": [self._item(p) for p in it.get("parents") or ()],
            "provenance": {k: provenance.get(k) for k in ("origin", "ref", "locator")},
            "valid_from": _time(it.get("valid_from")),
            "valid_to": _time(it.get("valid_to")),
            "scores": {k: v for k, v in scores.items() if k == "value"},
            **{k: v for k, v in scores.items() if k in ("authority", "confidence", "importance", "durability")},
            # A restricted claim stays restricted (dropped, it came back readable by every principal).
            # Absent means everyone; an empty list is refused by ``remember`` like any other.
            "visibility": it.get("visibility"),
        }
        # A system-made item (a dream gist) quotes one of its members verbatim: in the source it was a
        # new item, not a corroboration of that member, so it is one here too; and a message's memory
        # is never merged into another (the live wing writes it with ``corroborate=False``).
        corroborate = it["source"] != "system" and "message" not in meta
        try:
            new = self._remember_as(
                provenance.get("source") or it["source"], it["text"], fields, corroborate=corroborate
            )
        except DismissedValueError:  # the reducer refuses before it writes: nothing to undo
            self._left_out[it["id"]] = "dismissed"
            self._count_kept_out(event.type, "dismissed")
            return
        self.report.ids[it["id"]] = new.id
        self._parents[it["id"]] = tuple(it.get("parents") or ())
        tier = it.get("tier", "active")
        if new.tier != tier:
            self.mem.set_tier(new.id, tier, scope=self.scope, reason="import")

    def _corroborated(self, event: Event) -> None:
        """Remembering the same claim again is what corroborated it in the source; so here too."""
        target = self.mem.get(self._item(event.payload["id"]), scope=self.scope)
        if not target.is_current:
            raise ConflictError(f"cannot corroborate {target.id}: it is {target.status} in the target scope")
        fields = {"kind": target.kind, "key": target.key, "value": target.value, "visibility": _audience(target)}
        if isinstance(event.payload.get("by_author"), str):
            fields["author"] = event.payload["by_author"]  # who said it again, as in the source
        self._remember_as(event.payload.get("by_source", "observed"), target.text, {**fields, **_counted(event)})

    def _echoed(self, event: Event) -> None:
        """An echo of a corrected claim: its text said again here meets the same echo guard, so it
        lands as evidence on the superseded copy (``imported`` never outranks the correction)."""
        target = self.mem.get(self._item(event.payload["id"]), scope=self.scope)
        if target.is_current:
            raise ConflictError(f"cannot replay an echo on {target.id}: it is current in the target scope")
        echo = self.mem.remember_imported(
            target.text,
            scope=self.scope,
            original_source=event.payload.get("by_source", "observed"),
            kind=target.kind,
            key=target.key,
            value=target.value,
            visibility=_audience(target),
            **_counted(event),
        )
        if echo.id != target.id or echo.is_current:
            raise ConflictError(f"the echo of {target.id} was not recognised as one here (it made {echo.id})")
        self.report.items["echoed"] += 1

    def _revised(self, event: Event) -> None:
        p = event.payload
        it = p["item"]
        new = self.mem.revise(
            self._item(p["old_id"]),
            it["text"],
            scope=self.scope,
            reason=p.get("reason", ""),
            key=it.get("key"),
            value=it.get("value"),
            # a change in the world (the old version stays true until then), not a correction
            valid_from=_time(it.get("valid_from")) if "old_valid_to" in p else None,
        )
        self.report.ids[it["id"]] = new.id
        self._parents[it["id"]] = tuple(it.get("parents") or ())
        if "edge_id" in p:
            for edge in self.mem.edges(new.id, scope=self.scope):
                if edge.type == "supersedes" and edge.src == new.id:
                    self.report.edges[p["edge_id"]] = edge.id

    def _forgotten(self, event: Event) -> None:
        item_id = self._item(event.payload["id"])
        if self.mem.get(item_id, scope=self.scope).status == "forgotten":
            # A correction forgets a gist it leaves without a standing source in the same call
            # (model.gists): the replayed revise / dismiss / resolve has already written this one.
            return
        self.mem.forget(item_id, scope=self.scope, reason=event.payload.get("reason", ""))

    def _purged(self, event: Event) -> None:
        """The export already holds the redacted events; purging the copy keeps it erased, not live."""
        reason = event.payload.get("reason", "")
        self.mem.forget(self._item(event.payload["id"]), scope=self.scope, reason=reason, purge=True)

    def _dismissed_event(self, event: Event) -> None:
        new_id = self._item(event.payload["id"])
        self.mem.dismiss(new_id, scope=self.scope, reason=event.payload.get("reason", ""))
        self._dismissed.append((new_id, list(event.payload.get("fingerprints") or ())))

    def _undismissed(self, event: Event) -> None:
        """The event names fingerprints; lift them by the dismissed items' text or key/value, as a user would."""
        lifted = set(event.payload["fingerprints"])
        matched = False
        for new_id, prints in self._dismissed:
            if not lifted & set(prints):
                continue
            it = self.mem.get(new_id, scope=self.scope)
            by_text = any(fp in lifted for fp in prints if fp.startswith("t:"))
            by_kv = any(fp in lifted for fp in prints if not fp.startswith("t:"))
            self.mem.undismiss(
                it.text if by_text else None,
                scope=self.scope,
                key=it.key if by_kv else None,
                value=it.value if by_kv else None,
                reason=event.payload.get("reason", ""),
            )
            lifted -= set(prints)  # one tombstone per fingerprint: lifted once
            matched = True
        if not matched and lifted & set(self._left_prints):
            raise _LeftOut(self._left_prints[min(lifted & set(self._left_prints))])
        if not matched:
            raise NotFoundError("no dismissed item of the export carries these fingerprints")

    def _scores_set(self, event: Event) -> None:
        """Scores alone (``stated=False``): a person's statement is the export's own ``flags_set``
        event that followed it, and a dream pass's settling must stay free to settle again."""
        p = event.payload
        self.mem.set_scores(
            self._item(p["id"]), scope=self.scope, reason=p.get("reason", ""), stated=False, **p["scores"]
        )

    def _tier_set(self, event: Event) -> None:
        p = event.payload
        self.mem.set_tier(self._item(p["id"]), p["tier"], scope=self.scope, reason=p.get("reason", ""))

    def _tiers_set(self, event: Event) -> None:
        """One bulk move, replayed as one atomic call: an unknown id refuses it before any write."""
        changes = event.payload["changes"]
        tiers = {self._item(c["id"]): c["tier"] for c in changes}
        reasons = {self._item(c["id"]): c.get("reason", "") for c in changes}
        self.mem.set_tiers(tiers, scope=self.scope, reasons=reasons)

    def _promoted(self, event: Event) -> None:
        p = event.payload
        if p["to"] == "manual":  # a person's word is given in this store, never read from a file
            self.report.skipped["memory.promoted to manual (a person vouches here, not in a file)"] += 1
            return
        self.mem.promote(self._item(p["id"]), scope=self.scope, to=p["to"], reason=p.get("reason", ""))

    def _flags_set(self, event: Event) -> None:
        p = event.payload
        self.mem.flag(
            self._item(p["id"]),
            scope=self.scope,
            add=p.get("add") or (),
            remove=p.get("remove") or (),
            reason=p.get("reason", ""),
        )

    def _visibility_set(self, event: Event) -> None:
        """Who may see the claim changed in the source; None (``[]`` in a log written before) is everyone."""
        p = event.payload
        audience = p.get("visibility") or None
        self.mem.set_visibility(self._item(p["id"]), scope=self.scope, visibility=audience, reason=p.get("reason", ""))

    def _used(self, event: Event) -> None:
        ids = self.report.ids
        uses = [(ids[old], float(weight)) for old, weight in event.payload["uses"] if old in ids]
        self.mem.record_use(self.scope, uses, event.payload.get("query", ""))

    # -- edges ------------------------------------------------------------------------------------
    def _linked(self, event: Event) -> None:
        e = event.payload["edge"]
        new = self.mem.link(
            self._item(e["src"]),
            self._item(e["dst"]),
            e["type"],
            scope=self.scope,
            author=e.get("author"),
            authority=float(e.get("authority", 0.5)),
            meta=e.get("meta") or None,
        )
        self.report.edges[e["id"]] = new.id
        self._edge_ends[e["id"]] = (e["type"], e["src"], e["dst"])

    def _superseded(self, event: Event) -> None:
        """b replaced by a: ``link(a, b, "supersedes")``, the public call that does exactly that.

        From a supersedes link, with the link's own author, authority and meta. Alone (a dream
        pass replacing a pattern, a slice import, a revision that said what another claim says:
        a conflict resolution is replayed as ``resolve``, see ``_resolution_length``), the edge
        takes the winner's author and authority, as the source's did.
        """
        p = event.payload
        winner = self.mem.get(self._item(p["by"]), scope=self.scope)
        e = p.get("edge") or {"author": winner.author, "authority": winner.scores.authority}
        new = self.mem.link(
            winner.id,
            self._item(p["id"]),
            "supersedes",
            scope=self.scope,
            author=e.get("author"),
            authority=float(e.get("authority", 0.5)),
            meta=e.get("meta") or None,
        )
        self.report.edges[p["edge_id"]] = new.id
        self._edge_ends[p["edge_id"]] = ("supersedes", p["by"], p["id"])

    def _unlinked(self, event: Event) -> None:
        edge_id = self._edge(event.payload["edge_id"])
        if self._closed_edge(event.payload["edge_id"], edge_id):
            # Closing an item closes its contradictions in the same call (model.reducer): the
            # replayed revise / forget / dismiss / resolve has already written this one.
            return
        self.mem.unlink(edge_id, scope=self.scope, reason=event.payload.get("reason", ""))

    def _closed_edge(self, old_edge: str, edge_id: str) -> bool:
        """Is the target's copy of the export's ``old_edge`` already closed? (Read through one end.)"""
        ends = self._edge_ends.get(old_edge)
        end = self.report.ids.get(ends[1]) if ends is not None else None
        if end is None:
            return False
        found = [e for e in self.mem.edges(end, scope=self.scope, include_closed=True) if e.id == edge_id]
        return bool(found) and not found[0].is_current

    # -- conflict resolution ----------------------------------------------------------------------
    def _resolution_length(self, events: list[Event], i: int) -> int:
        """How many events from ``i`` one ``resolve`` produced (0: not a resolution).

        ``resolve`` writes, in one transaction (one ``at``): the loser ``superseded``, its
        ``contradicts`` edge ``unlinked``, then flags and tier changes on items derived from the
        loser. There is no public call for ``superseded`` alone, so the group is replayed as one
        ``resolve``, which re-derives those flag and tier changes itself.
        """
        sup = events[i]
        if sup.type != "memory.superseded" or i + 1 >= len(events) or not hasattr(self.mem, "resolve"):
            return 0
        if "edge" in sup.payload:  # a supersedes link (which closed a conflict too): replayed as the link
            return 0
        unlinked = events[i + 1]
        ends = self._edge_ends.get(unlinked.payload.get("edge_id", ""))
        pair = {sup.payload.get("id"), sup.payload.get("by")}
        if unlinked.type != "edge.unlinked" or unlinked.at != sup.at or ends is None:
            return 0
        if ends[0] != "contradicts" or set(ends[1:]) != pair:
            return 0
        n = 2
        while i + n < len(events) and self._derived_upkeep(events[i + n], sup):
            n += 1
        return n

    def _derived_upkeep(self, event: Event, sup: Event) -> bool:
        """A flag / tier change ``resolve`` made on an item derived from the loser, in its transaction
        (or the gist it forgot there: the loser was its last standing source, ``model.gists``)."""
        if event.at != sup.at or event.type not in ("memory.flags_set", "memory.tier_set", "memory.forgotten"):
            return False
        return sup.payload["id"] in self._parents.get(event.payload.get("id", ""), ())

    def _resolve(self, superseded: Event, unlinked: Event) -> None:
        self.mem.resolve(
            self._edge(unlinked.payload["edge_id"]),
            keep=self._item(superseded.payload["by"]),
            scope=self.scope,
            reason=superseded.payload.get("reason", ""),
        )


class _LeftOut(Exception):
    """An event names a claim (or an edge to one) the replay left out: the event is skipped with it."""

    def __init__(self, why: Why) -> None:
        super().__init__(why)
        self.why: Why = why
