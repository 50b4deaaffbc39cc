"""Conversations a store holds under a principal's name but hides from it, and where they move.

Why (outside probe 4, finding 4, its last gap): since own names (``model.conversation_names``) a
conversation named ``agent:b+old`` always includes ``agent:b``; a store written before may hold
one opened for ``agent:a`` only. Every way ``agent:b`` takes into it is refused as any hidden
name is, yet ``agent:b`` opens a *free* own name, so refused-or-opened still told that this one
exists. No answer to "open this name" can be the same for a hidden name and a free one while the
hidden conversation holds the name, so it gives the name up: it is renamed into the namespace of
the first principal of its audience (``agent:a+agent:b+old``), a name that principal sees as its
own and finds in its list, and ``agent:b+old`` is free for ``agent:b``.

How: a rename rewrites the conversation's name wherever the store keeps it — its state, its
entries, the memories and names made from it (``meta["conversation"]``) and the earlier events of
the log that carry any of them — and appends ``conversation.renamed`` (``from``, ``to``, the
state, a note saying why). The earlier events are rewritten rather than interpreted at read time
(the way a purge rewrites them): every reader of the log, a principal's filtered view included,
then judges an old event by the conversation it really belongs to, and a rebuild from the log
gives the renamed state without replaying the rename (its projection changes nothing). A
store renames once, when an older file is opened (``store.sqlite.schema``); an import renames a
slice's or an export's such conversation the same way as it lands (``renamed_name``).

Pure: no I/O. The stores apply ``plan`` / ``rewrite_payload`` in their own transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from reverie.model.conversation import ConversationState
from reverie.model.conversation_names import SEPARATOR, named_for
from reverie.model.events import CONVERSATION_RENAMED, Event

#: The longest conversation name (``conversation.checks.MAX_NAME_CHARS``: a renamed conversation
#: must stay one its audience can resume by name).
MAX_NAME_CHARS = 200
#: Fixed namespace of the rename events' ids: the same conversation renamed on two copies of a
#: store (or twice, after a crash before commit) gets the same event id.
_ID_SPACE = uuid.UUID("7a3e2f0c-5d1b-4c8e-9a6f-0b2d4e6f8a10")


def is_legacy(state: ConversationState) -> bool:
    """Whether ``state`` is a conversation under a principal's name hidden from that principal."""
    principal = named_for(state.id)
    return principal is not None and bool(state.visibility) and principal not in state.visibility


def is_legacy_name(name: str, visibility: Collection[str]) -> bool:
    """``is_legacy`` for a name and an audience (an import's, before anything is written)."""
    principal = named_for(name)
    return principal is not None and bool(visibility) and principal not in visibility


def renamed_name(name: str, visibility: Iterable[str], taken: Collection[str] = ()) -> str:
    """Where a hidden conversation under another principal's name moves: under the name of the
    first principal of its audience, ``~2``, ``~3``… when that is ``taken``, within ``MAX_NAME_CHARS``.

    Deterministic (sorted audience, the first free suffix), so two copies of a store agree. The
    same place a principal of that audience importing it would give it (``own_name``), and the
    copies an import makes of a taken name are ``~N`` too.
    """
    owner = sorted(visibility)[0]
    n = 1
    while True:
        tail = "" if n == 1 else f"~{n}"
        room = MAX_NAME_CHARS - len(owner) - len(SEPARATOR) - len(tail)
        candidate = f"{owner}{SEPARATOR}{name[:room]}{tail}"
        if candidate not in taken:
            return candidate
        n += 1


@dataclass(frozen=True, slots=True)
class Rename:
    """One conversation's move: ``old`` → ``new`` in ``scope`` and the state it has after."""

    scope: str
    old: str
    new: str
    state: ConversationState

    def event(self, at: datetime) -> Event:
        """The ``conversation.renamed`` event recording it (its id derived from scope and names)."""
        principal = named_for(self.old)
        reason = (
            f"{self.old!r} was opened under {principal}'s name for {list(self.state.visibility)} only, before a "
            f"conversation under a principal's name had to include it; renamed to {self.new!r} so that the name is "
            f"{principal}'s own again. Its audience finds it under the new name; the earlier events now name it so."
        )
        payload = {"from": self.old, "to": self.new, "conversation": self.state.to_dict(), "reason": reason}
        key = f"{self.scope}\x00{self.old}\x00{self.new}"
        event_id = str(uuid.uuid5(_ID_SPACE, key))  # no command caused it: it is its own cause
        return Event(
            id=event_id,
            type=CONVERSATION_RENAMED,
            scope=self.scope,
            at=at,
            cause=event_id,
            payload=payload,
        )


def plan(states: Iterable[ConversationState]) -> list[Rename]:
    """The renames a scope's conversations ``states`` need, in name order (none for a current store)."""
    every = sorted(states, key=lambda s: (s.scope, s.id))
    taken = {(s.scope, s.id) for s in every}
    out: list[Rename] = []
    for s in every:
        if not is_legacy(s):
            continue
        names = {name for scope, name in taken if scope == s.scope}
        new = renamed_name(s.id, s.visibility, names)
        taken.add((s.scope, new))
        out.append(Rename(s.scope, s.id, new, replace(s, id=new)))
    return out


def renamed_event(event: Event, renames: Iterable[Rename]) -> Event:
    """``event`` with the conversations ``renames`` moves named by their new names (a copy of a
    log that was never renamed: ``store.migrate``). Itself when it names none of them."""
    payload = event.payload
    for r in renames:
        if r.scope == event.scope:
            payload = rewrite_payload(payload, r.old, r.new)
    return event if payload is event.payload else replace(event, payload=payload)


def rewrite_payload(value: Any, old: str, new: str) -> Any:
    """``value`` (an event's payload, an item's ``meta``) with conversation ``old`` named ``new``.

    What names a conversation: a ``"conversation"`` key holding the name (an entry, an item's
    ``meta``, a purge), a state holding it as ``id`` (``"conversation"``, ``"state"``,
    ``"released_state"``), a provenance from it (``{"origin": "conversation", "ref": name}``).
    Nothing else is touched: a message that *says* the name is words.
    Returns ``value`` itself when nothing changed (the caller skips the write).
    """
    if isinstance(value, list):
        items = [rewrite_payload(v, old, new) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if not isinstance(value, Mapping):
        return value
    out: dict[str, Any] = {}
    changed = False
    for key, v in value.items():
        if key == "conversation" and v == old:
            w: Any = new
        elif key in _STATE_KEYS and isinstance(v, Mapping) and _is_state(v, old):
            w = {**v, "id": new}
        elif key == "ref" and v == old and value.get("origin") == "conversation":
            w = new
        else:
            w = rewrite_payload(v, old, new)
        changed = changed or w is not v
        out[key] = w
    return out if changed else value


_STATE_KEYS = frozenset({"conversation", "state", "released_state"})


def _is_state(d: Mapping[str, Any], name: str) -> bool:
    return d.get("id") == name and "opened_at" in d and "session" in d


__all__ = [
    "CONVERSATION_RENAMED",
    "Rename",
    "is_legacy",
    "is_legacy_name",
    "plan",
    "renamed_event",
    "renamed_name",
    "rewrite_payload",
]
