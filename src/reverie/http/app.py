"""``create_app`` (the ASGI app over one ``Memory``) and ``serve`` (run it with uvicorn).

``serve`` is the CLI's entry point. It refuses to listen beyond loopback without a token:
the API can read and rewrite every scope, so exposing it unauthenticated is never a default.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool

from reverie.errors import InvalidInputError
from reverie.http import api, detail, errors, page
from reverie.http.scope_path import ScopeSegment
from reverie.http.security import LOOPBACK_HOSTS, Guard, is_loopback
from reverie.limits import Limits
from reverie.memory import Memory
from reverie.model.validate import check_interval

log = logging.getLogger("reverie.http")


def create_app(
    mem: Memory,
    token: str | None = None,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    *,
    dream_every: float | None = None,
) -> FastAPI:
    """The HTTP face over ``mem`` (which the caller opens and closes).

    ``token``: when set, every ``/v1`` route needs ``Authorization: Bearer <token>`` and the
    review page needs the login cookie. ``allowed_hosts``: names the Host header may carry
    (DNS-rebinding defence). ``dream_every``: seconds between background dream passes over
    every scope, only if this ``Memory`` has a ``dream`` method.
    """
    if token is not None and not token:
        raise InvalidInputError("token must be a non-empty string (or None for no token)")
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
        description="A belief-state memory for AI agents: every route is a thin adapter over reverie.Memory.",
        docs_url=None,  # Swagger UI needs inline script and a CDN, which the CSP forbids
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.mem = mem
    app.state.token = token
    errors.install(app)
    app.include_router(api.router)
    app.include_router(page.router)
    app.include_router(detail.router)
    app.add_middleware(ScopeSegment)  # inside the guard: it only changes how /v1 paths are routed
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, token=token, max_body=max_body)
    return app


async def _dream_loop(mem: Memory, every: float) -> None:
    """Dream over every scope, sleep, repeat; one failing pass is logged, never fatal."""
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
) -> None:
    """Open the store at ``db_path`` and serve it until interrupted (blocking).

    ``allowed_hosts`` adds Host names beyond loopback and ``host`` (needed when binding
    ``0.0.0.0`` and reaching the server by a machine name).
    """
    check_bind(host, token)
    import uvicorn

    mem = Memory(db_path, embedder=embedder)
    try:
        app = create_app(
            mem, token=token, allowed_hosts=[*LOOPBACK_HOSTS, host, *allowed_hosts], dream_every=dream_every
        )
        uvicorn.run(app, host=host, port=port, server_header=False, proxy_headers=False)
    finally:
        mem.close()
