"""Driving one bad input through every face: the Python API, the CLI, HTTP and MCP.

Each helper asserts the one refusal shape its face promises (issue #14): a ``ReverieError``
in Python, a 4xx JSON body over HTTP, exit 2 with ``error[<code>]`` on stderr from the CLI,
an ``is_error`` result with a ``code`` other than ``internal`` from MCP. A crash shows up as
an ``OverflowError`` / 500 / ``error[internal]`` and fails the assertion with the evidence.
(A uniquely named module: tests/ has no packages.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory, ReverieError
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import build_server

SCOPE = "user:alice"
BASE = "http://127.0.0.1"
CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


def api_refuses(call: Callable[[], object], code: str | None = None) -> ReverieError:
    """The Python face: ``call`` raises a ``ReverieError`` (and nothing else escapes)."""
    try:
        call()
    except ReverieError as exc:
        assert code is None or exc.code == code, (exc.code, exc.message)
        assert exc.message, "a refusal must say what was wrong"
        return exc
    raise AssertionError("the call was accepted; it should have been refused")


def run_cli(db: Path, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Result:
    head = ["--db", str(db), "--embedder", "hash"] + (["--scope", scope] if scope else [])
    return CliRunner().invoke(cli, [*head, *args], env=dict(CLEAN_ENV), input=input)


def cli_refuses(db: Path, *args: str, code: str | None = None, input: str | None = None) -> str:
    """The CLI face: exit 2 (bad input), ``error[<code>]: …`` on stderr, never ``internal``."""
    result = run_cli(db, *args, input=input)
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert result.stderr.startswith("error["), result.stderr
    assert "error[internal]" not in result.stderr and "Traceback" not in result.output, result.stderr
    if code is not None:
        assert result.stderr.startswith(f"error[{code}]: "), result.stderr
    return result.stderr


@contextmanager
def http(mem: Memory) -> Iterator[TestClient]:
    client = TestClient(create_app(mem), base_url=BASE, raise_server_exceptions=False)
    with client:
        yield client


def http_refuses(response: Any, code: str | None = None) -> dict[str, Any]:
    """The HTTP face: a 4xx with exactly ``code``, ``error``, ``status`` and no traceback."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "error", "status"}, body
    assert "Traceback" not in body["error"]
    if code is not None:
        assert body["code"] == code, body
    return body


def mcp_call(mem: Memory, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """Call one tool through a real in-process MCP client session; (is_error, JSON payload)."""

    async def go() -> tuple[bool, dict[str, Any]]:
        async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
            result = await client.call_tool(tool, arguments)
        payload: dict[str, Any] = json.loads(result.content[0].text)
        return bool(result.is_error), payload

    return anyio.run(go)


def mcp_refuses(mem: Memory, tool: str, code: str | None = None, **arguments: Any) -> dict[str, Any]:
    """The MCP face: an error result whose code is a reverie code, not ``internal``."""
    is_error, payload = mcp_call(mem, tool, **arguments)
    assert is_error, payload
    assert set(payload) == {"code", "error"} and payload["code"] != "internal", payload
    if code is not None:
        assert payload["code"] == code, payload
    return payload
