"""The ``Idempotency-Key`` request header: a retried write is applied once, its answer replayed.

Every write route under ``/v1/scopes/{scope}/`` accepts the header (the three POSTs that only
read — recall, context, slice export — ignore it). The first request with a key runs as usual;
its store transaction writes the key with its events (``reverie.store.idempotency``), and its
2xx response (status and body) is recorded before it is sent, so a client that got an answer
can count on its replay. A later request with the same key in the same scope:

- the same request (method, path and query, body as canonical JSON, and the caller's principal)
  → the recorded response, with ``Idempotent-Replayed: true``; nothing is written;
- another request → 409 ``idempotency_key_reused``; nothing is written. (The IETF draft on this
  header suggests 422; this API promises no 422 anywhere — bad input is 400 whoever finds it,
  ``tests/security/test_http_contract.py`` — and a reused key is a conflict with stored state.)
- while the first is still running → it waits for the answer a few seconds, then 409
  ``idempotency_in_progress`` with ``Retry-After``; a first request that wrote but never recorded
  its answer (its server stopped) or whose answer a purge erased → 409 ``idempotency_unavailable``.

A refused first request (4xx, 5xx) records nothing: the key stays free for a corrected retry,
unless its write had committed (then the key is held, as the write is done).

Why a pure ASGI middleware and not a dependency of each route: it must read the body before the
route does (to fingerprint it), hold the response until it is recorded, and answer a replay
without running the route at all. It sits inside ``Guard``, so the token, Host, Origin and
body-size checks come first.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from datetime import timedelta
from typing import Any
from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reverie.errors import (
    IdempotencyInProgressError,
    IdempotencyKeyReusedError,
    IdempotencyUnavailableError,
    InvalidIdempotencyKeyError,
    ReverieError,
)
from reverie.http import jsonbody
from reverie.http.canonical import canonical_json
from reverie.http.errors import error_response, status_for
from reverie.http.messages import for_http
from reverie.http.scope_path import PREFIX
from reverie.memory import Memory
from reverie.memory.idempotency import KEY_MAX_CHARS, Recorded

log = logging.getLogger("reverie.http")

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
_HEADER_RAW = HEADER.lower().encode("ascii")
_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: POST routes that only read: nothing to apply twice, so the header is ignored on them.
READ_ROUTES = frozenset({"recall", "context", "slices/export"})
#: How long a retry waits for the first request's answer before saying it is still in progress.
WAIT_POLLS, WAIT_STEP = 100, 0.05
#: A claim without an answer this much older than now (by the memory's clock) is not in flight:
#: its server stopped between the commit and recording the answer.
IN_FLIGHT = timedelta(seconds=60)

DOC = (
    "Optional. A key naming this write (e.g. a UUID; 1-255 printable ASCII characters, no spaces), "
    "so a retry is applied once: a retry with the same key and the same request gets the first "
    "response again, with 'Idempotent-Replayed: true', and writes nothing; the same key with another "
    "request is refused (409 idempotency_key_reused). Keys are kept per scope for 24 h by default."
)


class Idempotent:
    """ASGI middleware: the ``Idempotency-Key`` header on ``/v1`` writes (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, window: timedelta) -> None:
        self.app = app
        self.window = window

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = _write_route(scope)
        given = [v for k, v in scope.get("headers", []) if k.lower() == _HEADER_RAW] if route else []
        if route is None or not given:
            await self.app(scope, receive, send)
            return
        mem = _memory(scope)
        if getattr(mem.store, "read_only", False):
            await self.app(scope, receive, send)  # no write can happen: the route refuses it
            return
        body = await _read_body(receive)
        try:
            key = parse_key(given)
            request = fingerprint(scope, mem.principal, body)
            earlier = earlier_fingerprint(scope, mem.principal, body)
            name = unquote(route)
            response = await self._answer(mem, name, key, (request, earlier), scope, _replaying(body, receive))
        except ReverieError as exc:
            response = _error(exc, scope, unquote(route))
        await response(scope, _replaying(b"", receive), send)

    async def _answer(
        self, mem: Memory, scope_name: str, key: str, requests: tuple[str, str], scope: Scope, receive: Receive
    ) -> Response:
        """A replay (or a refusal) if the key is known, else the route's own answer, recorded.

        ``requests`` is the request's fingerprint, then the one an earlier version recorded for it.
        """
        row = await run_in_threadpool(mem.idempotency.recorded, key, scope=scope_name)
        if row is not None:
            return await _replay(mem, row, requests, scope_name)
        with mem.idempotency.claim(key, scope=scope_name, request=requests[0], window=self.window) as pending:
            status, headers, content = await _captured(self.app, scope, receive)
        if pending.taken:  # another request took the key between our lookup and our write
            row = await run_in_threadpool(mem.idempotency.recorded, key, scope=scope_name)
            if row is not None:
                return await _replay(mem, row, requests, scope_name)
        if 200 <= status < 300:
            try:
                text = content.decode("utf-8")
                await run_in_threadpool(mem.idempotency.record, pending.claim, status=status, body=text)
            except (ReverieError, UnicodeDecodeError):
                # The write is done and this answer is true; a retry is told the answer is lost.
                log.exception("could not record the response of idempotency key %r", key)
        return Response(content, status_code=status, headers=headers)


