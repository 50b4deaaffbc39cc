"""One function per conversation / people tool: checked arguments in, one ``Memory`` call, JSON out.

Messages, recaps, quotes and person records are caller-written text, so every result is marked
as stored data (``serialize.marked``). A conversation that does not exist is ``not_found`` for
every tool but ``conversation_add`` (which opens it): reads use ``create=False``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from reverie import InvalidInputError, Memory, NotFoundError
from reverie.conversation import Conversation
from reverie.mcp.serialize import marked

Handler = Callable[[Memory, dict[str, Any]], dict[str, Any]]


def _time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(f"at must be an ISO-8601 time with a UTC offset, got {value!r}") from None


def _existing(mem: Memory, a: dict[str, Any]) -> Conversation:
    """The conversation named, which must exist; the core's advice names a Python call, so say the tool."""
    try:
        return mem.conversation(a["conversation"], scope=a["scope"], create=False)
    except NotFoundError as exc:
        head = exc.message.split(";", 1)[0]
        raise NotFoundError(f"{head}; conversation_add opens one with its first message") from None


def conversation_add(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    at = _time(a.get("at"))
    conv = mem.conversation(
        a["conversation"], scope=a["scope"], open_on_add=True, visibility=a.get("conversation_visibility")
    )
    msg = conv.add(
        a["text"],
        speaker=a.get("speaker"),
        role=a.get("role", "user"),
        at=at,
        meta=a.get("meta"),
        visibility=a.get("visibility"),
    )
    return marked({"message": msg})


def conversation_set_visibility(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    entry = _existing(mem, a).set_visibility(a["message"], a.get("visibility"), reason=a.get("reason", ""))
    return marked({"entry": entry})


def conversation_tool_call(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    entry = _existing(mem, a).tool_call(
        a["name"], args=a.get("args"), status=a.get("status", "ok"), detail=a.get("detail", "")
    )
    return marked({"entry": entry})


def conversation_close(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    closed = _existing(mem, a).close()
    return marked({"recap": closed.recap, "extraction": closed.extraction})


def conversation_history(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    found = _existing(mem, a).history()
    return marked({"count": len(found), "entries": found})


def conversation_search(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    extra = {n: a[n] for n in ("conversation", "k") if a.get(n) is not None}
    hits = mem.archive_search(a["query"], scope=a["scope"], **extra)
    return marked({"count": len(hits), "hits": [{**marked(h), "quote": h.quote} for h in hits]})


def conversation_recap(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return marked({"recap": mem.recap(scope=a["scope"], conversation=a.get("conversation"))})


def people(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    found = mem.people(scope=a["scope"])
    return marked({"count": len(found), "people": found})


def person(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    try:
        found = mem.person(a["name"], scope=a["scope"])
    except NotFoundError as exc:
        head = exc.message.split(";", 1)[0]
        raise NotFoundError(f"{head}; the people tool lists who is known") from None
    return marked({"person": found})


CONVERSATION_HANDLERS: Mapping[str, Handler] = {
    "conversation_add": conversation_add,
    "conversation_set_visibility": conversation_set_visibility,
    "conversation_tool_call": conversation_tool_call,
    "conversation_close": conversation_close,
    "conversation_history": conversation_history,
    "conversation_search": conversation_search,
    "conversation_recap": conversation_recap,
    "people": people,
    "person": person,
}
