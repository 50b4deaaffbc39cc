"""A principal cannot tell a conversation it may not see from a name that is free (outside probe 4,
finding 4).

Before: ``b.conversation("layoffs-2027")`` (a conversation for ``agent:a`` only) raised
``not_found`` while ``b.conversation("layoffs-2028")`` (unknown) opened it, so any principal could
test guessed names; the HTTP and MCP ``conversation_add`` path told the same. Names are unique in a
scope, so no answer to "open this name" can be the same for a hidden name and a free one. Now a
principal opens new conversations only under its own name (``agent:b+standup``), a conversation
under a principal's name always includes it, and every other name it may not see — hidden or
free — gets the same ``not_found``. Real SQLite file; real HTTP server; the MCP server in process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from reverie import Memory
from reverie.errors import InvalidInputError, NotFoundError
from reverie.http import create_app
from reverie.mcp import build_server

from .http_sec_helpers import serving

SCOPE = "user:alice"
OPERATOR = "operator-token-0123456789"
AGENT = "agent-b-token-0123456789"


def _hide(mem: Memory) -> None:
    mem.conversation("layoffs-2027", scope=SCOPE, visibility=["agent:a"]).add("the list", speaker="HR")


def _refusal(view: Memory, name: str) -> str:
    with pytest.raises(NotFoundError) as caught:
        view.conversation(name, scope=SCOPE)
    return str(caught.value).replace(name, "<name>")


def test_opening_a_hidden_name_and_a_free_one_answer_alike(mem: Memory) -> None:
    _hide(mem)
    b = mem.as_principal("agent:b")
    assert _refusal(b, "layoffs-2027") == _refusal(b, "layoffs-2028")
    assert [c.id for c in b.conversations(scope=SCOPE)] == []
    assert [c.id for c in mem.conversations(scope=SCOPE)] == ["layoffs-2027"]  # nothing was opened


def test_the_refusal_says_how_a_principal_opens_a_conversation(mem: Memory) -> None:
    message = _refusal(mem.as_principal("agent:b"), "standup")
    assert "agent:b+<name>" in message


def test_a_principal_opens_and_resumes_conversations_under_its_own_name(mem: Memory) -> None:
    b = mem.as_principal("agent:b")
    conv = b.conversation("agent:b+standup", scope=SCOPE)
    conv.add("hello from b", speaker="b")
    again = b.conversation("agent:b+standup", scope=SCOPE)
    assert [m.text for m in again.messages()] == ["hello from b"]
    # Open to everyone unless it says otherwise: another principal joins it by its name.
    c = mem.as_principal("agent:c").conversation("agent:b+standup", scope=SCOPE)
    assert [m.text for m in c.messages()] == ["hello from b"]


def test_a_principal_resumes_a_conversation_of_its_audience_by_any_name(mem: Memory) -> None:
    mem.conversation("team-chat", scope=SCOPE).add("public hello")
    mem.conversation("ab-only", scope=SCOPE, visibility=["agent:a", "agent:b"]).add("for a and b")
    b = mem.as_principal("agent:b")
    b.conversation("team-chat", scope=SCOPE).add("b here")
    assert [m.text for m in b.conversation("ab-only", scope=SCOPE).messages()] == ["for a and b"]


def test_another_principals_name_is_refused_alike_hidden_or_free(mem: Memory) -> None:
    mem.conversation("agent:a+plans", scope=SCOPE, visibility=["agent:a"]).add("secret plan")
    b = mem.as_principal("agent:b")
    assert _refusal(b, "agent:a+plans") == _refusal(b, "agent:a+other")


def test_a_conversation_under_a_principals_name_must_include_it(mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match=r"agent:b"):
        mem.conversation("agent:b+x", scope=SCOPE, visibility=["agent:a"])
    assert mem.conversations(scope=SCOPE) == []
    mem.conversation("agent:b+y", scope=SCOPE, visibility=["agent:a", "agent:b"])
    mem.conversation("agent:b+z", scope=SCOPE)  # everyone includes it
    # So under its own name nothing is hidden from a principal.
    b = mem.as_principal("agent:b")
    assert sorted(c.id for c in b.conversations(scope=SCOPE)) == ["agent:b+y", "agent:b+z"]


def test_http_principal_gets_the_same_answer_for_a_hidden_and_a_free_name(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "h.db", embedder="hash")
    _hide(mem)
    app = create_app(mem, token=OPERATOR, principals={AGENT: "agent:b"})
    with serving(app) as port:
        base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}/conversations"
        bob = {"Authorization": f"Bearer {AGENT}"}
        answers = []
        for name in ("layoffs-2027", "layoffs-2028"):
            r = httpx.post(f"{base}/{name}/messages", headers=bob, json={"text": "probe"})
            answers.append((r.status_code, r.text.replace(name, "<name>")))
        assert answers[0] == answers[1] and answers[0][0] == 404
        r = httpx.post(f"{base}/agent:b+notes/messages", headers=bob, json={"text": "mine"})
        assert r.status_code == 201, r.text
    assert [c.id for c in mem.conversations(scope=SCOPE)] == ["agent:b+notes", "layoffs-2027"]
    mem.close()


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(tool, args)
    return bool(result.is_error), result.content[0].text


@pytest.mark.anyio
async def test_mcp_principal_gets_the_same_answer_for_a_hidden_and_a_free_name(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db", embedder="hash")
    _hide(mem)
    b = mem.as_principal("agent:b")
    answers = []
    async with Client(build_server(b), mode="legacy", raise_exceptions=True) as client:
        for name in ("layoffs-2027", "layoffs-2028"):
            err, text = await _call(client, "conversation_add", {"scope": SCOPE, "conversation": name, "text": "x"})
            answers.append((err, text.replace(name, "<name>")))
        err, text = await _call(
            client, "conversation_add", {"scope": SCOPE, "conversation": "agent:b+notes", "text": "mine"}
        )
        assert not err, text
    assert answers[0] == answers[1] and answers[0][0]
    assert json.loads(answers[0][1])["code"] == "not_found"
    mem.close()


def test_a_principals_slice_import_places_a_hidden_name_and_a_free_one_alike(mem: Memory) -> None:
    _hide(mem)
    mem.conversation("talk", scope=SCOPE).add("hello there", speaker="Alice", role="user")
    b = mem.as_principal("agent:b")
    template = json.loads(b.export_slice(scope=SCOPE, include_conversations=True).to_json())
    placed = []
    for name in ("layoffs-2027", "layoffs-2028"):
        d = json.loads(json.dumps(template))
        (talk,) = d["sections"]["conversations"]
        talk["id"] = name
        report = b.import_slice(json.dumps(d), scope=SCOPE)
        placed.append(report.conversations[name].replace(name, "<name>"))
    assert placed == ["agent:b+<name>", "agent:b+<name>"]
    # The hidden conversation is untouched.
    assert [m.text for m in mem.conversation("layoffs-2027", scope=SCOPE).messages()] == ["the list"]
    assert sorted(c.id for c in b.conversations(scope=SCOPE)) == [
        "agent:b+layoffs-2027",
        "agent:b+layoffs-2028",
        "talk",
    ]
