"""The guard in front of every request: Host, Origin, bearer token, body size, headers, 500s.

Same-origin means scheme, host *and* port (RFC 6454): a check on host names alone let a page on
``http://localhost:3000`` — any other program on the machine — write here. A state-changing
request is refused when its ``Origin`` is not this server's own (or one configured for a proxy
in front), when the browser's ``Sec-Fetch-Site`` says it came from another origin, and, on
``/v1``, when it carries a body that is not JSON: ``text/plain``, form and multipart bodies are
what a page can send cross-origin without a CORS preflight, and this server grants none.

The CSRF token of the review page and the sign-in cookie are HMACs under a server secret
(random per process unless configured): a page on another port can set a cookie for this host
(cookies ignore ports) but cannot compute a token, and the sign-in cookie never carries the
token itself to the other programs on ``localhost`` that receive it.

It is one pure ASGI middleware rather than several Starlette ones because the checks must run
in a fixed order *before* any route reads a byte, and because the body limit has to wrap the
``receive`` channel itself: bytes are counted as they arrive and the request is refused as
soon as the count passes the limit, so an 8 GiB upload costs at most one chunk over 8 MiB.
It is also the last line for unexpected exceptions: they become the ``internal`` error shape
(no traceback text leaves the process; the traceback goes to the log).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import logging
import secrets
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reverie.errors import InvalidInputError
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
#: ``Sec-Fetch-Site`` values of a request a browser made from this origin (or typed by a person).
SAME_ORIGIN_SITES = frozenset({"same-origin", "none"})
DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


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


def parse_origin(value: str) -> Origin | None:
    """``scheme://host[:port]`` as (scheme, host, port) with the default port filled in; None if malformed."""
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in DEFAULT_PORTS or not host or parts.path not in ("", "/") or parts.query or parts.username:
        return None
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


def own_origin(scheme: str, host_header: str) -> Origin | None:
    """The origin a browser names when it sends a page's request to ``scheme://<Host header>``."""
    return parse_origin(f"{scheme}://{host_header}")


def new_secret() -> bytes:
    """A per-process secret: tokens signed with it die with the process (sign in again)."""
    return secrets.token_bytes(32)


def check_secret(secret: bytes | None) -> None:
    """Refuse a secret too short to key an HMAC safely (None means: make a random one)."""
    if secret is not None and (not isinstance(secret, bytes) or len(secret) < 16):
        raise InvalidInputError(
            "the secret (REVERIE_SECRET) must be at least 16 bytes, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'; or leave it unset for a random one"
        )


def sign(secret: bytes, purpose: str, *parts: str) -> str:
    """HMAC-SHA256 of ``parts`` for one ``purpose``, URL-safe base64 (a cookie value needs no quoting)."""
    message = "\x00".join((purpose, *parts)).encode("utf-8", "surrogatepass")
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def issue_csrf(secret: bytes, session: str) -> str:
    """A fresh ``nonce.mac`` bound to this server's secret and to the sign-in ``session`` ("" if none)."""
    nonce = secrets.token_urlsafe(18)
    return f"{nonce}.{sign(secret, 'csrf', nonce, session)}"


def csrf_valid(secret: bytes, value: str, session: str) -> bool:
    """True only for a token ``issue_csrf`` made under this secret for this session (constant time)."""
    nonce, dot, mac = value.partition(".")
    if not dot or not nonce or len(value) > 200:
        return False
    return hmac.compare_digest(mac.encode("ascii", "replace"), sign(secret, "csrf", nonce, session).encode("ascii"))


def auth_cookie_value(secret: bytes, token: str) -> str:
    """What the sign-in cookie holds: proof of the token under the secret, never the token."""
    return sign(secret, "auth", token)


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison, so response timing says nothing about how much matched.

    Header values arrive as latin-1 text (one character per byte); ``check_token`` keeps the
    token printable ASCII, so both sides are the same bytes whatever a client encodes.
    """
    if given is None:
        return False
    return hmac.compare_digest(given.encode("latin-1", "replace"), token.encode("ascii"))


def check_token(token: str | None) -> None:
    """Refuse a token no HTTP client can send intact: empty, or not printable ASCII without spaces.

    A header is bytes; a token such as ``café`` is sent as UTF-8 by some clients, latin-1 by
    others and refused by others still, so it could never match reliably. Refusing it at start-up
    says so once, instead of a 401 forever.
    """
    if token is None:
        return
    if not token:
        raise InvalidInputError("token must be a non-empty string (or None for no token)")
    bad = next((c for c in token if not "!" <= c <= "~"), None)
    if bad is not None:
        raise InvalidInputError(
            f"the token (REVERIE_TOKEN / --token) contains {bad!r}: an HTTP header cannot carry it reliably. "
            "Use printable ASCII without spaces, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _cookie(header: str | None, name: str) -> str | None:
    """One cookie's value, unquoted the way ``set_cookie`` quoted it: a token with a space,
    ``/`` or ``=`` (base64 padding) is sent back by the browser as ``"..."`` with escapes."""
    return cookie_parser(header or "").get(name)


def authorised(headers: dict[str, str], token: str, secret: bytes) -> bool:
    """A bearer header, or (for the review page in a browser) the cookie set by ``/login``."""
    auth = headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and token_matches(value.strip(), token):
        return True
    return token_matches(_cookie(headers.get("cookie"), AUTH_COOKIE), auth_cookie_value(secret, token))


def bearer_principal(headers: Mapping[str, str], tokens: Iterable[str]) -> str | None:
    """Which of ``tokens`` the request's bearer header carries (each compared in constant time,
    and all of them compared, so timing does not say which one nearly matched), else None."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    found = None
    for token in tokens:
        if token_matches(value.strip(), token):
            found = token
    return found


