"""Conversations in slices: which an export carries, and how an import appends them (format version 2).

Which conversations: with no ``memory_ids``, every conversation of the scope; with ``memory_ids``,
the conversations an exported item belongs to (``meta.conversation``: a message's memory, a claim
mined from a message, a person named in it). A conversation travels whole — every entry still in
its archive (purged ones stay behind) — and so do its messages' memories, which join the slice's
items (so their parents, aliases and contradictions follow as for any item).

Import keeps the rules slices have for claims:

- **Append-only.** An entry is recognised by its origin (the id it had where it was first
  recorded: its own id, or ``meta.slice_origin`` on an imported one). A conversation of the same
  name here is *continued* when the slice holds every entry it has, in order and in the same
  words, and more after them (the sandbox's conversation coming home): only the entries after them
  are appended. Nothing here is ever changed, and an entry purged here stays purged (its words in
  the slice are not brought back). Any other conversation of that name is a conflict, decided by
  ``on_conflict``: ``report`` refuses the import (nothing written), ``skip`` keeps ours (and
  leaves out the memories of the entries it did not import), ``reid`` imports the slice's as a new
  conversation ``<name>~2`` (``~3`` …).
- **Provenance.** Every appended entry gets a fresh id, keeps its origin in ``meta.slice_origin``,
  and is renumbered (positions, turns, sessions; a summary's or recap's ``from`` / ``upto``). The
  memories and claims that name an entry (``meta.message``, ``meta.message_id``,
  ``provenance.locator``) name the entry's id here, so purging the message here finds them.
- **Trust does not travel.** Message memories arrive as items do (source ``imported``,
  authority capped); and an imported message is never mined into claims here
  (``conversation.learn`` skips it): the claims its words gave where it was said travel as the
  slice's items, with their capped trust, instead of coming back as ``user_stated``.

Everything is checked and planned before the import's one transaction, in which the entries are
recorded with the commands a live conversation uses (``OpenConversation``, ``RecordEntry``), so a
replay of the log rebuilds them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from reverie.conversation import checks
from reverie.conversation.host import ConversationStore
from reverie.conversation.rewindow import context_window
from reverie.errors import InvalidInputError, InvalidSliceError, ReverieError, SliceConflictError
from reverie.limits import Limits
from reverie.model.conversation import (
    ENTRY_ORIGIN_META,
    ConversationState,
    Entry,
    OpenConversation,
    RecordEntry,
    redact_entry,
    releases,
)
from reverie.model.conversation_names import named_for, own_name
from reverie.model.cursor import BY_ID, after_id
from reverie.model.ids import is_id
from reverie.model.item import Item
from reverie.model.legacy_names import is_legacy_name, renamed_name
from reverie.model.query import Q
from reverie.model.redact import REDACTED
from reverie.model.validate import check_meta, check_text
from reverie.slice.conversations import SliceConversation, SliceEntry
from reverie.slice.format import Slice, SliceItem
from reverie.slice.report import SliceReport
from reverie.store.protocol import Batch, Store
from reverie.store.visible import principal_of

#: The most entries one conversation of a slice may carry, and the most memories read per conversation.
MAX_ENTRIES = 100_000
_PAGE = 1000


# -- export --------------------------------------------------------------------------------------
def export_conversations(
    store: Store, scope: str, chosen: dict[str, Item], whole_scope: bool
) -> tuple[SliceConversation, ...]:
    """The ``conversations`` section for a slice of ``chosen``; adds their messages' memories to ``chosen``."""
    cs = _conversation_store(store)
    held = {c.id for c in cs.conversations(scope)}
    if whole_scope:
        names = sorted(held)
    else:
        named = {i.meta.get("conversation") for i in chosen.values()}
        names = sorted(n for n in named if isinstance(n, str) and n in held)
    out = []
    for name in names:
        entries = [e for e in cs.conversation_entries(scope, name) if e.text != REDACTED and not e.meta.get("purged")]
        if len(entries) > MAX_ENTRIES:
            raise InvalidInputError(f"conversation {name!r} has {len(entries)} entries; a slice carries {MAX_ENTRIES}")
        memories = _memories(store, scope, name)
        chosen.update((m.id, m) for m in memories.values())
        state = cs.conversation_state(scope, name)
        audience = state.visibility if state is not None else ()
        sliced = tuple(_slice_entry(e, memories.get(e.id), audience) for e in entries)
        out.append(SliceConversation(id=name, entries=sliced, visibility=audience or None))
    return tuple(out)


