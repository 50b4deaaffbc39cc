"""``python -m reverie.mcp --http`` (and ``reverie mcp --http``) say where they listen (issue #20, item 12)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from reverie.cli.ops import mcp, serve
from reverie.mcp.__main__ import http_url
from reverie.mcp.server import DEFAULT_HTTP_PORT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _first_stderr_line_then_stop(args: list[str], log: Path) -> str:
    """Start the server, wait for the line it prints, check the URL answers, SIGTERM it; the line."""
    with log.open("w") as err:
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err, text=True)
    try:
        deadline = time.monotonic() + 30
        line = ""
        while time.monotonic() < deadline and not line.endswith("\n") and proc.poll() is None:
            line = log.read_text().split("\n", 1)[0] + "\n" if "\n" in log.read_text() else ""
            time.sleep(0.05)
        assert " on " in line, log.read_text()
        url = line.split(" on ", 1)[1].split()[0]
        answered = None
        while time.monotonic() < deadline and answered is None:
            try:
                answered = httpx.get(url, timeout=2).status_code
            except httpx.TransportError:
                time.sleep(0.05)
        assert answered is not None, line  # something real listens at the printed URL
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    return line


def test_python_m_reverie_mcp_http_prints_its_url(tmp_path: Path) -> None:
    port = _free_port()
    args = [sys.executable, "-m", "reverie.mcp", "--db", str(tmp_path / "m.db"), "--create", "--embedder", "hash"]
    line = _first_stderr_line_then_stop([*args, "--http", "--port", str(port)], tmp_path / "err.log")
    assert line.startswith(f"reverie MCP server (streamable HTTP) on http://127.0.0.1:{port}/mcp ")


def test_reverie_mcp_http_prints_its_url(tmp_path: Path) -> None:
    port = _free_port()
    exe = str(Path(sys.executable).with_name("reverie"))
    args = [exe, "--db", str(tmp_path / "m.db"), "--embedder", "hash", "mcp", "--create", "--http", "--port", str(port)]
    line = _first_stderr_line_then_stop(args, tmp_path / "err.log")
    assert line.startswith(f"reverie MCP server (streamable HTTP) on http://127.0.0.1:{port}/mcp ")


def test_a_port_in_use_is_refused_at_once_saying_what_to_do(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = [sys.executable, "-m", "reverie.mcp", "--db", str(tmp_path / "m.db"), "--create", "--embedder", "hash"]
        result = subprocess.run([*args, "--http", "--port", str(port)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr and "--port" in result.stderr
    assert "streamable HTTP) on" not in result.stderr
    assert not (tmp_path / "m.db").exists()  # refused before the store was opened


def test_default_mcp_port_is_not_the_http_api_port() -> None:
    defaults = {cmd.name: next(p.default for p in cmd.params if p.name == "port") for cmd in (serve, mcp)}
    assert defaults == {"serve": 8765, "mcp": DEFAULT_HTTP_PORT} and DEFAULT_HTTP_PORT == 8766


def test_ipv6_loopback_url_has_brackets() -> None:
    assert http_url("::1", 8766) == "http://[::1]:8766/mcp"
    assert http_url("127.0.0.1", 9000) == "http://127.0.0.1:9000/mcp"