async def _replay(mem: Memory, row: Recorded, requests: tuple[str, str], scope_name: str) -> Response:
    """The recorded answer to ``row``'s request, waiting a little for one still in flight."""
    for _ in range(WAIT_POLLS):
        if row.erased:
            raise IdempotencyUnavailableError(
                f"the write of idempotency key {row.key!r} was done once; a purge in scope {scope_name!r} has since "
                "erased its recorded response. It is not repeated: read the scope to see its effect, and use a new "
                "key for a new write"
            )
        if row.request not in requests:
            raise IdempotencyKeyReusedError(
                f"idempotency key {row.key!r} was used in scope {scope_name!r} for another request (another route, "
                "body or caller); nothing was written. Send a new key for a new request"
            )
        if row.status is not None and row.body is not None:
            replay = {"content-type": "application/json", REPLAYED.lower(): "true"}
            return Response(row.body.encode("utf-8"), status_code=row.status, headers=replay)
        if mem.clock.now() - row.at >= IN_FLIGHT:
            raise IdempotencyUnavailableError(
                f"the write of idempotency key {row.key!r} committed at {row.at.isoformat()} but its response was "
                "never recorded (its server stopped in between). It is not repeated: read the scope to see its effect"
            )
        await asyncio.sleep(WAIT_STEP)
        again = await run_in_threadpool(mem.idempotency.recorded, row.key, scope=scope_name)
        if again is None:
            break  # expired meanwhile
        row = again
    raise IdempotencyInProgressError(
        f"the first request with idempotency key {row.key!r} is still running; this one wrote nothing. "
        "Retry in a moment with the same key"
    )


def parse_key(values: list[bytes]) -> str:
    """The one header's key: an RFC 8941 string (``"..."``) or a bare token, checked."""
    if len(values) != 1:
        raise InvalidIdempotencyKeyError(f"send one {HEADER} header, not {len(values)}")
    text = values[0].decode("latin-1").strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    if not text:
        raise InvalidIdempotencyKeyError(f"the {HEADER} header is empty; send a key such as a UUID")
    if len(text) > KEY_MAX_CHARS:
        raise InvalidIdempotencyKeyError(
            f"the {HEADER} header has {len(text)} characters; at most {KEY_MAX_CHARS} are kept (a UUID will do)"
        )
    bad = next((c for c in text if not "!" <= c <= "~"), None)
    if bad is not None:
        raise InvalidIdempotencyKeyError(
            f"the {HEADER} header contains {bad!r}: use printable ASCII without spaces, e.g. a UUID"
        )
    return text


