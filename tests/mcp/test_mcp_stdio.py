"""The MCP face as a client really meets it: ``python -m reverie.mcp`` spawned over stdio."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp_support import INJECTION, MISSING_ID, SCOPE, assert_only_in_data, call, descriptions, fail, snapshot

from reverie import Memory
from reverie.mcp import DATA_NOTE, TOOL_NAMES

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def spawn(db: Path) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reverie.mcp", "--db", str(db), "--embedder", "hash"]
    )
    return Client(params, mode="legacy")


async def test_stdio_server_serves_the_catalog_and_a_durable_round_trip(
    tmp_path: Path, open_mem: Callable[..., Memory]
) -> None:
    db = tmp_path / "stdio.db"
    async with spawn(db) as client:
        listed = (await client.list_tools()).tools
        stored = (await call(client, "remember", text=f"Alice said: {INJECTION}", scope=SCOPE))["item"]
        recalled = await call(client, "recall", query="what did alice say", scope=SCOPE)
        bad_scope = await fail(client, "recall", query="x", scope="no spaces allowed")
        bad_score = await fail(client, "remember", text="x", scope=SCOPE, confidence=2.0)
        unknown = await fail(client, "forget", id=MISSING_ID, scope=SCOPE)
        after = (await client.list_tools()).tools
    assert [t.name for t in listed] == list(TOOL_NAMES)
    assert all(t.input_schema["type"] == "object" for t in listed)
    assert descriptions(listed) == descriptions(after) == snapshot()
    hit = recalled["hits"][0]
    assert (hit["id"], hit["note"]) == (stored["id"], DATA_NOTE)
    assert assert_only_in_data(recalled, INJECTION) == 1
    assert (bad_scope["code"], bad_score["code"], unknown["code"]) == ("invalid_scope", "invalid_input", "not_found")
    # The write was acknowledged, so it is on disk once the server process is gone.
    reopened = open_mem(db)
    assert reopened.get(stored["id"], scope=SCOPE).text == f"Alice said: {INJECTION}"


async def test_stdio_server_speaks_the_2026_protocol_too(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reverie.mcp", "--db", str(tmp_path / "m.db"), "--embedder", "hash"]
    )
    async with Client(params) as client:
        stored = (await call(client, "remember", text="Alice likes jazz", scope=SCOPE))["item"]
        recalled = await call(client, "recall", query="jazz", scope=SCOPE)
    assert recalled["hits"][0]["id"] == stored["id"]