def is_json(content_type: str) -> bool:
    """``application/json`` or any ``+json`` media type (parameters such as charset ignored)."""
    media = content_type.split(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


Refusal = tuple[int, str, str, dict[str, str]]


class Guard:
    """Host / Origin / body-size / token / media-type checks and security headers, in that order."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str],
        token: str | None,
        max_body: int,
        secret: bytes,
        allowed_origins: Iterable[str] = (),
        principal_tokens: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.allowed = normalise_hosts(allowed_hosts)
        self.token = token
        #: Tokens that act as one principal each (``create_app(principals=...)``): bearer only, /v1 only.
        self.principal_tokens = tuple(principal_tokens)
        self.max_body = max_body
        self.secret = secret
        self.origins = frozenset(o for o in map(parse_origin, allowed_origins) if o is not None)

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
        except ClientDisconnect:
            pass  # the client (or the server's request timeout) closed the connection: nobody to answer
        except Exception:
            log.exception("unexpected error serving %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await error_response(500, "internal", "internal server error")(scope, receive, send_secure)

    def _refusal(self, scope: Scope) -> Refusal | None:
        headers = _headers(scope)
        host = host_name(headers.get("host", ""))
        if host is None or host not in self.allowed:
            return 400, "invalid_host", "the Host header is not one this server answers to", {}
        unsafe = scope["method"] in UNSAFE_METHODS
        if unsafe and not self._same_origin(scope.get("scheme", "http"), headers):
            return 403, "forbidden_origin", "cross-origin write refused: send it from this server's own origin", {}
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return 413, "limit_exceeded", f"request body is larger than {self.max_body} bytes", {}
        api = scope["path"].startswith("/v1")
        if self.token is not None and api and not self._authorised(headers):
            return (
                401,
                "unauthorized",
                "a valid 'Authorization: Bearer <token>' header is required",
                {"WWW-Authenticate": "Bearer"},
            )
        if api and unsafe:
            return _not_json(headers)
        return None

    def _authorised(self, headers: dict[str, str]) -> bool:
        """The operator's token (bearer or sign-in cookie), or a principal's token (bearer)."""
        if authorised(headers, self.token or "", self.secret):
            return True
        return bearer_principal(headers, self.principal_tokens) is not None

    def _same_origin(self, scheme: str, headers: dict[str, str]) -> bool:
        """No browser said otherwise: ``Origin`` (if sent) is ours, ``Sec-Fetch-Site`` (if sent) agrees.

        A request with neither header is not from a browser (curl, an SDK) and cannot be forged
        by a web page, so it passes; a browser sends ``Origin`` on every POST.
        """
        site = headers.get("sec-fetch-site")
        if site is not None and site.lower() not in SAME_ORIGIN_SITES:
            return False
        origin = headers.get("origin")
        if origin is None:
            return True
        given = parse_origin(origin)  # "null" (sandboxed or privacy-stripped) parses to None
        return given is not None and (given == own_origin(scheme, headers.get("host", "")) or given in self.origins)

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


def _not_json(headers: dict[str, str]) -> Refusal | None:
    """415 for a ``/v1`` write whose body is not JSON (a body-less POST such as ``/dream`` passes)."""
    content_type = headers.get("content-type")
    has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
    if content_type is None and not has_body:
        return None
    if content_type is not None and is_json(content_type):
        return None
    got = f"got Content-Type {content_type!r}" if content_type is not None else "no Content-Type was sent"
    text = f"send JSON: this route reads an application/json body ({got}); set Content-Type: application/json"
    return 415, "unsupported_media_type", text, {}
