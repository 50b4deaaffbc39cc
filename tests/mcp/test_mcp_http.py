"""The streamable-HTTP face: loopback only, refusing foreign Host headers and other bind addresses."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp_support import SCOPE, call, fail, snapshot

from reverie import Memory
from reverie.mcp import DATA_NOTE, TOOL_NAMES
from reverie.mcp.__main__ import main

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until_listening(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}: {log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    pytest.fail(f"server did not listen on {port}: {log.read_text()}")


@contextmanager
def serving(db: Path) -> Iterator[str]:
    """``python -m reverie.mcp --http`` on a free loopback port; yields its URL, then SIGTERMs it.

    SIGTERM is how supervisors stop a server: it must drain, close the store and exit 0.
    """
    port = free_port()
    log = db.with_suffix(".log")
    args = ["-m", "reverie.mcp", "--db", str(db), "--create", "--embedder", "hash", "--http", "--port", str(port)]
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=err)
        try:
            wait_until_listening(port, proc, log)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    assert proc.returncode == 0, log.read_text()


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    with serving(tmp_path / "http.db") as url:
        yield url


async def test_http_server_serves_the_catalog_and_a_durable_round_trip(
    tmp_path: Path, open_mem: Callable[..., Memory]
) -> None:
    db = tmp_path / "http.db"
    with serving(db) as url:
        async with Client(url, mode="legacy") as client:
            listed = (await client.list_tools()).tools
            stored = (await call(client, "remember", text="Alice is allergic to peanuts", scope=SCOPE))["item"]
            recalled = await call(client, "recall", query="peanuts", scope=SCOPE)
            error = await fail(client, "remember", text="x", scope=SCOPE, importance=2.0)
    assert [t.name for t in listed] == list(TOOL_NAMES)
    assert {t.name: t.description for t in listed} == snapshot()
    assert (recalled["hits"][0]["id"], recalled["hits"][0]["note"]) == (stored["id"], DATA_NOTE)
    assert error["code"] == "invalid_input"
    # Acknowledged before the server stopped, so on disk after it stopped.
    assert open_mem(db).get(stored["id"], scope=SCOPE).text == "Alice is allergic to peanuts"


def test_http_server_refuses_a_foreign_host_header(http_server: str) -> None:
    """DNS rebinding: a web page that resolves its own name to 127.0.0.1 must not reach the tools."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Host": "attacker.example", "Accept": "application/json, text/event-stream"}
    response = httpx.post(http_server, json=body, headers=headers, timeout=10)
    assert response.status_code == 421


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.com"])
def test_http_refuses_to_bind_anything_but_loopback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    db = tmp_path / "never.db"
    assert main(["--db", str(db), "--http", "--host", host, "--port", str(free_port())]) == 2
    error = json.loads(capsys.readouterr().err)
    assert error["code"] == "invalid_input" and host in error["error"]
    assert not db.exists(), "the store must not even be opened"
