"""Answers written onto the stdio wire by reverie itself, for requests the SDK never sees or cannot read.

Two shapes: a ``tools/call`` refused for its arguments gets the tool error every handler gives
(``isError`` with ``{"code", "error"}``, as text and as ``structuredContent``), so a client reads
it as it reads any ``invalid_input``; anything else gets a JSON-RPC error. Shared by
``unreadable`` (a number too long to read) and ``repeated`` (a key given twice).
"""

from __future__ import annotations

import json

import mcp.types as types

#: What a JSON-RPC request may be answered with (``None``: its id could not be told).
RequestId = str | int | None


def tool_refusal(request_id: str | int, message: str) -> types.JSONRPCResponse:
    """The result of a ``tools/call`` refused as ``invalid_input`` before any tool ran."""
    payload = {"code": "invalid_input", "error": message}
    result = types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload))], structured_content=payload, is_error=True
    )
    return types.JSONRPCResponse(
        jsonrpc="2.0", id=request_id, result=result.model_dump(by_alias=True, mode="json", exclude_none=True)
    )


def rpc_error(request_id: RequestId, code: int, message: str) -> types.JSONRPCError:
    """A JSON-RPC error answer (``code``: ``types.INVALID_PARAMS``, ``types.INVALID_REQUEST``, ...)."""
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


__all__ = ["RequestId", "rpc_error", "tool_refusal"]