def _memories(store: Store, scope: str, name: str) -> dict[str, Item]:
    """The current memories of the conversation's messages, by message id."""
    where = Q.meta("conversation", name) & Q.meta_has("message") & Q.status("live")
    out: dict[str, Item] = {}
    page: list[Item] = []
    read = 0
    while True:
        page = store.query(scope, where & after_id(page), BY_ID, limit=_PAGE)
        for item in page:
            message = item.meta.get("message")
            if isinstance(message, str):
                out.setdefault(message, item)
        if len(page) < _PAGE or read > MAX_ENTRIES:
            return out
        read += _PAGE


def _slice_entry(e: Entry, memory: Item | None, audience: tuple[str, ...]) -> SliceEntry:
    """``e`` as a slice carries it; its audience only when it narrows its conversation's."""
    meta = dict(e.meta)
    origin = meta.pop(ENTRY_ORIGIN_META, None)
    return SliceEntry(
        id=e.id,
        origin_id=origin if is_id(origin) else e.id,
        kind=e.kind,
        text=e.text,
        at=e.at,
        position=e.position,
        speaker=e.speaker,
        role=e.role,
        meta=meta,
        memory=memory.id if memory is not None and e.kind == "message" else None,
        visibility=e.visibility if e.visibility != audience else None,
    )


# -- import: plan ----------------------------------------------------------------------------------
@dataclass
class _Conversation:
    """One conversation to write: where, from which position, the entries to append."""

    target: str
    open: bool
    expected: int
    entries: list[Entry] = field(default_factory=list)
    visibility: tuple[str, ...] = ()


@dataclass
class ConversationsPlan:
    """What an import appends, and how the slice's items are renamed to match (``rewrite``)."""

    conversations: list[_Conversation] = field(default_factory=list)
    entry_ids: dict[str, str] = field(default_factory=dict)  # slice entry id -> entry id here
    names: dict[str, str] = field(default_factory=dict)  # slice conversation -> conversation here
    memory_meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # slice item id -> meta it gets
    left_out: set[str] = field(default_factory=set)  # slice items not imported (a skipped conversation's)
    #: Slice entries whose entry here is purged (``_match``): their words must not come back.
    purged: list[SliceEntry] = field(default_factory=list)
    #: Slice entries (message ids) by the purged slice entries of their session before them.
    after_purged: dict[str, list[SliceEntry]] = field(default_factory=dict)
    memory_text: dict[str, str] = field(default_factory=dict)  # slice item id -> its text re-derived here

    def rewrite(self, it: SliceItem) -> SliceItem:
        """``it`` naming the entries and conversations as they are here (see the module docstring)."""
        meta = dict(it.meta)
        prov = dict(it.provenance)
        meta.update(self.memory_meta.get(it.id, {}))
        text = self.memory_text.get(it.id, it.text)
        source = meta.get("message_id")
        if isinstance(source, str) and source in self.entry_ids:
            meta["message_id"] = self.entry_ids[source]
        if prov.get("locator") in self.entry_ids:
            prov["locator"] = self.entry_ids[str(prov["locator"])]
        name = meta.get("conversation")
        if isinstance(name, str) and name in self.names:
            meta["conversation"] = self.names[name]
        if prov.get("ref") in self.names and prov.get("origin") == "conversation":
            prov["ref"] = self.names[str(prov["ref"])]
        if meta == it.meta and prov == it.provenance and text == it.text:
            return it
        return replace(it, meta=meta, provenance=prov, text=text)


