"""The reducer's rules for conversation commands: validate against the conversation's state, emit events.

Split from ``reducer.py`` (which registers these handlers) so the belief-store rules stay one
module's job. Like the rest of the reducer: every check runs before any event is built, so a
refused command emits nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from reverie.errors import InvalidInputError, NotFoundError, VersionConflictError
from reverie.model import events as ev
from reverie.model.conversation import (
    EVENT_OF_KIND,
    OWNER_ONLY,
    ConversationState,
    OpenConversation,
    PurgeMessage,
    RecordEntry,
    SetMessageVisibility,
)
from reverie.model.conversation_names import check_named_audience
from reverie.model.visibility import covers

if TYPE_CHECKING:
    from reverie.model.reduce_kit import Context, StateView


def _event(ctx: Context, type_: str, scope: str, payload: dict[str, Any]) -> ev.Event:
    return ev.Event(id=ctx.new_id(), type=type_, scope=scope, at=ctx.now, cause=ctx.cause, payload=payload)


def require_conversation(view: StateView, scope: str, conversation: str) -> ConversationState:
    state = view.conversation_state(scope, conversation)
    if state is None:  # the same answer for another scope's conversation: no existence oracle
        raise NotFoundError(
            f"no conversation {conversation!r} in scope {scope!r}; open it with mem.conversation(id, scope=...)"
        )
    return state


def _open(cmd: OpenConversation, view: StateView, ctx: Context) -> list[ev.Event]:
    if view.conversation_state(cmd.scope, cmd.conversation) is not None:
        return []  # resumed: nothing to record
    check_named_audience(cmd.conversation, cmd.visibility)
    state = ConversationState(
        scope=cmd.scope, id=cmd.conversation, opened_at=ctx.now, active_at=ctx.now, visibility=cmd.visibility
    )
    return [_event(ctx, ev.CONVERSATION_OPENED, cmd.scope, {"conversation": state.to_dict()})]


def check_read(state: ConversationState, position: int | None, revision: int | None) -> None:
    """The conversation is still as the caller read it (``VersionConflictError`` if not).

    ``position`` moves when an entry is appended, ``revision`` when one already written is purged
    or given a new audience; a write built from a read of the entries (a memory quoting the
    previous turns, the contexts a purge re-writes) must not land on a conversation that moved
    either way since. None: that part is not checked.
    """
    if position is not None and state.position != position:
        raise VersionConflictError(
            f"conversation {state.id!r} moved on (at position {state.position}, not "
            f"{position}): another writer added to it; read it again and retry"
        )
    if revision is not None and state.revision != revision:
        raise VersionConflictError(
            f"conversation {state.id!r} changed (revision {state.revision}, not {revision}): another "
            "writer purged a message or changed its audience; read it again and retry"
        )


def _record(cmd: RecordEntry, view: StateView, ctx: Context) -> list[ev.Event]:
    entry = cmd.entry
    state = require_conversation(view, cmd.scope, entry.conversation)
    check_read(state, cmd.expected_position, cmd.expected_revision)
    if entry.kind == "message" and state.last_at is not None and entry.at < state.last_at:
        raise InvalidInputError(
            f"message time {entry.at.isoformat()} is before the previous message of conversation "
            f"{entry.conversation!r} ({state.last_at.isoformat()}); messages are appended in time order"
        )
    check_within(state, entry.visibility)
    turn = state.turn + 1 if entry.kind == "message" else None
    numbered = replace(entry, position=state.position + 1, recorded_at=ctx.now, turn=turn)
    after = state.after(numbered, ctx.now)
    payload = {"entry": numbered.to_dict(), "conversation": after.to_dict()}
    return [_event(ctx, EVENT_OF_KIND[entry.kind], cmd.scope, payload)]


def _purge(cmd: PurgeMessage, view: StateView, ctx: Context) -> list[ev.Event]:
    state = require_conversation(view, cmd.scope, cmd.conversation)
    entry = view.conversation_entry(cmd.scope, cmd.id)
    if entry is None or entry.conversation != cmd.conversation or entry.kind != "message":
        raise NotFoundError(f"no message {cmd.id} in conversation {cmd.conversation!r} of scope {cmd.scope!r}")
    check_read(state, cmd.expected_position, cmd.expected_revision)
    payload: dict[str, Any] = {
        "conversation": cmd.conversation,
        "id": cmd.id,
        "covering": list(cmd.covering),
        "reason": cmd.reason,
    }
    # The message's time goes with it: the next one need only follow the latest message left.
    # Without this, a message dated 2099 (a wrong clock, or a store from before the bound on
    # future times) kept its conversation refusing every real time even after it was purged
    # (issue #15). The new state travels in the event (``state``), so a replay agrees; it also
    # moves the revision on, so a write built from a read before the purge is refused.
    last_at = max(
        (
            e.at
            for e in view.conversation_entries(cmd.scope, cmd.conversation, kinds=("message",))
            if e.id != cmd.id and not e.meta.get("purged")
        ),
        default=None,
    )
    payload["state"] = replace(state, last_at=last_at, revision=state.revision + 1).to_dict()
    return [_event(ctx, ev.MESSAGE_PURGED, cmd.scope, payload)]


def check_within(state: ConversationState, visibility: tuple[str, ...]) -> None:
    """An entry's audience may narrow its conversation's, never widen it (``InvalidInputError``)."""
    if visibility == OWNER_ONLY or covers(visibility, state.visibility):
        return
    shown = list(visibility) if visibility else "everyone"
    raise InvalidInputError(
        f"visibility {shown} would widen the audience of conversation {state.id!r} "
        f"({list(state.visibility)}); a message may only narrow it: name principals among "
        f"{list(state.visibility)}, or leave visibility out for the conversation's audience"
    )


def _set_visibility(cmd: SetMessageVisibility, view: StateView, ctx: Context) -> list[ev.Event]:
    state = require_conversation(view, cmd.scope, cmd.conversation)
    entry = view.conversation_entry(cmd.scope, cmd.id)
    if entry is None or entry.conversation != cmd.conversation or entry.kind != "message":
        raise NotFoundError(f"no message {cmd.id} in conversation {cmd.conversation!r} of scope {cmd.scope!r}")
    check_read(state, cmd.expected_position, cmd.expected_revision)
    audience = cmd.visibility or state.visibility
    check_within(state, audience)
    pairs: list[list[Any]] = [[cmd.id, list(audience)]]
    for other, visibility in cmd.entries:
        found = view.conversation_entry(cmd.scope, other)
        if found is None or found.conversation != cmd.conversation or found.kind not in ("summary", "recap"):
            raise NotFoundError(f"no summary or recap {other} in conversation {cmd.conversation!r}")
        check_within(state, visibility)
        pairs.append([other, list(visibility)])
    payload = {
        "conversation": cmd.conversation,
        "id": cmd.id,
        "visibility": list(audience),
        "entries": pairs,
        "reason": cmd.reason,
        # The revision moves on: a memory built from a read before the new audience is refused.
        "state": replace(state, revision=state.revision + 1).to_dict(),
    }
    return [_event(ctx, ev.CONVERSATION_VISIBILITY_SET, cmd.scope, payload)]


HANDLERS: dict[type, Callable[[Any, StateView, Context], list[ev.Event]]] = {
    OpenConversation: _open,
    RecordEntry: _record,
    PurgeMessage: _purge,
    SetMessageVisibility: _set_visibility,
}
