"""Assertions shared by the HTTP tests (a uniquely named module: tests/ has no packages)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

BASE = "http://127.0.0.1"
SCOPE = "user:alice"


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The one error shape: exactly code, error, status — and no traceback text."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "error", "status"}
    assert body["status"] == status
    assert isinstance(body["error"], str) and "Traceback" not in body["error"]
    if code is not None:
        assert body["code"] == code
    return body


def open_conflict(mem: Any, a: str, b: str) -> str:
    """The id of the conflict edge between items ``a`` and ``b``: the one conflict detection
    found if it is on, else a hand-made ``contradicts`` link (so tests hold either way)."""
    for alert in mem.contradictions(scope=SCOPE):
        if {alert.a.id, alert.b.id} == {a, b}:
            return str(alert.edge_id)
    return str(mem.link(a, b, "contradicts", scope=SCOPE).id)


@contextmanager
def running(app: Any) -> Iterator[str]:
    """``app`` in uvicorn on a free loopback port (a thread of this process, so a test
    holds its clock); yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", server_header=False, proxy_headers=False))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not srv.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop"