def plan_conversations(
    sl: Slice,
    store: Store,
    scope: str,
    limits: Limits,
    new_id: Callable[[], str],
    on_conflict: str,
    report: SliceReport,
    now: datetime | None,
) -> ConversationsPlan:
    """Check and place every conversation of ``sl``; raises before anything is written.

    ``now``: the clock's now, which a message to append may follow by the skew bound at most
    (``checks.check_imported_at``); None lets any time through (``import_slice(allow_future=True)``).
    """
    plan = ConversationsPlan()
    if not sl.conversations:
        return plan
    cs = _conversation_store(store)
    conflicts: list[dict[str, str]] = []
    for sc in sl.conversations:
        if len(sc.entries) > MAX_ENTRIES:
            raise InvalidSliceError(f"conversation {sc.id!r} has {len(sc.entries)} entries; the limit is {MAX_ENTRIES}")
        home, state = _home(cs, scope, sc.id, principal_of(store), sc.visibility or ())
        local = cs.conversation_entries(scope, home) if state is not None else []
        matched, rest, problem = _match(sc, local)
        if problem is None and state is not None and state.visibility != (sc.visibility or ()):
            problem = "the conversation here is shown to another audience"
        target = home
        if problem is not None and on_conflict == "reid":
            copy = _earlier_copy(cs, scope, home, sc)
            if copy is not None:  # imported before as a copy: continue that one, never copy again
                target, state, local = copy
                (matched, rest, _), problem = _match(sc, local), None
        if problem is not None:
            conflicts.append({"id": sc.id, "target": home, "reason": problem})
            if on_conflict != "reid":
                plan.left_out.update(e.memory for e in sc.entries if e.memory is not None)
                report.conversations_skipped.append({"id": sc.id, "target": home, "reason": f"conflict: {problem}"})
                continue
            # A copy under a new name still never brings back an entry purged here.
            fresh = [se for se in sc.entries if se.origin_id not in _purged_origins(local)]
            target, state, matched, rest = fresh_name(cs, scope, home), None, [], fresh
        plan.names[sc.id] = target
        report.conversations[sc.id] = target
        for se, le in matched:
            plan.entry_ids[se.id] = le.id
            report.entries[se.id] = le.id
        gone = {se.id for se in sc.entries if se.origin_id in _purged_origins(local)}
        plan.purged += [se for se in sc.entries if se.id in gone]
        plan.left_out.update(se.memory for se in sc.entries if se.id in gone and se.memory is not None)
        _note_sessions(plan, sc, gone)
        if not rest and state is not None:
            report.conversations_skipped.append({"id": sc.id, "target": target, "reason": "already here"})
            continue
        held = (matched, local if state is not None else [])
        if now is not None:
            _check_times(sc, rest, now, limits)
        placed = _place(plan, report, sc, (scope, target), state, held, rest, limits, new_id)
        plan.conversations.append(placed)
    report.conflicts.extend(conflicts)
    if conflicts and on_conflict == "report":
        shown = ", ".join(f"{c['id']!r} ({c['reason']})" for c in conflicts[:5])
        raise SliceConflictError(
            f"{len(conflicts)} conversation(s) of the slice conflict with this scope's: {shown}; nothing was "
            "imported. Pass on_conflict='skip' to keep this scope's or 'reid' to import the slice's under a new name",
            conflicts,
        )
    return plan


def _check_times(sc: SliceConversation, rest: list[SliceEntry], now: datetime, limits: Limits) -> None:
    """Each message to append dated within the skew bound after ``now``, as a live ``conv.add`` is
    (the first one past it is named). Only messages: their times order the conversation; a tool
    call, summary or recap never holds back a live message."""
    for se in rest:
        if se.kind == "message":
            where = f"message {se.id} of the slice's conversation {sc.id!r}"
            checks.check_imported_at(se.at, now, limits, where)


def _origin(e: Entry) -> str:
    origin = e.meta.get(ENTRY_ORIGIN_META)
    return origin if isinstance(origin, str) and is_id(origin) else e.id


def _match(
    sc: SliceConversation, local: list[Entry]
) -> tuple[list[tuple[SliceEntry, Entry]], list[SliceEntry], str | None]:
    """The slice's entries already here (a prefix), the ones to append, and why it cannot be continued."""
    here = {_origin(e): e for e in local}
    matched: list[tuple[SliceEntry, Entry]] = []
    for se in sc.entries:
        le = here.get(se.origin_id)
        if le is None:
            break
        matched.append((se, le))
    rest = list(sc.entries[len(matched) :])
    order = [le.position for _, le in matched]
    if any(se.origin_id in here for se in rest) or order != sorted(order):
        return matched, rest, "its entries are here in another order"
    # A purged entry here holds nothing and never travels (the slice cannot hold it): it is no
    # entry the slice lacks. One the slice still holds is matched above and stays purged.
    seen = {le.id for _, le in matched}
    if len(matched) < sum(1 for e in local if e.text != REDACTED or e.id in seen):
        if not matched:
            return matched, rest, "a conversation of this name here holds other entries"
        return matched, rest, "this scope's conversation has entries the slice lacks (both went on)"
    for se, le in matched:
        if le.text != REDACTED and (le.kind, le.text) != (se.kind, se.text):
            return matched, rest, f"entry {se.id} is here in other words"
    return matched, rest, None


