"""Scopes in ``/v1/scopes/{scope}/…`` paths, including scopes that contain ``/``.

A scope such as ``team/alpha`` or ``user:alice/work`` is valid everywhere in reverie, but an
ASGI server hands the router a path whose ``%2F`` is already decoded to ``/``: the client's
``/v1/scopes/team%2Falpha/items`` arrives as ``/v1/scopes/team/alpha/items`` and matches no
route (or, worse, a different one). Guessing where the scope ends in a decoded path is
ambiguous — ``/v1/scopes/a/items/summary`` could be the summary of scope ``a/items`` or the
item ``summary`` of scope ``a`` — so instead the scope is **one path segment** and clients
percent-encode it (``quote(scope, safe="")``; ``:`` and ``@`` may stay as they are).

``ScopeSegment`` routes on the raw request path: it keeps the scope segment exactly as the
client sent it (still encoded) and decodes only the rest, and ``scope_param`` decodes the
segment once for the endpoint. The OpenAPI document therefore tells the truth: ``{scope}`` is a
single segment, and a ``/`` inside a scope is sent as ``%2F``. A raw ``/`` ends the segment,
so the request names a different path: almost always no route at all, a 404 whose message says
to encode the scope (only a scope spelled like a route, e.g. ``p/items/<id>``, could match one).
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, unquote

from fastapi import Path
from starlette.types import ASGIApp, Receive, Scope, Send

PREFIX = "/v1/scopes/"
_RAW_PREFIX = PREFIX.encode("ascii")

SCOPE_DOC = (
    "The scope (isolation boundary), as one path segment: percent-encode it, so a '/' inside a scope is "
    "sent as %2F (scope 'team/alpha' → /v1/scopes/team%2Falpha/…), as OpenAPI clients encode path parameters. "
    "':' and '@' may be sent as they are."
)


def scope_url(scope: str) -> str:
    """``/v1/scopes/<scope, percent-encoded>``: the prefix of every route for ``scope``."""
    return PREFIX + quote(scope, safe=":@")


def routing_path(raw_path: bytes, decoded: str) -> str:
    """The path the router should match: the scope segment as sent, the rest decoded.

    ``decoded`` (the server's own decoding) is returned unchanged when the raw path is not a
    ``/v1/scopes/`` path or is not ASCII (a server that gave such a path decoded it its own way).
    """
    if not raw_path.startswith(_RAW_PREFIX):
        return decoded
    try:
        text = raw_path.decode("ascii")
    except UnicodeDecodeError:
        return decoded
    segment, slash, rest = text[len(PREFIX) :].partition("/")
    return PREFIX + segment + slash + unquote(rest)


class ScopeSegment:
    """ASGI middleware: route ``/v1/scopes/{scope}/…`` on the raw path (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if isinstance(raw, bytes) and not scope.get("root_path"):
            scope = {**scope, "path": routing_path(raw, scope["path"])}
        await self.app(scope, receive, send)


def scope_param(scope: Annotated[str, Path(description=SCOPE_DOC, examples=["user:alice", "team/alpha"])]) -> str:
    """The endpoint's scope: the path segment decoded once (``team%2Falpha`` → ``team/alpha``).

    ``Memory`` validates it like any other scope, so a malformed one is ``invalid_scope`` (400).
    """
    return unquote(scope)
