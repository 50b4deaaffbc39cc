"""``/v1/scopes/{scope}/conversations/…`` and ``…/people``: the conversation wing over HTTP, one ``Memory`` call each.

No rule of its own: ``mem.conversation(...)``, ``mem.archive_search``, ``mem.recap``,
``mem.people`` and ``mem.person`` check every argument, and their ``ReverieError`` becomes the one
error shape (a message too large is 413 ``limit_exceeded``; a time before the previous message or
more than ``Limits.max_clock_skew_seconds`` after the clock's now, or a control character in a
speaker, 400 ``invalid_input``; an unknown conversation 404 ``not_found``), with nothing stored.
Only ``POST …/messages`` opens a conversation; every other route reads one that exists
(``create=False``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, Field

from reverie.http.api import ERRORS, Mem, ScopeName
from reverie.http.jsonbody import StrictJSONRoute
from reverie.http.schemas import IN_CONFIG, Time
from reverie.http.scope_path import conversation_param, person_param
from reverie.limits import CLOCK_SKEW_HELP

router = APIRouter(
    prefix="/v1/scopes/{scope}", responses=ERRORS, tags=["conversations and people"], route_class=StrictJSONRoute
)

ConversationId = Annotated[str, Depends(conversation_param)]
"""The ``{conversation}`` path segment, percent-decoded once (``scope_path``: an id may hold a ``/``)."""
PersonName = Annotated[str, Depends(person_param)]


def _plain(value: Any) -> Any:
    """Results (dataclasses, entries, items, datetimes) as JSON-ready values."""
    if isinstance(value, datetime):
        return value.isoformat()
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


class _In(BaseModel):
    model_config = IN_CONFIG  # no unknown field, no coercion (see reverie.http.schemas)


class MessageIn(_In):
    text: str = Field(description="The message, word for word.")
    speaker: str | None = Field(None, description="Who said it (a plain name; also the memory's author).")
    role: Literal["user", "assistant", "system"] = Field(
        "user", description="Who is speaking (a tool's run is a tool call: `conversations/{id}/tool-calls`)."
    )
    at: Time | None = Field(
        None,
        description="When it was said (ISO 8601 with offset; not before the last message, not later than the "
        f"server's clock plus {CLOCK_SKEW_HELP}).",
    )
    meta: dict[str, Any] | None = Field(None, description="Free JSON data kept with the message.")
    visibility: list[str] | None = Field(
        None,
        description="Only these principals may see the message; leave out for the conversation's audience "
        "(a message may narrow it, never widen it).",
    )
    conversation_visibility: list[str] | None = Field(
        None, description="Who may see the conversation, set when this message opens it; leave out for everyone."
    )


class MessageVisibilityIn(_In):
    visibility: list[str] | None = Field(
        None, description="Only these principals may see the message; null for the conversation's audience."
    )
    reason: str = Field("", description="Why (kept in the log).")


class ToolCallIn(_In):
    name: str = Field(description="The tool that ran.")
    args: dict[str, Any] | None = Field(None, description="Its arguments (bounded in size).")
    status: str = Field("ok", description="How it went: ok or error.")
    detail: str = Field("", description="A short note on the outcome (never the tool's output).")


class EntryOut(BaseModel):
    id: str
    scope: str
    conversation: str
    kind: str
    text: str
    at: str
    position: int
    recorded_at: str | None
    speaker: str | None
    role: str | None
    turn: int | None
    meta: dict[str, Any]
    visibility: list[str] = Field([], description="Who may see it; empty: everyone in the scope.")


class MessageOut(BaseModel):
    id: str
    conversation: str
    position: int
    turn: int
    speaker: str | None
    role: str
    text: str
    at: str
    meta: dict[str, Any]
    item_id: str | None
    visibility: list[str] = Field([], description="Who may see it; empty: everyone in the scope.")


class EntriesOut(BaseModel):
    entries: list[EntryOut]


class HitOut(BaseModel):
    message_id: str
    conversation: str
    speaker: str | None
    role: str | None
    at: str
    text: str
    span: list[int] = Field(description="[start, end) of the matched words in text.")
    quote: str


class HitsOut(BaseModel):
    hits: list[HitOut]


class RecapOut(BaseModel):
    recap: dict[str, Any] | None = Field(
        description="conversation, session, text, at, messages, written (false: computed on a read-only "
        "store, not stored); null if none yet."
    )


class ClosedOut(BaseModel):
    recap: EntryOut | None
    extraction: dict[str, Any] = Field(description="claims, persons, messages_mined, skipped, stopped.")


class PeopleOut(BaseModel):
    people: list[dict[str, Any]] = Field(
        description="Each person: id, name, aliases, attributes, relations (as on people/{name}) and "
        "claim_count (how many current claims are about them; people/{name} lists the claims)."
    )


class PersonOut(BaseModel):
    person: dict[str, Any] = Field(description="id, name, aliases, attributes, relations, claims.")


def _entries(found: list[Any]) -> EntriesOut:
    return EntriesOut(entries=[EntryOut.model_validate(e.to_dict()) for e in found])


@router.post(
    "/conversations/{conversation}/messages", status_code=201, response_model=MessageOut, summary="Add a message"
)
def add_message(scope: ScopeName, conversation: ConversationId, body: MessageIn, mem: Mem) -> MessageOut:
    """Append a message (201), opening the conversation if new; archived and remembered in one transaction."""
    conv = mem.conversation(conversation, scope=scope, open_on_add=True, visibility=body.conversation_visibility)
    msg = conv.add(
        body.text, speaker=body.speaker, role=body.role, at=body.at, meta=body.meta, visibility=body.visibility
    )
    return MessageOut.model_validate(_plain(msg))


@router.post(
    "/conversations/{conversation}/messages/{message}/visibility",
    response_model=EntryOut,
    summary="Set a message's visibility",
)
def set_message_visibility(
    scope: ScopeName,
    conversation: ConversationId,
    message: Annotated[str, Path(description="The message's id.")],
    body: MessageVisibilityIn,
    mem: Mem,
) -> EntryOut:
    """Give a message a new audience (within its conversation's); everything quoting it follows in one
    transaction. The store's owner only: a principal's token gets 403 ``not_permitted``."""
    conv = mem.conversation(conversation, scope=scope, create=False)
    entry = conv.set_visibility(message, body.visibility, reason=body.reason)
    return EntryOut.model_validate(entry.to_dict())


@router.post(
    "/conversations/{conversation}/tool-calls", status_code=201, response_model=EntryOut, summary="Record a tool call"
)
def add_tool_call(scope: ScopeName, conversation: ConversationId, body: ToolCallIn, mem: Mem) -> EntryOut:
    """Record that a tool ran (201): its name, bounded arguments and outcome, never its output."""
    conv = mem.conversation(conversation, scope=scope, create=False)
    entry = conv.tool_call(body.name, args=body.args, status=body.status, detail=body.detail)
    return EntryOut.model_validate(entry.to_dict())


@router.get("/conversations/{conversation}/history", response_model=EntriesOut, summary="Conversation history")
def history(scope: ScopeName, conversation: ConversationId, mem: Mem) -> EntriesOut:
    """The current session as the model should see it, older parts folded into a summary."""
    return _entries(mem.conversation(conversation, scope=scope, create=False).history())


@router.get("/conversations/{conversation}/messages", response_model=EntriesOut, summary="Conversation messages")
def messages(
    scope: ScopeName,
    conversation: ConversationId,
    mem: Mem,
    all: Annotated[bool, Query(description="Also tool calls, summaries and recaps.")] = False,
) -> EntriesOut:
    """Every message of every session, word for word (with ``all``: every entry)."""
    conv = mem.conversation(conversation, scope=scope, create=False)
    return _entries(conv.entries() if all else conv.messages())


@router.get("/conversations/search", response_model=HitsOut, summary="Search the archive")
def search(
    scope: ScopeName,
    mem: Mem,
    q: Annotated[str, Query(description="The words of the quote.")],
    conversation: Annotated[str | None, Query(description="Only this conversation.")] = None,
    k: Annotated[int | None, Query(description="At most this many (default 10).")] = None,
) -> HitsOut:
    """Messages quoting ``q`` word for word, newest first, each with the matched span."""
    found = mem.archive_search(q, scope=scope, conversation=conversation, **({"k": k} if k is not None else {}))
    return HitsOut(hits=[HitOut.model_validate({**_plain(h), "quote": h.quote}) for h in found])


@router.get("/conversations/recap", response_model=RecapOut, summary="The last recap")
def recap(
    scope: ScopeName,
    mem: Mem,
    conversation: Annotated[str | None, Query(description="This conversation's recap.")] = None,
) -> RecapOut:
    """The recap of the last released conversation (or of ``conversation``); null if none yet."""
    return RecapOut(recap=_plain(mem.recap(scope=scope, conversation=conversation)))


@router.post("/conversations/{conversation}/close", response_model=ClosedOut, summary="Close a conversation")
def close(scope: ScopeName, conversation: ConversationId, mem: Mem) -> ClosedOut:
    """Release the session (recap) and mine what people said into claims; closing twice writes nothing twice."""
    closed = mem.conversation(conversation, scope=scope, create=False).close()
    recap_entry = EntryOut.model_validate(closed.recap.to_dict()) if closed.recap else None
    return ClosedOut(recap=recap_entry, extraction=_plain(closed.extraction))


@router.get("/people", response_model=PeopleOut, summary="People")
def people(scope: ScopeName, mem: Mem) -> PeopleOut:
    """Every person of the scope, oldest first: name, aliases, attributes, relations and ``claim_count``."""
    return PeopleOut(people=[_plain(p) for p in mem.people(scope=scope)])


@router.get("/people/{name}", response_model=PersonOut, summary="One person")
def person(scope: ScopeName, name: PersonName, mem: Mem) -> PersonOut:
    """One person by name, alias or id, with relations and the claims about them (404 if unknown)."""
    return PersonOut(person=_plain(mem.person(name, scope=scope)))
