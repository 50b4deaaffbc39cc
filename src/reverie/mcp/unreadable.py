"""An answer, over stdio, to a request the MCP SDK could not read — instead of silence.

The SDK's stdio transport parses each line and, when it cannot, passes the exception on and
the server drops it: the client waits for a reply that never comes. The case that matters here
is a number with more digits than Python converts (``sys.get_int_max_str_digits()``, 4300):
``{"importance": 1000…0}`` or a ``value`` of ``10**5000`` — refused with a clear error by every
other face (Python, CLI, HTTP), but over stdio a hang. The HTTP transport already answers such
a body with a JSON-RPC parse error.

``Answering`` wraps the read stream the transport hands the server: a line it could not read,
that still parses as JSON once long integers are kept as digits (``json``'s ``parse_int`` hook
converts nothing), and that names a request id, gets an answer written straight back — a tool
error of reverie's own shape (code ``invalid_input``, naming the argument) for ``tools/call``,
a JSON-RPC ``invalid params`` error for anything else. Lines with no id stay unanswered (a
notification wants no reply, and an unreadable id cannot be answered).
"""

from __future__ import annotations

import json
import sys
from types import TracebackType
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage

from reverie.mcp.replies import rpc_error, tool_refusal

#: Digits past which Python refuses ``int(str)`` (0: no limit).
_MAX_DIGITS = sys.get_int_max_str_digits() or 10**9


class _Digits:
    """An integer literal too long to convert, kept as its digit count."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))


def _int(text: str) -> int | _Digits:
    return _Digits(text) if len(text.lstrip("-")) > _MAX_DIGITS else int(text)


def _long_number(value: Any, path: str) -> tuple[str, int] | None:
    """The path and digit count of the first too-long integer inside ``value``."""
    if isinstance(value, _Digits):
        return path, value.digits
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        found = _long_number(inner, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def reply_to(line: str) -> types.JSONRPCResponse | types.JSONRPCError | None:
    """The answer to a request line the SDK could not read, or None if it cannot be answered."""
    try:
        doc = json.loads(line, parse_int=_int)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("method"), str):
        return None  # a response or garbage: nothing asked, so nothing to answer
    request_id = doc.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    params = doc.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    found = _long_number(arguments, "") or _long_number(params, "params")  # a tool's argument by its own name
    if found is None:
        message = "the request could not be read as a JSON-RPC message"
    else:
        message = (
            f"{found[0]} is an integer of {found[1]} digits, longer than a number can be read ({_MAX_DIGITS} "
            "digits); no score, count or value is that long: send a number in range, or a value as a string"
        )
    if doc.get("method") == "tools/call" and found is not None:
        return tool_refusal(request_id, message)
    return rpc_error(request_id, types.INVALID_PARAMS, message)


class Answering:
    """The transport's read stream, answering what it could not read (``reply_to``) on ``write``."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> Any:
        return getattr(self._read, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item: SessionMessage | Exception = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            reply = reply_to(_line_of(item))
            if reply is None:
                return item  # the server logs and drops it, as before
            await self._write.send(SessionMessage(message=reply))

    def __aiter__(self) -> Answering:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._read.aclose()

    async def __aenter__(self) -> Answering:
        await self._read.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        result: bool | None = await self._read.__aexit__(exc_type, exc, tb)
        return result


def _line_of(exc: Exception) -> str:
    """The raw line a pydantic ``ValidationError`` was raised on ('' if it does not carry it)."""
    errors = getattr(exc, "errors", None)
    try:
        found = errors() if callable(errors) else []
    except Exception:  # not pydantic's: nothing to read
        return ""
    for err in found:
        if isinstance(err, dict) and isinstance(err.get("input"), str):
            return str(err["input"])
    return ""


__all__ = ["Answering", "reply_to"]
