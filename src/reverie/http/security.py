"""The guard in front of every request: Host, Origin, bearer token, body size, headers, 500s.

It is one pure ASGI middleware rather than several Starlette ones because the checks must run
in a fixed order *before* any route reads a byte, and because the body limit has to wrap the
``receive`` channel itself: bytes are counted as they arrive and the request is refused as
soon as the count passes the limit, so an 8 GiB upload costs at most one chunk over 8 MiB.
It is also the last line for unexpected exceptions: they become the ``internal`` error shape
(no traceback text leaves the process; the traceback goes to the log).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reverie.http.errors import error_response

log = logging.getLogger("reverie.http")

#: Hosts a local server always answers to; the bind host is added by ``serve``.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
#: ``same-origin``, not ``no-referrer``: under ``no-referrer`` a browser sends ``Origin: null``
#: on every form POST, even to its own origin, so the Origin check below refused every action
#: on the review page. ``same-origin`` still sends nothing to other sites (and cross-site POSTs
#: still carry ``Origin: null``, which is refused).
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
AUTH_COOKIE = "reverie_auth"


class BodyTooLargeError(HTTPException):
    """Raised from ``receive`` once a body passes the limit; FastAPI re-raises HTTPExceptions
    from body parsing untouched, so it reaches the error handler as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than Limits.max_request_bytes ({limit} bytes)")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and any loopback address (v4 or v6, with or without brackets)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(value: str) -> str | None:
    """The host part of a ``Host`` header value (port and IPv6 brackets removed), or None."""
    try:
        parts = urlsplit("//" + value)
        return parts.hostname  # lower-cased, brackets stripped
    except ValueError:
        return None


def normalise_hosts(hosts: Iterable[str]) -> frozenset[str]:
    return frozenset(h.strip("[]").lower() for h in hosts if h)


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison, so response timing says nothing about how much matched."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode("utf-8", "surrogatepass"))


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _cookie(header: str | None, name: str) -> str | None:
    """One cookie's value, unquoted the way ``set_cookie`` quoted it: a token with a space,
    ``/`` or ``=`` (base64 padding) is sent back by the browser as ``"..."`` with escapes."""
    return cookie_parser(header or "").get(name)


def authorised(headers: dict[str, str], token: str) -> bool:
    """A bearer header, or (for the review page in a browser) the cookie set by ``/login``."""
    auth = headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and token_matches(value.strip(), token):
        return True
    return token_matches(_cookie(headers.get("cookie"), AUTH_COOKIE), token)


class Guard:
    """Host / Origin / token / body-size checks and security headers, in that order."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str], token: str | None, max_body: int) -> None:
        self.app = app
        self.allowed = normalise_hosts(allowed_hosts)
        self.token = token
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_secure(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            status, code, text, extra = refusal
            await error_response(status, code, text, extra)(scope, receive, send_secure)
            return
        try:
            await self.app(scope, self._counting(receive), send_secure)
        except BodyTooLargeError as exc:
            if not started:
                await error_response(413, "limit_exceeded", str(exc.detail))(scope, receive, send_secure)
        except Exception:
            log.exception("unexpected error serving %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await error_response(500, "internal", "internal server error")(scope, receive, send_secure)

    def _refusal(self, scope: Scope) -> tuple[int, str, str, dict[str, str]] | None:
        headers = _headers(scope)
        host = host_name(headers.get("host", ""))
        if host is None or host not in self.allowed:
            return 400, "invalid_host", "the Host header is not one this server answers to", {}
        origin = headers.get("origin")
        if origin is not None and scope["method"] in UNSAFE_METHODS:
            origin_host = urlsplit(origin).hostname if origin != "null" else None
            if origin_host is None or origin_host not in self.allowed:
                return 403, "forbidden_origin", "cross-origin write refused", {}
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return 413, "limit_exceeded", f"request body is larger than {self.max_body} bytes", {}
        if self.token is not None and scope["path"].startswith("/v1") and not authorised(headers, self.token):
            return (
                401,
                "unauthorized",
                "a valid 'Authorization: Bearer <token>' header is required",
                {"WWW-Authenticate": "Bearer"},
            )
        return None

    def _counting(self, receive: Receive) -> Receive:
        seen = 0
        limit = self.max_body

        async def counted() -> Message:
            nonlocal seen
            message: dict[str, Any] = dict(await receive())
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLargeError(limit)
            return message

        return counted