def _home(
    cs: ConversationStore, scope: str, name: str, principal: str | None, audience: tuple[str, ...]
) -> tuple[str, ConversationState | None]:
    """Where conversation ``name`` of a slice goes here, and its state there (None: new).

    A principal imports into a conversation of its audience by the same name, and any other
    under its own name (``model.conversation_names``): a principal may open no other, and
    choosing by whether the name is taken would tell it that a hidden conversation holds it.
    The owner places one under a principal's name hidden from it (an older reverie's) where
    opening an older store renames it (``model.legacy_names``): that name is the principal's.
    """
    if principal is None and is_legacy_name(name, audience):
        name = renamed_name(name, audience)
    state = cs.conversation_state(scope, name)
    if principal is None or state is not None or named_for(name) == principal:
        return name, state
    home = own_name(principal, name)
    return home, cs.conversation_state(scope, home)


def _earlier_copy(
    cs: ConversationStore, scope: str, name: str, sc: SliceConversation
) -> tuple[str, ConversationState, list[Entry]] | None:
    """The copy ``name~2`` (``~3`` …) an earlier ``reid`` import of ``sc`` made here, if one is
    still its conversation (``_match`` finds no problem, same audience): its name, state, entries.

    Why: entries are recognised by origin, so the same slice imported twice is "already here" in
    its copy, as its claims are; without this each ``reid`` import archived the whole
    conversation again (outside probe 7, finding 9).
    """
    for n in range(2, 10_000):
        suffix = f"~{n}"
        candidate = name[: checks.MAX_NAME_CHARS - len(suffix)] + suffix
        state = cs.conversation_state(scope, candidate)
        if state is None:
            return None  # copies are named in order (``fresh_name``): no later one
        local = cs.conversation_entries(scope, candidate)
        if _match(sc, local)[2] is None and state.visibility == (sc.visibility or ()):
            return candidate, state, local
    return None  # pragma: no cover


def fresh_name(cs: ConversationStore, scope: str, name: str) -> str:
    """``name~2`` (``~3`` …): the first copy name this scope does not hold (within the name limit)."""
    for n in range(2, 10_000):
        suffix = f"~{n}"
        candidate = name[: checks.MAX_NAME_CHARS - len(suffix)] + suffix
        if cs.conversation_state(scope, candidate) is None:
            return candidate
    raise InvalidSliceError(f"no free name for a copy of conversation {name!r}")  # pragma: no cover


def _place(
    plan: ConversationsPlan,
    report: SliceReport,
    sc: SliceConversation,
    where_to: tuple[str, str],
    state: ConversationState | None,
    held: tuple[list[tuple[SliceEntry, Entry]], list[Entry]],
    rest: list[SliceEntry],
    limits: Limits,
    new_id: Callable[[], str],
) -> _Conversation:
    """Number the entries to append after ``state`` and build them (checked as a live write would be).

    Where an entry here is purged (``plan.purged``), the appended summaries and recaps covering it
    are appended erased, and the memories of the appended messages of its session are re-derived
    from the entries here, where its words are gone (``_rederived``)."""
    scope, target = where_to
    matched, local = held
    start = state.position if state is not None else 0
    turn = state.turn if state is not None else 0
    session = state.session if state is not None else 1
    last_at = state.last_at if state is not None else None
    positions = {se.position: le.position for se, le in matched}
    positions.update({se.position: start + n for n, se in enumerate(rest, 1)})
    audience = state.visibility if state is not None else (sc.visibility or ())
    out = _Conversation(target, state is None, start, visibility=audience)
    here = [e for e in local if e.kind in ("message", "recap")]
    for se in rest:
        where = f"slice conversation {sc.id!r} entry {se.id}"
        if se.kind == "message" and last_at is not None and se.at < last_at:
            raise InvalidSliceError(f"{where} is before the last message of conversation {target!r} here")
        try:
            meta = _checked_meta(se, limits, positions, start + len(out.entries) + 1)
            text = check_text(se.text, limits, "text") if se.kind != "tool_call" else checks.check_name(se.text, "tool")
            speaker = checks.check_name(se.speaker, "speaker") if se.speaker is not None else None
        except ReverieError as exc:
            raise type(exc)(f"{where}: {exc.message}") from None
        entry = Entry(
            id=new_id(),
            scope=scope,
            conversation=target,
            kind=se.kind,
            text=text,
            at=se.at,
            speaker=speaker,
            role=se.role,
            meta={**meta, ENTRY_ORIGIN_META: se.origin_id},
            visibility=audience if se.visibility is None else se.visibility,
        )
        if se.kind in ("summary", "recap") and _covers_purged(se, plan):
            entry = redact_entry(entry)  # as a purge here erases the recaps that may quote the message
        out.entries.append(entry)
        plan.entry_ids[se.id] = report.entries[se.id] = entry.id
        if se.kind == "message" and se.memory is not None and plan.after_purged.get(se.id):
            plan.memory_text[se.memory] = _rederived(entry, here, limits)
        here.append(entry)
        if se.kind == "message":
            turn, last_at = turn + 1, se.at
            if se.memory is not None:
                plan.memory_meta[se.memory] = {"message": entry.id, "turn": turn, "session": session}
        elif se.kind == "recap" and not meta.get("variant"):  # a narrower audience's recap releases nothing
            session += 1
    return out


