"""The MCP streamable-HTTP face refusing a repeated JSON key, as the stdio one does (``repeated``).

The SDK reads a POSTed body with pydantic, which keeps the last of two equal keys. This ASGI
wrapper around the SDK's app reads the body first, as raw text, and answers a request that repeats
a key itself: a ``tools/call`` whose arguments repeat one with the tool error ``invalid_input``
(200, JSON: the same answer as over stdio), any other request with a JSON-RPC error and 400, as
the SDK answers a body it cannot read (a notification too: over HTTP it has a response to carry
the error). Everything else reaches the SDK's app with its body unchanged.
"""

from __future__ import annotations

import mcp.types as types
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reverie.mcp.repeated import refusal
from reverie.mcp.replies import rpc_error


class RefuseRepeatedKeys:
    """ASGI middleware: a POST body with a repeated key is answered here; the rest is passed on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)  # lifespan, GET (the event stream), DELETE
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before sending its request: no one to answer
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        found = refusal(body.decode("utf-8", errors="replace"))
        if found is None:
            await self.app(scope, _replay(body, receive), send)
            return
        # A notification or response refused too: over HTTP it has a response to carry the error.
        reply = found.reply or rpc_error(None, types.INVALID_REQUEST, found.message)
        status = 400 if isinstance(reply, types.JSONRPCError) else 200
        headers = [(b"content-type", b"application/json")]
        headers += [(k, v) for k, v in scope["headers"] if k == b"mcp-session-id"]  # as the SDK echoes it
        await send({"type": "http.response.start", "status": status, "headers": headers})
        payload = reply.model_dump_json(by_alias=True, exclude_unset=True).encode()
        await send({"type": "http.response.body", "body": payload})


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` giving the body already read, then the client's own messages (a disconnect)."""
    given = False

    async def again() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


__all__ = ["RefuseRepeatedKeys"]