def fingerprint(scope: Scope, principal: str | None, body: bytes) -> str:
    """SHA-256 of what makes two requests the same: method, path and query, caller, body.

    A JSON body is compared as canonical JSON (``canonical``: key order, spacing and the spelling
    of a number — ``1`` or ``1.0`` — do not matter); anything else byte for byte. The principal
    is included so one caller's recorded answer (which may show what only it may see) is never
    replayed to another using the same key.
    """
    try:
        payload = b"json2:" + canonical_json(body).encode("utf-8")
    except ValueError:
        payload = b"raw:" + body
    return _digest(scope, principal, payload)


def earlier_fingerprint(scope: Scope, principal: str | None, body: bytes) -> str:
    """The fingerprint this server version's predecessor recorded (floats and ints written apart).

    Why kept: a key recorded just before an upgrade must still replay its retry within the key's
    window, not be refused as reused (the client would then send a new key and write twice). The
    two forms hash different prefixes, so the older one only ever matches a row it wrote.
    """
    try:
        # Read as the route reads it (``jsonbody``): a body repeating a key is compared byte for
        # byte, so it never matches the request its last-key-wins reading would equal.
        canonical = json.dumps(jsonbody.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        payload = b"json:" + canonical.encode("utf-8")
    except (ValueError, RecursionError):
        payload = b"raw:" + body
    return _digest(scope, principal, payload)


def _digest(scope: Scope, principal: str | None, payload: bytes) -> str:
    head = "\n".join(
        (scope["method"], scope["path"], scope.get("query_string", b"").decode("latin-1"), principal or "")
    )
    return hashlib.sha256(head.encode("utf-8", "surrogatepass") + b"\n" + payload).hexdigest()


def _write_route(scope: Scope) -> str | None:
    """The raw scope segment of a ``/v1/scopes/{scope}/…`` write the header applies to, else None."""
    if scope["type"] != "http" or scope["method"] not in _METHODS or not scope["path"].startswith(PREFIX):
        return None
    segment, _, rest = scope["path"][len(PREFIX) :].partition("/")
    return segment if segment and rest and rest not in READ_ROUTES else None


def _memory(scope: Scope) -> Memory:
    from reverie.http.api import memory  # the route's own choice of Memory (a principal's view)

    return memory(Request(scope))


def _error(exc: ReverieError, scope: Scope, scope_name: str) -> Response:
    text = for_http(exc.code, exc.message, scope["path"], scope_name)
    retry = {"Retry-After": "1"} if isinstance(exc, IdempotencyInProgressError) else None
    return error_response(status_for(exc), exc.code, text, retry)


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()  # nobody to answer (``Guard`` lets it pass); nothing was run
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the already-read body over once, then the real channel's messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _captured(app: ASGIApp, scope: Scope, receive: Receive) -> tuple[int, dict[str, str], bytes]:
    """Run ``app`` and keep its response (status, headers, body) instead of sending it."""
    status = 500
    headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def keep(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
            for k, v in message.get("headers", []):
                name = k.decode("latin-1").lower()
                if name != "content-length":
                    headers[name] = v.decode("latin-1")
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, keep)
    return status, headers, b"".join(chunks)


def document(doc: dict[str, Any]) -> None:
    """Add the header and the replay header to every write operation of ``doc`` (its refusals are
    among the documented 400 and 409)."""
    header = {
        "name": HEADER,
        "in": "header",
        "required": False,
        "description": DOC,
        "schema": {"type": "string", "minLength": 1, "maxLength": KEY_MAX_CHARS, "pattern": "^[!-~]+$"},
    }
    for path, methods in doc.get("paths", {}).items():
        if not path.startswith("/v1/scopes/{scope}/") or path[len("/v1/scopes/{scope}/") :] in READ_ROUTES:
            continue
        for method, operation in methods.items():
            if method.upper() not in _METHODS:
                continue
            operation.setdefault("parameters", []).append(header)
            responses = operation.setdefault("responses", {})
            for status, answer in responses.items():
                if str(status).startswith("2"):
                    answer.setdefault("headers", {})[REPLAYED] = {
                        "description": "'true' when this is the recorded response of an earlier request "
                        "with the same Idempotency-Key (nothing was written this time).",
                        "schema": {"type": "string", "enum": ["true"]},
                    }
