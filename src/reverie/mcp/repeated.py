"""A key repeated in one JSON object of a stdio request line, found before the MCP SDK reads it.

Every other face refuses ``{"a": 1, "a": 2}`` (``reverie.model.validate.unique_keys``): JSON
readers disagree on which of two equal keys counts, so a proxy or a log that read the first saw
another request than the one run. The SDK parses each stdio line itself and keeps the last, so
``remember`` with ``"text"`` twice stored one of them silently. ``refusal`` reads the raw line
with the repeats kept and applies that same rule to every object in it, so the refusal is worded
as on every face and names where the key sits: ``meta.tags.1 has the key 'k' twice…``.

A number no float holds (``1e400``, ``1e-400``) is refused here too, by the rule every JSON face
applies (``reverie.model.json_numbers``): the SDK would read it as infinity or 0.0 before any
handler could tell what was sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp.types as types

from reverie.errors import InvalidInputError
from reverie.mcp.replies import rpc_error, tool_refusal
from reverie.model.json_numbers import held_float
from reverie.model.validate import unique_keys


class _Pairs(list[tuple[str, Any]]):
    """One JSON object as written: its ``(key, value)`` pairs in order, a repeated key kept."""


@dataclass(frozen=True)
class Refusal:
    """A line refused for a repeated key: why, and the answer to write (None: nothing asked)."""

    message: str
    reply: types.JSONRPCResponse | types.JSONRPCError | None


def _number(text: str) -> int | str:
    """An integer literal as ``int``; one too long to convert kept as text (the SDK refuses that line)."""
    try:
        return int(text)
    except ValueError:
        return text


class _Unheld(str):
    """A numeral no float holds, kept as written so the walk can name where it sits."""


def _float(text: str) -> float | str:
    try:
        return held_float(text)
    except InvalidInputError:
        return _Unheld(text)


def _first_repeat(value: Any, root: str) -> tuple[str, str] | None:
    """Where the first object inside ``value`` (outermost first, then in document order) repeats
    a key, or a number no float holds sits, and the shared rule's message; paths below ``root``
    are named from it (``meta.tags.1``).

    Iterative: a line nested as deep as the decoder reads must not overflow Python's stack here.
    """
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Unheld):
            try:
                held_float(node, path or root)
            except InvalidInputError as exc:
                return path, str(exc)
        if isinstance(node, _Pairs):
            try:
                unique_keys(path or root)(node)
            except InvalidInputError as exc:
                return path, str(exc)
            children = [(str(k), v) for k, v in node]
        elif isinstance(node, list):
            children = [(str(i), v) for i, v in enumerate(node)]
        else:
            continue
        stack.extend((v, f"{path}.{step}" if path else step) for step, v in reversed(children))
    return None


def refusal(line: str) -> Refusal | None:
    """The refusal of a line with a repeated key or a number no float holds, or None (neither, or
    not JSON: the SDK's to refuse).

    A ``tools/call`` whose ``arguments`` repeat a key gets the tool error ``invalid_input`` (as a
    bad argument does); a repeat elsewhere a JSON-RPC error, ``invalid params`` under ``params``,
    ``invalid request`` at the top (with a null id when ``id`` itself is the repeated key: which
    one was meant cannot be told). A notification or response gets no reply: nothing was asked.
    """
    try:
        doc = json.loads(line, object_pairs_hook=_Pairs, parse_int=_number, parse_float=_float)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, _Pairs):
        return None  # an array or a scalar: the SDK refuses it as it stands
    top = dict(doc)  # last wins, as the SDK read it: only to address the answer
    ids = [v for k, v in doc if k == "id"]
    request_id = ids[0] if len(ids) == 1 and isinstance(ids[0], str | int) and not isinstance(ids[0], bool) else None
    params = top.get("params")
    arguments = dict(params).get("arguments") if isinstance(params, _Pairs) else None
    if top.get("method") == "tools/call" and request_id is not None:
        found = _first_repeat(arguments, "arguments")
        if found is not None:
            return Refusal(found[1], tool_refusal(request_id, found[1]))
    found = _first_repeat(doc, "the request")
    if found is None:
        return None
    path, message = found
    if not isinstance(top.get("method"), str) or not ids:
        return Refusal(message, None)
    code = types.INVALID_PARAMS if path.startswith("params") else types.INVALID_REQUEST
    return Refusal(message, rpc_error(request_id, code, message))


__all__ = ["Refusal", "refusal"]