def _checked_meta(se: SliceEntry, limits: Limits, positions: Mapping[int, int], here: int) -> dict[str, Any]:
    """An entry's meta as a live write would accept it; a summary's or recap's span renumbered to
    the entries before it that travelled (``here``: its own position here; an empty span, every
    entry of it purged where it was exported, is ``from = here``, ``upto = here - 1``)."""
    meta = {k: v for k, v in se.meta.items() if k != ENTRY_ORIGIN_META}
    if se.kind == "message":
        return checks.check_message_meta(meta, limits)
    if se.kind == "tool_call":
        args = checks.check_tool_args(meta.get("args"), limits)
        status = checks.check_status(meta.get("status", "ok"))
        return {"args": args, "status": status, "detail": checks.check_detail(meta.get("detail"))}
    meta = check_meta(meta, limits)
    lo, hi = meta.get("from"), meta.get("upto")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)):
        return meta
    assert isinstance(lo, int) and isinstance(hi, int)
    inside = [p for p in sorted(positions) if lo <= p <= hi and p < se.position]
    meta["from"], meta["upto"] = (positions[inside[0]], positions[inside[-1]]) if inside else (here, here - 1)
    return meta


def _purged_origins(local: list[Entry]) -> set[str]:
    """The origins of the entries purged here (an entry keeps its origin when it is purged)."""
    return {_origin(e) for e in local if e.text == REDACTED}


def _note_sessions(plan: ConversationsPlan, sc: SliceConversation, gone: set[str]) -> None:
    """For each message of ``sc``, the purged entries (``gone``) of its session before it."""
    if not gone:
        return
    session: list[SliceEntry] = []
    for se in sc.entries:
        if se.kind == "recap" and not se.meta.get("variant"):
            session = []
        elif se.kind == "message":
            if session:
                plan.after_purged[se.id] = list(session)
            if se.id in gone:
                session.append(se)


def _covers_purged(se: SliceEntry, plan: ConversationsPlan) -> bool:
    """Whether summary / recap ``se`` spans an entry purged here, or quotes one's words."""
    lo, hi = se.meta.get("from"), se.meta.get("upto")
    for p in plan.purged:
        if isinstance(lo, int) and isinstance(hi, int) and lo <= p.position <= hi:
            return True
        if p.text and p.text.casefold() in se.text.casefold():
            return True
    return False


def _rederived(entry: Entry, here: list[Entry], limits: Limits) -> str:
    """Message ``entry``'s memory text with the earlier messages of its session *here* as context
    (a purged one's words are gone), as a purge here re-writes a later turn's memory."""
    session: list[Entry] = []
    for e in here:
        if releases(e):
            session = []
        elif e.kind == "message":
            session.append(e)
    return context_window(entry, session, limits.max_text_chars)


# -- import: write ---------------------------------------------------------------------------------
def apply_conversations(batch: Batch, plan: ConversationsPlan, scope: str) -> None:
    """Record the planned entries inside the import's transaction (as a live conversation would)."""
    for conv in plan.conversations:
        if conv.open:
            batch.run([OpenConversation(scope, conv.target, conv.visibility)])
        for n, entry in enumerate(conv.entries):
            batch.run([RecordEntry(scope, entry, conv.expected + n)])


def _conversation_store(store: Store) -> ConversationStore:
    if not isinstance(store, ConversationStore):
        raise InvalidInputError(f"the store backend {type(store).__name__} keeps no conversations")
    return store


__all__ = ["ConversationsPlan", "apply_conversations", "export_conversations", "fresh_name", "plan_conversations"]
