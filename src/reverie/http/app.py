"""``create_app`` (the ASGI app over one ``Memory``) and ``serve`` (run it with uvicorn).

``serve`` is the CLI's entry point. It refuses to listen beyond loopback without a token:
the API can read and rewrite every scope, so exposing it unauthenticated is never a default.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.concurrency import run_in_threadpool

from reverie.errors import InvalidInputError
from reverie.http import (
    agenda,
    alerts_api,
    api,
    conversations,
    convpage,
    detail,
    docs,
    errors,
    idempotency,
    page,
    server,
    slices,
)
from reverie.http.scope_path import ScopeSegment
from reverie.http.security import LOOPBACK_HOSTS, Guard, check_secret, check_token, is_loopback, new_secret
from reverie.limits import Limits
from reverie.memory import Memory
from reverie.model.validate import check_interval

log = logging.getLogger("reverie.http")
#: Seconds an Idempotency-Key is kept (``create_app(idempotency_window=...)``): a day of retries.
IDEMPOTENCY_WINDOW = 24 * 3600.0
DESCRIPTION = (
    "A belief-state memory for AI agents: every route is a thin adapter over reverie.Memory. "
    "Routes of one scope live under /v1/scopes/{scope}/ with the scope percent-encoded ('team/alpha' is "
    "team%2Falpha); GET /v1/scopes lists them. With a token, send 'Authorization: Bearer <token>'. "
    "Writes take JSON (Content-Type: application/json) and an optional Idempotency-Key header, so a retried "
    "write is applied once. Every error is {code, error, status}: switch on code. "
    "Interactive docs: /docs."
)


def create_app(
    mem: Memory,
    token: str | None = None,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    *,
    allowed_origins: Sequence[str] = (),
    secret: bytes | None = None,
    dream_every: float | None = None,
    principals: Mapping[str, str] | None = None,
    idempotency_window: float = IDEMPOTENCY_WINDOW,
) -> FastAPI:
    """The HTTP face over ``mem`` (which the caller opens and closes).

    ``token``: when set, every ``/v1`` route needs ``Authorization: Bearer <token>`` and the
    review page needs the login cookie; printable ASCII only (``check_token``). ``allowed_hosts``:
    names the Host header may carry (DNS-rebinding defence). ``allowed_origins``: browser origins
    accepted for writes besides the server's own (``https://memory.lan`` behind a TLS proxy).
    ``secret``: the key of the CSRF tokens and the sign-in cookie (at least 16 bytes); random per
    app unless given, so a restart signs everyone out. ``dream_every``: seconds between background
    dream passes over every scope, only if this ``Memory`` has a ``dream`` method.
    ``principals``: token → principal (issue #14.8). A ``/v1`` request whose bearer token is one of
    these reads and writes as that principal (``Memory.as_principal``); the operator's ``token``
    still sees everything, and only it signs in to the review page. Why tokens and not a header
    naming the principal: anyone can set a header; a token is a secret the operator handed out.
    ``idempotency_window``: seconds an ``Idempotency-Key`` is kept after its first request (24 h;
    ``reverie.http.idempotency``), by ``mem``'s clock.
    """
    check_token(token)
    window = timedelta(seconds=check_interval(idempotency_window, "idempotency_window"))
    views = principal_views(mem, token, principals or {})
    check_secret(secret)
    key = secret if secret is not None else new_secret()
    max_body = getattr(mem, "limits", Limits()).max_request_bytes
    every = check_interval(dream_every, "dream_every") if dream_every is not None else None  # 1 s .. 365 d

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        task = None
        if every is not None and hasattr(mem, "dream"):
            task = asyncio.create_task(_dream_loop(mem, every))
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    app = FastAPI(
        title="reverie",
        version=_version(),
        description=DESCRIPTION,
        docs_url=None,  # Swagger UI needs inline script and a CDN, which the CSP forbids: see docs.py
        redoc_url=None,
        lifespan=lifespan,
    )
    app.openapi = _openapi(app)  # type: ignore[method-assign]
    app.state.mem = mem
    app.state.views = views
    app.state.token = token
    app.state.secret = key
    errors.install(app)
    app.include_router(api.top)
    app.include_router(api.router)
    app.include_router(slices.router)
    app.include_router(alerts_api.router)
    app.include_router(agenda.router)
    app.include_router(conversations.router)
    app.include_router(docs.router)
    app.include_router(page.router)
    app.include_router(detail.router)
    app.include_router(convpage.router)
    app.add_middleware(idempotency.Idempotent, window=window)  # inside the two below: sees checked requests
    app.add_middleware(ScopeSegment)  # inside the guard: it only changes how /v1 paths are routed
    app.add_middleware(
        Guard,
        allowed_hosts=allowed_hosts,
        token=token,
        max_body=max_body,
        secret=key,
        allowed_origins=allowed_origins,
        principal_tokens=tuple(views),
    )
    return app


def principal_views(mem: Memory, token: str | None, principals: Mapping[str, str]) -> dict[str, Memory]:
    """One ``Memory`` view per principal token, checked: printable tokens, none the operator's,
    valid principal names, and an operator token set (else the open review page shows everything)."""
    if not principals:
        return {}
    if token is None:
        raise InvalidInputError(
            "principal tokens need an operator token too (--token / REVERIE_TOKEN): without one the "
            "review page and every route without a principal token would be open to everyone"
        )
    views: dict[str, Memory] = {}
    for given, principal in sorted(principals.items()):
        check_token(given)
        if given == token:
            raise InvalidInputError("a principal token must differ from the operator token")
        views[given] = mem.as_principal(principal)
    return views


def _openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """FastAPI's document without its 422 ``HTTPValidationError``: this API answers bad input
    with 400 in the one error shape (``errors._validation``), and documents that instead."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            for methods in doc.get("paths", {}).values():
                for operation in methods.values():
                    operation.get("responses", {}).pop("422", None)
            schemas = doc.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
            idempotency.document(doc)  # the header on every write, with its 422 and replay header
            app.openapi_schema = doc
        return app.openapi_schema

    return build


async def _dream_loop(mem: Memory, every: float) -> None:
    """Dream over every scope, sleep, repeat; one failing pass is logged, never fatal.

    As the store's owner even when the server serves as a principal: a pass plans from the
    whole scope or not at all (``Memory.dream`` refuses a principal)."""
    from reverie.memory.facade import owner_view

    mem = owner_view(mem) if hasattr(mem, "principal") else mem
    run: Any = mem.dream
    while True:
        await asyncio.sleep(every)
        for scope in await run_in_threadpool(mem.scopes):
            try:
                await run_in_threadpool(run, scope=scope)
            except Exception:
                log.exception("dream pass over scope %r failed", scope)


def _version() -> str:
    from reverie import __version__

    return __version__


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token (raise ``InvalidInputError`` saying how to fix it)."""
    if not is_loopback(host) and not token:
        raise InvalidInputError(
            f"refusing to listen on {host!r} without a token: anyone who can reach it could read and "
            "rewrite every scope. Set a token, or bind 127.0.0.1."
        )


def serve(
    db_path: str,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    embedder: str = "minilm",
    dream_every: float | None = None,
    *,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    secret: str | None = None,
    request_timeout: float = server.REQUEST_TIMEOUT,
    read_only: bool = False,
    principal: str | None = None,
    principals: Mapping[str, str] | None = None,
    idempotency_window: float = IDEMPOTENCY_WINDOW,
    conflict_reader: str | None = None,
) -> None:
    """Open the store at ``db_path`` and serve it until interrupted (blocking).

    ``allowed_hosts`` adds Host names beyond loopback and ``host`` (needed when binding
    ``0.0.0.0`` and reaching the server by a machine name); ``allowed_origins`` adds browser
    origins for writes (a TLS proxy's ``https://…``). ``secret`` (else ``$REVERIE_SECRET``, else
    random per process) keys the CSRF tokens and sign-in cookies, so a restart with the same
    secret keeps people signed in. ``request_timeout``: seconds a request may take to arrive.
    ``read_only``: serve the store for inspection (every write answers 403 ``read_only``).
    ``principal``: every request reads as this principal (issue #14.8). It is fixed by the
    operator who starts the server and bound to the one ``token``: whoever proves they hold the
    token acts as that principal. No request header can name a principal (anyone can set one).
    ``idempotency_window``: as in ``create_app``. ``conflict_reader``: ``"nli"`` to have the
    contradictions' second reader read new claims in the scheduled dream passes (``Memory``).
    """
    check_bind(host, token)
    check_token(token)  # before opening anything, like the bind check
    text = secret if secret is not None else os.environ.get("REVERIE_SECRET")
    key = text.encode("utf-8") if text else None
    check_secret(key)
    import uvicorn

    mem = Memory(db_path, embedder=embedder, read_only=read_only, principal=principal, conflict_reader=conflict_reader)
    try:
        app = create_app(
            mem,
            token=token,
            allowed_hosts=[*LOOPBACK_HOSTS, host, *allowed_hosts],
            allowed_origins=allowed_origins,
            secret=key,
            dream_every=dream_every,
            principals=principals,
            idempotency_window=idempotency_window,
        )
        uvicorn.run(app, host=host, port=port, **server.options(request_timeout))
    finally:
        mem.close()
