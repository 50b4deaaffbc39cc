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

A conversation id (``support/2026-12``) and a person's name may hold a ``/`` too (issue #17:
such an id worked in Python, the CLI and MCP but was a 404 over HTTP). They get the same rule:
the segment after ``conversations/`` or ``people/`` is routed as sent and decoded once by
``conversation_param`` / ``person_param``, so the id round-trips on every face.
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


#: Route families whose next segment is a caller's name, kept encoded like the scope segment.
NAMED_FAMILIES = ("conversations/", "people/")

CONVERSATION_DOC = (
    "The conversation's id, as one path segment: percent-encode it, so a '/' inside it is sent as %2F "
    "(conversation 'support/2026-12' → …/conversations/support%2F2026-12/…)."
)
PERSON_DOC = "A person's name, alias or id, as one path segment: percent-encode it ('/' as %2F)."


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
    return PREFIX + segment + slash + _named_segment_kept(rest)


def _named_segment_kept(rest: str) -> str:
    """The path after the scope, decoded except a conversation id or person name right after its family."""
    for family in NAMED_FAMILIES:
        if rest.startswith(family):
            name, slash, tail = rest[len(family) :].partition("/")
            return family + name + slash + unquote(tail)
    return unquote(rest)


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


def conversation_param(
    conversation: Annotated[str, Path(description=CONVERSATION_DOC, examples=["chat-2026-12-01", "support/2026-12"])],
) -> str:
    """The endpoint's conversation id: the path segment decoded once (``support%2F2026-12`` →
    ``support/2026-12``); ``Memory`` checks it like any other id."""
    return unquote(conversation)


def person_param(name: Annotated[str, Path(description=PERSON_DOC, examples=["Alice"])]) -> str:
    """The endpoint's person name: the path segment decoded once."""
    return unquote(name)
