"""Message-level visibility through every face: a restricted message stays from outsiders, a widening
audience is refused (``invalid_input``), and a principal may not change a message's audience
(``not_permitted``). CLI ``--visible-to`` / ``--conversation-visible-to`` and ``conversation
set-visibility``; HTTP ``visibility`` / ``conversation_visibility`` and ``POST …/messages/{id}/visibility``;
MCP ``visibility`` / ``conversation_visibility`` and ``conversation_set_visibility``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from reverie import Memory
from reverie.http import create_app
from reverie.mcp import build_server

from .http_sec_helpers import serving

sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))  # the CLI suite's runner (tests/ has no packages)

from cli_support import SCOPE, Cli

OPERATOR = "operator-token-0123456789"
AGENT = "agent-b-token-0123456789"


def test_cli_message_visibility(tmp_path: Path) -> None:
    run = Cli(tmp_path / "r.db")
    added = run.json(  # --create: conversation add makes no store of its own
        "--create",
        "conversation",
        "add",
        "c1",
        "the launch code is zqone",
        "--speaker",
        "alice",
        "--visible-to",
        "agent:ops",
    )
    assert added["message"]["visibility"] == ["agent:ops"]
    public = run.json("conversation", "add", "c1", "weather is zqsun", "--speaker", "alice")
    outsider = json.dumps(
        [
            run.json("--principal", "agent:bob", "conversation", "messages", "c1", "--all"),
            run.json("--principal", "agent:bob", "list"),
        ]
    )
    assert "zqone" not in outsider and "zqsun" in outsider
    run.fails(
        1,
        "not_permitted",
        "--principal",
        "agent:ops",
        "conversation",
        "set-visibility",
        "c1",
        public["message"]["id"],
        "--visible-to",
        "agent:ops",
    )
    shown = run.json("conversation", "set-visibility", "c1", public["message"]["id"], "--visible-to", "agent:ops")
    assert shown["entry"]["visibility"] == ["agent:ops"]
    assert "zqsun" not in json.dumps(run.json("--principal", "agent:bob", "list"))
    run.json("conversation", "add", "c2", "hello zqtwo", "--conversation-visible-to", "agent:a")
    run.fails(2, "invalid_input", "conversation", "add", "c2", "widen", "--visible-to", "agent:z")
    assert "zqtwo" not in json.dumps(run.json("--principal", "agent:bob", "conversation", "list"))
    assert "zqtwo" not in json.dumps(run.json("--principal", "agent:bob", "list"))


def test_http_message_visibility(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "h.db", embedder="hash")
    app = create_app(mem, token=OPERATOR, principals={AGENT: "agent:bob"})
    with serving(app) as port:
        base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}"
        op = {"Authorization": f"Bearer {OPERATOR}"}
        bob = {"Authorization": f"Bearer {AGENT}"}
        r = httpx.post(
            f"{base}/conversations/c1/messages", headers=op, json={"text": "code zqone", "visibility": ["agent:ops"]}
        )
        assert r.status_code == 201 and r.json()["visibility"] == ["agent:ops"]
        r = httpx.post(f"{base}/conversations/c1/messages", headers=op, json={"text": "weather zqsun"})
        public = r.json()["id"]
        seen = (
            httpx.get(f"{base}/conversations/c1/messages", headers=bob).text
            + httpx.get(f"{base}/items", headers=bob).text
        )
        assert "zqone" not in seen and "zqsun" in seen
        url = f"{base}/conversations/c1/messages/{public}/visibility"
        denied = httpx.post(url, headers=bob, json={"visibility": ["agent:bob"]})
        assert denied.status_code == 403 and denied.json()["code"] == "not_permitted"
        done = httpx.post(url, headers=op, json={"visibility": ["agent:ops"], "reason": "private"})
        assert done.status_code == 200 and done.json()["visibility"] == ["agent:ops"]
        assert "zqsun" not in httpx.get(f"{base}/items", headers=bob).text
        r = httpx.post(
            f"{base}/conversations/c2/messages",
            headers=op,
            json={"text": "hi zqtwo", "conversation_visibility": ["agent:a"]},
        )
        assert r.status_code == 201
        wide = httpx.post(
            f"{base}/conversations/c2/messages", headers=op, json={"text": "x", "visibility": ["agent:z"]}
        )
        assert wide.status_code == 400 and wide.json()["code"] == "invalid_input"
        assert "zqtwo" not in httpx.get(f"{base}/items", headers=bob).text
    mem.close()


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool(tool, args)
    return bool(result.is_error), json.loads(result.content[0].text)


@pytest.mark.anyio
async def test_mcp_message_visibility(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db", embedder="hash")
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
        err, out = await _call(
            client,
            "conversation_add",
            {"scope": SCOPE, "conversation": "c1", "text": "code zqone", "visibility": ["agent:ops"]},
        )
        assert not err and out["message"]["visibility"] == ["agent:ops"]
        err, out = await _call(
            client, "conversation_add", {"scope": SCOPE, "conversation": "c1", "text": "weather zqsun"}
        )
        public = out["message"]["id"]
        err, out = await _call(
            client,
            "conversation_set_visibility",
            {"scope": SCOPE, "conversation": "c1", "message": public, "visibility": ["agent:ops"]},
        )
        assert not err and out["entry"]["visibility"] == ["agent:ops"]
        err, out = await _call(
            client,
            "conversation_add",
            {"scope": SCOPE, "conversation": "c2", "text": "hi", "conversation_visibility": ["agent:a"]},
        )
        assert not err
        err, out = await _call(
            client, "conversation_add", {"scope": SCOPE, "conversation": "c2", "text": "x", "visibility": ["agent:z"]}
        )
        assert err and out["code"] == "invalid_input"
    bob = mem.as_principal("agent:bob")
    assert "zqone" not in json.dumps([i.text for i in bob.list(scope=SCOPE).items])
    assert "zqsun" not in json.dumps([i.text for i in bob.list(scope=SCOPE).items])
    open_message = mem.conversation("c3", scope=SCOPE).add("a public line").id
    async with Client(build_server(bob), mode="legacy", raise_exceptions=True) as client:
        args = {"scope": SCOPE, "conversation": "c3", "message": open_message, "visibility": ["agent:bob"]}
        err, out = await _call(client, "conversation_set_visibility", args)
        assert err and out["code"] == "not_permitted"
    mem.close()
