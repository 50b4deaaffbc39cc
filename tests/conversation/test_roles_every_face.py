"""Every face offers exactly the message roles a message may have (``model.conversation.ROLES``).

Outside probe 4, finding 19: the README, ``reverie conversation add --help``, the HTTP OpenAPI schema
and the MCP ``conversation_add`` schema offered role ``tool``, which every face then refused. A
message has no ``tool`` role: a tool's run is a tool-call record (``conv.tool_call``: that it ran,
never its output), so the advertisements name the three roles and a ``tool`` role is refused
clearly, naming them, by every face. Real SQLite file, in-process HTTP and MCP clients.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

from reverie import InvalidInputError, ManualClock, Memory
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import build_server
from reverie.model.conversation import ROLES
from reverie.testing import EPOCH

S = "user:alice"
ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
README = Path(__file__).resolve().parents[2] / "README.md"


def _open(db: Path) -> Memory:
    return Memory(db, embedder="hash", clock=ManualClock(EPOCH), seed=0)


def _role_help() -> str:
    out = CliRunner().invoke(cli, ["conversation", "add", "--help"], env=ENV).output
    found = re.search(r"--role TEXT\s+(.*?)\s+--", out, re.S)
    assert found is not None, out
    return " ".join(found.group(1).split())


def _offers_tool(text: str) -> bool:
    """``text`` lists ``tool`` among the roles ("…, system or tool", "…|tool")."""
    return bool(re.search(r"(, | or |\|)tool\b(?!['’]s| ran| call)", text))


def test_the_cli_help_and_the_readme_name_exactly_the_roles() -> None:
    said = _role_help()
    assert [r for r in ROLES if r in said] == list(ROLES), said
    assert not _offers_tool(said), said
    roles = re.findall(r"`--role ([a-z|]+)`", README.read_text())
    assert roles and set(roles) == {"|".join(ROLES)}


def test_the_cli_refuses_role_tool_naming_the_roles(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    # --create: conversation add makes no store of its own (README "Global options")
    base = [
        "--db",
        str(db),
        "--create",
        "--embedder",
        "hash",
        "--scope",
        S,
        "conversation",
        "add",
        "c1",
        "ran the search",
    ]
    refused = CliRunner().invoke(cli, [*base, "--role", "tool"], env=ENV)
    assert refused.exit_code == 2 and "error[invalid_input]: " in refused.stderr
    assert "user, assistant, system" in refused.stderr and "Traceback" not in refused.output
    for role in ROLES:
        assert CliRunner().invoke(cli, [*base, "--role", role], env=ENV).exit_code == 0


def test_the_http_schema_offers_exactly_the_roles_and_refuses_tool(tmp_path: Path) -> None:
    with _open(tmp_path / "h.db") as mem, TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        spec = client.get("/openapi.json").json()
        role = spec["components"]["schemas"]["MessageIn"]["properties"]["role"]
        assert role["enum"] == list(ROLES)
        url = "/v1/scopes/user%3Aalice/conversations/c1/messages"
        refused = client.post(url, json={"text": "ran the search", "role": "tool"})
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_input"
        assert "role" in refused.json()["error"]
        for name in ROLES:
            assert client.post(url, json={"text": f"said as {name}", "role": name}).status_code == 201
        assert [m.role for m in mem.conversation("c1", scope=S).messages()] == list(ROLES)


@pytest.mark.anyio
async def test_the_mcp_schema_and_description_offer_exactly_the_roles(tmp_path: Path) -> None:
    with _open(tmp_path / "m.db") as mem:
        async with Client(build_server(mem), raise_exceptions=True) as client:
            (tool,) = [t for t in (await client.list_tools()).tools if t.name == "conversation_add"]
            assert tool.input_schema["properties"]["role"]["enum"] == list(ROLES)
            assert not _offers_tool(tool.description or ""), tool.description
            args: dict[str, Any] = {"scope": S, "conversation": "c1", "text": "ran the search", "role": "tool"}
            refused = await client.call_tool("conversation_add", args)
            assert refused.is_error
            assert "role" in json.loads(refused.content[0].text)["error"]


def test_the_python_api_refuses_role_tool_naming_the_roles(tmp_path: Path) -> None:
    with _open(tmp_path / "p.db") as mem:
        conv = mem.conversation("c1", scope=S)
        with pytest.raises(InvalidInputError, match="user, assistant, system") as refused:
            conv.add("ran the search", role="tool")
        assert "tool_call" in refused.value.message
        assert conv.messages() == []
