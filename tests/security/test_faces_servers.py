"""Issue #14.14, the servers: a mistyped ``--db``, a busy port and ``--read-only``, as processes.

Regressions, each seen before the fix:
- ``reverie --db typo.db serve`` and ``reverie mcp --db typo.db`` (and ``python -m reverie.mcp``)
  silently created an empty store and served it (the README promises ``error[not_found]``);
- ``reverie serve`` on a port another server holds logged uvicorn's "address already in use"
  after opening the store and exited 3, with no ``error[...]`` line and no ``--port`` hint.
Each test runs the real console script, as a user (or an MCP client's configuration) would.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from reverie import Memory

REVERIE = str(Path(sys.executable).with_name("reverie"))
SCOPE = "user:alice"
ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}, "OPENBLAS_NUM_THREADS": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run a command that must end by itself; a server that starts instead is a failure."""
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=ENV, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} kept running (it served instead of refusing)")


def error_line(stderr: str) -> str:
    return next((line for line in stderr.splitlines() if line.startswith("error[")), "")


def test_serve_refuses_a_mistyped_db_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    result = run([REVERIE, "--db", str(typo), "--embedder", "hash", "serve", "--port", str(free_port())], 30)
    assert result.returncode == 1, result.stderr
    line = error_line(result.stderr)
    assert line.startswith(f"error[not_found]: no store at {typo}") and "--create" in line
    assert not typo.exists()


def test_mcp_refuses_a_mistyped_db_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    result = run([REVERIE, "mcp", "--db", str(typo), "--embedder", "hash"])
    assert result.returncode == 1, result.stderr
    assert error_line(result.stderr).startswith(f"error[not_found]: no store at {typo}")
    result = run([sys.executable, "-m", "reverie.mcp", "--db", str(typo), "--embedder", "hash"])
    assert result.returncode == 2 and json.loads(result.stderr)["code"] == "not_found"
    assert "--create" in json.loads(result.stderr)["error"]
    assert not typo.exists()


def test_mcp_create_makes_a_new_store(tmp_path: Path) -> None:
    new = tmp_path / "new.db"
    result = run([REVERIE, "mcp", "--create", "--db", str(new), "--embedder", "hash"])  # stdin closed: it ends
    assert result.returncode == 0, result.stderr
    assert new.exists()


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
def test_a_server_on_a_busy_port_says_error_port_in_use_with_the_port_hint(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "s.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("Alice likes tea", scope=SCOPE)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run([REVERIE, "--db", str(db), *command, "--port", str(port)], 30)
    assert result.returncode == 2, result.stderr
    line = error_line(result.stderr)
    assert line.startswith(f"error[port_in_use]: port {port} on 127.0.0.1 is already in use"), result.stderr
    assert "pass --port N" in line
    assert "Started server process" not in result.stderr and "streamable HTTP) on" not in result.stderr


def test_serve_read_only_answers_reads_and_refuses_writes(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    with Memory(db, embedder="hash") as mem:
        tea = mem.remember("Alice likes green tea", scope=SCOPE)
    size = db.stat().st_size
    port = free_port()
    base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}"
    proc = subprocess.Popen(
        [REVERIE, "--db", str(db), "serve", "--read-only", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    try:
        summary = None
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"{base}/summary", timeout=2) as r:
                    summary = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.1)
        assert summary is not None and summary["current"] == 1
        request = urllib.request.Request(
            f"{base}/items", data=b'{"text": "x"}', headers={"Content-Type": "application/json"}, method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403 and json.loads(refused.value.read())["code"] == "read_only"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert db.stat().st_size == size
    with Memory(db, embedder="hash") as mem:
        assert mem.get(tea.id, scope=SCOPE).use_count == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_read_only_serves_reads_and_refuses_writes(tmp_path: Path, anyio_backend: str) -> None:
    db = tmp_path / "ro.db"
    with Memory(db, embedder="hash") as mem:
        tea = mem.remember("Alice likes green tea", scope=SCOPE)
    params = StdioServerParameters(command=REVERIE, args=["mcp", "--read-only", "--db", str(db)], env=ENV)
    async with Client(params, mode="legacy") as client:
        refused = await client.call_tool("remember", {"text": "x", "scope": SCOPE})
        recalled = await client.call_tool("recall", {"query": "green tea", "scope": SCOPE})
    assert refused.is_error and json.loads(refused.content[0].text)["code"] == "read_only"  # type: ignore[union-attr]
    assert json.loads(recalled.content[0].text)["hits"][0]["id"] == tea.id  # type: ignore[union-attr]
    with Memory(db, embedder="hash") as mem:
        assert mem.summary(scope=SCOPE)["current"] == 1
