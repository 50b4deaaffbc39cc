"""Helpers for the HTTP / review-page security suite (a uniquely named module: tests/ has no packages).

``serving`` runs the app the way ``reverie serve`` does (``reverie.http.server.config``: the
same protocol class, timeouts and error bodies) on a free loopback port, so raw-socket and
browser tests meet the production server, not a test double. ``chromium`` launches Debian's
Chromium through Playwright with a fresh profile (never Playwright's own download).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

from reverie import Memory
from reverie.http import create_app

SCOPE = "user:alice"
V1 = f"/v1/scopes/{SCOPE}"
CHROMIUM = Path(os.environ.get("REVERIE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
HAVE_BROWSER = importlib.util.find_spec("playwright") is not None and CHROMIUM.is_file()
needs_browser = pytest.mark.skipif(
    not HAVE_BROWSER and os.environ.get("CI") != "true",
    reason=f"needs the playwright package and Chromium at {CHROMIUM}",
)


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The one error shape: exactly code, error, status."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "error", "status"}, body
    assert body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


@contextmanager
def open_client(mem: Memory, **kwargs: Any) -> Iterator[TestClient]:
    """An in-process client over ``create_app(mem, **kwargs)`` (Host 127.0.0.1)."""
    with TestClient(create_app(mem, **kwargs), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def serving(app: Any, **options: Any) -> Iterator[int]:
    """``app`` under uvicorn, configured by ``reverie.http.server.config(**options)``; yields the port."""
    from reverie.http.server import config

    with free_socket() as sock:
        port = sock.getsockname()[1]
        srv = uvicorn.Server(config(app, host="127.0.0.1", port=port, log_level="warning", **options))
        thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 10
            while not srv.started:
                assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
                time.sleep(0.01)
            yield port
        finally:
            srv.should_exit = True
            thread.join(timeout=10)
            assert not thread.is_alive(), "uvicorn did not stop"


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """A persistent Chromium context with an empty profile; closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        context.set_default_timeout(10_000)
        try:
            yield context
        finally:
            context.close()
