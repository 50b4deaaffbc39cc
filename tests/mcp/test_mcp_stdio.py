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


def spawn(db: Path) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reverie.mcp", "--db", str(db), "--create", "--embedder", "hash"]
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
        command=sys.executable,
        args=["-m", "reverie.mcp", "--db", str(tmp_path / "m.db"), "--create", "--embedder", "hash"],
    )
    async with Client(params) as client:
        stored = (await call(client, "remember", text="Alice likes jazz", scope=SCOPE))["item"]
        recalled = await call(client, "recall", query="jazz", scope=SCOPE)
    assert recalled["hits"][0]["id"] == stored["id"]


async def test_reverie_mcp_command_as_an_mcp_client_registers_it(
    tmp_path: Path, open_mem: Callable[..., Memory]
) -> None:
    """The README's registration: ``reverie mcp --db PATH`` (the store after the command name)."""
    script = Path(sys.executable).with_name("reverie")
    db = tmp_path / "registered.db"
    params = StdioServerParameters(command=str(script), args=["mcp", "--db", str(db), "--create", "--embedder", "hash"])
    async with Client(params, mode="legacy") as client:
        listed = (await client.list_tools()).tools
        old = (await call(client, "remember", text="Alice lives in Paris", scope="team/alpha", kind="trait"))["item"]
        new = (await call(client, "revise", id=old["id"], new_text="Alice lives in Lyon", scope="team/alpha"))["item"]
        got = (await call(client, "get", id=new["id"], scope="team/alpha"))["item"]
        history = await call(client, "history", id=new["id"], scope="team/alpha")
        listed_items = await call(client, "list", scope="team/alpha", where={"kind": "trait"}, include_closed=True)
        recalled = await call(
            client, "recall", query="where does alice live", scope="team/alpha", where={"kind": "trait"}
        )
        parent = await call(client, "list", scope="team")
        bad_filter = await fail(client, "list", scope="team/alpha", where={"kind": 1})
    assert [t.name for t in listed] == list(TOOL_NAMES)
    assert (got["note"], got["text"], got["scope"]) == (DATA_NOTE, "Alice lives in Lyon", "team/alpha")
    assert [v["text"] for v in history["versions"]] == ["Alice lives in Paris", "Alice lives in Lyon"]
    assert sorted(i["text"] for i in listed_items["items"]) == ["Alice lives in Lyon", "Alice lives in Paris"]
    assert [h["id"] for h in recalled["hits"]] == [new["id"]]
    assert parent["count"] == 0  # 'team' is not 'team/alpha'
    assert bad_filter["code"] == "invalid_query"
    assert open_mem(db).get(new["id"], scope="team/alpha").text == "Alice lives in Lyon"


async def test_stdio_records_a_tool_call_and_closes_a_conversation_durably(
    tmp_path: Path, open_mem: Callable[..., Memory]
) -> None:
    db = tmp_path / "conv.db"
    async with spawn(db) as client:
        said = {"conversation": "c1", "speaker": "Alice", "scope": SCOPE}
        await call(client, "conversation_add", text="My sister Dana lives in Lisbon.", **said)
        tool = await client.call_tool(
            "conversation_tool_call",
            {"conversation": "c1", "name": "lookup", "args": {"city": "Lisbon"}, "scope": SCOPE},
        )
        closed = await call(client, "conversation_close", conversation="c1", scope=SCOPE)
        missing = await fail(client, "conversation_close", conversation="nope", scope=SCOPE)
    assert not tool.is_error and tool.structured_content["entry"]["kind"] == "tool_call"
    assert closed["recap"]["kind"] == "recap" and closed["extraction"]["claims"]
    assert missing["code"] == "not_found"
    reopened = open_mem(db)
    entries = reopened.conversation("c1", scope=SCOPE, create=False).entries()
    assert [e.kind for e in entries] == ["message", "tool_call", "recap"]
    assert entries[1].meta == {"args": {"city": "Lisbon"}, "status": "ok", "detail": ""}
    assert {reopened.get(c, scope=SCOPE).meta["message_id"] for c in closed["extraction"]["claims"]} == {entries[0].id}
