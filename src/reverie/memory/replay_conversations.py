"""An export's conversation events replayed into a scope (``reverie import``), ids re-assigned.

Why not the live handle (``conv.add``, ``release``, ``purge``): in the log, each of those calls
wrote *several* events — a message and its recallable memory, a purge and the purges of the
memories and claims that quoted it — and the export holds every one of them. The import replays
the memories and claims from their own events (as ``imported`` claims: trust does not travel),
so a conversation event is replayed as the one command that wrote it — ``OpenConversation``,
``RecordEntry``, ``PurgeMessage`` — the commands the live wing runs, through the same reducer
checks (a conversation moved on, a message older than the last one, a widened audience).

- **Ids.** Every entry gets a fresh id; ``entries`` maps the file's entry ids to the new ones,
  and ``item_refs`` rewrites what names an entry or a conversation in a claim of the file (a
  message's memory: ``meta.message``; a mined claim: ``meta.message_id`` and
  ``provenance.locator``; ``meta.conversation`` and a ``conversation`` provenance's ``ref``), so
  purging an imported message finds its memory and claims, as it would have where it was said.
- **Names.** A conversation keeps its name unless this scope already has one of that name (two
  chats interleaved would be neither, and an older message is refused after a newer one): it is
  then opened as ``<name>~2`` (``~3`` …), as a slice's ``on_conflict="reid"`` does; ``names``
  says which.
  Imported by a principal, it is opened under that principal's own name (``agent:b+<name>``):
  a principal may open no other, whether or not a conversation it may not see holds the name.
- **Positions** are the file's when every entry replays; a summary's or recap's ``from`` /
  ``upto`` is renumbered to the entries here (an entry refused earlier shifts the rest).
- **Never mined again.** Each entry keeps the id it had where it was first recorded in
  ``meta.slice_origin`` (the mark a slice import sets), so ``conversation.learn`` never mines an
  imported message: the claims its words gave arrive as the file's own claims.
- **Purges stay purges.** A purged message arrives redacted (the export holds the redacted
  events); its ``conversation.message_purged`` is replayed as the purge of the copy. A message
  *this scope* purged (found by origin: the entry keeps its id when purged) that an older file
  still holds is replayed, then its copy is purged again (``purged_again``: the caller runs the
  live purge, which erases what quotes it too), unless ``restore_purged`` is set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reverie.conversation import checks
from reverie.conversation.host import ConversationHost, conversation_store
from reverie.errors import InvalidInputError, NotFoundError, ReverieError
from reverie.memory.slice_conversations import fresh_name
from reverie.model import events as ev
from reverie.model.clock import from_iso
from reverie.model.conversation import (
    ENTRY_EVENTS,
    ENTRY_ORIGIN_META,
    OWNER_ONLY,
    ConversationState,
    Entry,
    OpenConversation,
    PurgeMessage,
    RecordEntry,
    SetMessageVisibility,
)
from reverie.model.conversation_names import own_name
from reverie.model.ids import is_id
from reverie.model.legacy_names import is_legacy, renamed_name
from reverie.model.redact import REDACTED
from reverie.model.validate import check_meta, check_text
from reverie.model.visibility import check_visibility
from reverie.store.visible import principal_of

#: The conversation event types an import replays (``ConversationReplay.replay``).
REPLAYED = frozenset({ev.CONVERSATION_OPENED, ev.MESSAGE_PURGED, ev.CONVERSATION_VISIBILITY_SET, *ENTRY_EVENTS})


class ConversationReplay:
    """One import's replay of conversation events into ``scope``: what the file's names and ids became."""

    def __init__(self, host: ConversationHost, scope: str) -> None:
        self._host = host
        self.scope = scope
        #: The file's conversation name -> the name here (itself, or ``<name>~N`` when it was taken).
        self.names: dict[str, str] = {}
        #: The file's entry id -> the entry's id here.
        self.entries: dict[str, str] = {}
        self._positions: dict[str, dict[int, int]] = {}  # name here -> the file's position -> position here
        #: True: a message this scope purged comes back with the file (``reverie import --restore-purged``).
        self.restore_purged = False
        #: (name here, copy's entry id) of the file's messages this scope had purged, to purge again.
        self.purged_again: list[tuple[str, str]] = []
        self._purged_here: set[str] | None = None  # ids and origins of the messages purged here

    def replay(self, event: ev.Event) -> None:
        """Replay one conversation event (a type of ``REPLAYED``); raises as the live write would."""
        if event.type == ev.CONVERSATION_OPENED:
            self._opened(event.payload)
        elif event.type in ENTRY_EVENTS:
            self._entry(event.payload)
        elif event.type == ev.MESSAGE_PURGED:
            self._purged(event.payload)
        elif event.type == ev.CONVERSATION_VISIBILITY_SET:
            self._visibility_set(event.payload)
        else:
            raise InvalidInputError(f"{event.type} is not a conversation event this import replays")

    def check_times(self, events: Sequence[ev.Event]) -> None:
        """Refuse, before anything is written, a message the file dates past this clock's skew bound
        (``checks.check_imported_at``: an export from a store whose clock ran ahead), as a live
        ``conv.add`` refuses it. A message the file also purges is let through: its purge, replayed
        after it, releases the bound (the README's way out of a wrong future time)."""
        purged = {str(e.payload.get("id")) for e in events if e.type == ev.MESSAGE_PURGED}
        now, limits = self._host.clock.now(), self._host.limits
        for event in events:
            entry = event.payload.get("entry") if event.type in ENTRY_EVENTS else None
            if not isinstance(entry, Mapping) or entry.get("kind") != "message" or entry.get("id") in purged:
                continue
            try:
                at = from_iso(str(entry["at"]))
            except (KeyError, ValueError):
                continue  # malformed: the replay reports it as it does today
            where = f"message {entry.get('id')} of conversation {entry.get('conversation')!r} (event {event.seq})"
            checks.check_imported_at(at, now, limits, where)

    def item_refs(
        self, meta: Mapping[str, Any], provenance: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A claim's ``meta`` and ``provenance`` naming this scope's entries and conversations.

        What names no replayed entry or conversation (a caller's own ``meta``) is kept as it is.
        """
        meta, prov = dict(meta), dict(provenance)
        for key in ("message", "message_id"):
            if isinstance(old := meta.get(key), str) and old in self.entries:
                meta[key] = self.entries[old]
        if isinstance(old := prov.get("locator"), str) and old in self.entries:
            prov["locator"] = self.entries[old]
        if isinstance(name := meta.get("conversation"), str) and name in self.names:
            meta["conversation"] = self.names[name]
        if prov.get("origin") == "conversation" and isinstance(ref := prov.get("ref"), str) and ref in self.names:
            prov["ref"] = self.names[ref]
        return meta, prov

    # -- the events ---------------------------------------------------------------------------
    def _opened(self, payload: Mapping[str, Any]) -> None:
        state = ConversationState.from_dict(payload["conversation"])
        name = checks.check_name(state.id, "conversation id")
        store = conversation_store(self._host)
        # A principal opens conversations only under its own name (``model.conversation_names``);
        # one an older reverie held under a principal's name hidden from it lands where opening
        # that store renames it (``model.legacy_names``).
        principal = principal_of(store)
        here = name if principal is None else own_name(principal, name)
        if principal is None and is_legacy(state):
            here = renamed_name(name, state.visibility)
        target = here if store.conversation_state(self.scope, here) is None else fresh_name(store, self.scope, here)
        self._host.run([OpenConversation(self.scope, target, _audience(state.visibility))])
        self.names[name] = target
        self._positions[target] = {}

    def _entry(self, payload: Mapping[str, Any]) -> None:
        old = Entry.from_dict(payload["entry"])
        target = self.names.get(old.conversation)
        if target is None:
            raise NotFoundError(
                f"conversation {old.conversation!r} of the export was not imported (its opening failed)"
            )
        state = conversation_store(self._host).conversation_state(self.scope, target)
        if state is None:  # pragma: no cover - opened by this replay, in its transaction
            raise NotFoundError(f"conversation {target!r} is gone from scope {self.scope!r}")
        positions = self._positions[target]
        entry = Entry(
            id=self._host.new_id(),
            scope=self.scope,
            conversation=target,
            kind=old.kind,
            text=self._checked_text(old),
            at=old.at,
            speaker=checks.check_name(old.speaker, "speaker") if old.speaker is not None else None,
            role=checks.check_role(old.role) if old.kind == "message" else old.role,
            meta={**self._checked_meta(old, positions, state.position + 1), ENTRY_ORIGIN_META: _origin(old)},
            visibility=_audience(old.visibility),
        )
        out = self._host.run([RecordEntry(self.scope, entry, state.position)])
        stored = Entry.from_dict(out[0].events[0].payload["entry"])
        self.entries[old.id] = stored.id
        positions[old.position] = stored.position
        if old.kind == "message" and not self.restore_purged and {old.id, _origin(old)} & self._purged_messages():
            self.purged_again.append((target, stored.id))

    def _purged_messages(self) -> set[str]:
        """The ids (and origins) of this scope's purged messages, read once, before the replay wrote any."""
        if self._purged_here is None:
            store = conversation_store(self._host)
            self._purged_here = set()
            for state in store.conversations(self.scope):
                for e in store.conversation_entries(self.scope, state.id):
                    if e.kind == "message" and e.text == REDACTED:
                        self._purged_here |= {e.id, _origin(e)}
        return self._purged_here

    def _purged(self, payload: Mapping[str, Any]) -> None:
        name = str(payload["conversation"])
        target = self.names.get(name)
        message = self.entries.get(str(payload["id"]))
        if target is None or message is None:
            raise NotFoundError(f"message {payload['id']} of conversation {name!r} of the export was not imported")
        covering = tuple(self.entries[c] for c in payload.get("covering") or () if c in self.entries)
        self._host.run([PurgeMessage(self.scope, target, message, covering, str(payload.get("reason") or ""))])
        self.purged_again = [p for p in self.purged_again if p[1] != message]  # the file purges it itself

    def _visibility_set(self, payload: Mapping[str, Any]) -> None:
        """A message's audience changed, with the summaries and recaps narrowed with it (the same pairs)."""
        name, old = str(payload["conversation"]), str(payload["id"])
        target, message = self.names.get(name), self.entries.get(old)
        if target is None or message is None:
            raise NotFoundError(f"message {old} of conversation {name!r} of the export was not imported")
        others = tuple(
            (self.entries[str(i)], _audience(tuple(map(str, v))))
            for i, v in payload.get("entries") or ()
            if str(i) != old and str(i) in self.entries
        )
        audience = _audience(tuple(map(str, payload.get("visibility") or ())))
        reason = str(payload.get("reason") or "")
        self._host.run([SetMessageVisibility(self.scope, target, message, audience, others, reason)])

    # -- the checks a live write makes ---------------------------------------------------------
    def _checked_text(self, e: Entry) -> str:
        if e.kind == "tool_call":
            return checks.check_name(e.text, "tool name")
        return check_text(e.text, self._host.limits, f"{e.kind} text")

    def _checked_meta(self, e: Entry, positions: Mapping[int, int], here: int) -> dict[str, Any]:
        """``e``'s meta as a live write accepts it; a summary's or recap's span renumbered to the
        entries replayed here (an empty span, each of its entries refused, is ``here .. here - 1``)."""
        limits = self._host.limits
        meta = {k: v for k, v in e.meta.items() if k != ENTRY_ORIGIN_META}
        try:
            if e.kind == "message":
                return checks.check_message_meta(meta, limits)
            if e.kind == "tool_call":
                args = checks.check_tool_args(meta.get("args"), limits)
                status = checks.check_status(meta.get("status", "ok"))
                return {"args": args, "status": status, "detail": checks.check_detail(meta.get("detail"))}
            meta = check_meta(meta, limits)
        except ReverieError as exc:
            raise type(exc)(f"{e.kind} {e.id}: {exc.message}") from None
        lo, hi = meta.get("from"), meta.get("upto")
        if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool) and not isinstance(hi, bool):
            inside = [p for p in sorted(positions) if lo <= p <= hi]
            meta["from"], meta["upto"] = (positions[inside[0]], positions[inside[-1]]) if inside else (here, here - 1)
        return meta


def _audience(visibility: tuple[str, ...]) -> tuple[str, ...]:
    """An audience from the file, checked as a live write checks it (``()``: everyone; the owner-only
    mark a narrowed recap carries is kept as it is)."""
    if not visibility or visibility == OWNER_ONLY:
        return visibility
    return check_visibility(list(visibility))


def _origin(e: Entry) -> str:
    """The id ``e`` had where it was first recorded (an entry a slice brought there keeps its own)."""
    origin = e.meta.get(ENTRY_ORIGIN_META)
    return origin if isinstance(origin, str) and is_id(origin) else e.id


__all__ = ["REPLAYED", "ConversationReplay"]
