"""Regression (outside tester, privacy): ``visibility=[]`` opened a claim to every principal.

``remember(..., visibility=[])`` stored the claim with visibility ``()`` — the encoding of
*everyone in the scope* — and ``set_visibility(id, visibility=[])`` turned a restricted claim
into one every principal could read. Whoever passes an empty list most likely meant "nobody
else" (or built the list from an empty lookup), so reading it as "everyone" is the one wrong
answer. It is refused on every face with a message naming both ways to say what was meant,
and nothing is stored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from reverie import Candidate, Memory
from reverie.errors import InvalidInputError
from reverie.http import create_app

from .http_sec_helpers import serving

SCOPE = "user:alice"


def _says_how_to_fix(message: str) -> None:
    assert "would hide the claim from everyone" in message, message
    assert "None" in message or "leave it out" in message or "omit" in message, message
    assert "at least one principal" in message, message


def _cli(db: Path) -> Any:
    """The CLI suite's in-process runner on a real SQLite file (tests/ has no packages)."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))
    from cli_support import Cli

    return Cli(db)


def _nothing_stored(mem: Memory, before: int) -> None:
    assert len(mem.events(scope=SCOPE)) == before


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "v.db", embedder="hash")
    m.remember("baseline", scope=SCOPE)
    return m


def test_remember_refuses_an_empty_visibility_list_and_stores_nothing(mem: Memory) -> None:
    before = len(mem.events(scope=SCOPE))
    for call in (
        lambda: mem.remember("the safe code is 4411", scope=SCOPE, visibility=[]),
        lambda: mem.remember_checked("the safe code is 4411", scope=SCOPE, visibility=()),
        lambda: mem.remember_manual("the safe code is 4411", scope=SCOPE, visibility=[]),
        lambda: mem.remember_many([{"text": "the safe code is 4411", "visibility": []}], scope=SCOPE),
        lambda: mem.remember_many([Candidate("the safe code is 4411", visibility=())], scope=SCOPE),
        lambda: mem.remember_imported("the safe code is 4411", scope=SCOPE, original_source="observed", visibility=[]),
    ):
        with pytest.raises(InvalidInputError) as info:
            call()
        _says_how_to_fix(info.value.message)
    _nothing_stored(mem, before)
    assert "4411" not in json.dumps([i.text for i in mem.list(scope=SCOPE, include_closed=True).items])


def test_set_visibility_refuses_an_empty_list_and_the_claim_stays_restricted(mem: Memory) -> None:
    secret = mem.remember("secret two", scope=SCOPE, visibility=["agent:ops"])
    before = len(mem.events(scope=SCOPE))
    with pytest.raises(InvalidInputError) as info:
        mem.set_visibility(secret.id, scope=SCOPE, visibility=[])
    _says_how_to_fix(info.value.message)
    _nothing_stored(mem, before)
    assert mem.get(secret.id, scope=SCOPE).visibility == ("agent:ops",)
    assert secret.id not in [i.id for i in mem.as_principal("agent:stranger").list(scope=SCOPE).items]
    # None still means everyone in the scope, as documented.
    assert mem.set_visibility(secret.id, scope=SCOPE, visibility=None).visibility is None


def test_a_restricted_claims_revision_keeps_its_audience(mem: Memory) -> None:
    secret = mem.remember("the vault opens at 9", scope=SCOPE, visibility=["agent:ops"])
    new = mem.revise(secret.id, "the vault opens at 10", scope=SCOPE)
    assert new.visibility == ("agent:ops",)
    assert [i.id for i in mem.as_principal("agent:stranger").list(scope=SCOPE).items if "vault" in i.text] == []


def test_cli_import_refuses_an_empty_visibility_carried_by_a_file(tmp_path: Path) -> None:
    """An export line carries a restricted claim's visibility; edited to an empty list, it is
    refused like any other empty list (never read as everyone)."""
    run = _cli(tmp_path / "src.db")
    run.remember("imported secret", "--visible-to", "agent:ops")
    out = tmp_path / "export.jsonl"
    run.ok("export", "--out", str(out))
    text = out.read_text()
    assert '"visibility": ["agent:ops"]' in text
    out.write_text(text.replace('"visibility": ["agent:ops"]', '"visibility": []'))
    target = _cli(tmp_path / "dst.db")
    target.remember("baseline")
    result = target("--json", "import", str(out))
    assert result.exit_code == 1, result.output  # a partial import: what failed is reported, not hidden
    [failed] = json.loads(result.stdout)["failed"]
    assert failed["code"] == "invalid_input"
    _says_how_to_fix(failed["error"])
    assert "imported secret" not in json.dumps(target.json("list", "--include-closed"))


def test_cli_import_keeps_a_restricted_claims_audience(tmp_path: Path) -> None:
    """Regression found beside the empty list: import dropped visibility, so an exported secret
    came back readable by every principal of the target scope."""
    run = _cli(tmp_path / "src.db")
    secret = run.remember("the payroll password is hunter2", "--visible-to", "agent:ops")
    again = run.remember("the payroll password is hunter2", "--visible-to", "agent:ops")  # corroborated
    assert again == secret
    opened = run.remember("the door code is 7781")
    with Memory(tmp_path / "src.db", embedder="hash") as src:  # set_visibility is a Python call
        src.set_visibility(opened, scope=SCOPE, visibility=["agent:ops"])
    run.remember("public note")
    out = tmp_path / "export.jsonl"
    run.ok("export", "--out", str(out))
    target = _cli(tmp_path / "dst.db")
    target.json("import", str(out), scope="user:bob")
    stranger = target.json("--principal", "agent:stranger", "list", scope="user:bob")
    assert "public note" in json.dumps(stranger)
    assert "hunter2" not in json.dumps(stranger) and "7781" not in json.dumps(stranger)
    ops = target.json("--principal", "agent:ops", "list", scope="user:bob")["items"]
    assert {i["text"]: i["evidence_count"] for i in ops if "public" not in i["text"]} == {
        "the payroll password is hunter2": 2,
        "the door code is 7781": 1,
    }


def test_http_refuses_an_empty_visibility_list(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "h.db", embedder="hash")
    mem.remember("baseline", scope=SCOPE)
    before = len(mem.events(scope=SCOPE))
    with serving(create_app(mem)) as port:
        url = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}/items"
        refused = httpx.post(url, json={"text": "the safe code is 4411", "visibility": []})
        assert refused.status_code == 400, refused.text
        body = refused.json()
        assert set(body) == {"code", "error", "status"} and body["code"] == "invalid_input"
        _says_how_to_fix(body["error"])
        # Leaving it out (or null) is everyone in the scope, as before.
        assert httpx.post(url, json={"text": "open note", "visibility": None}).status_code == 201
    _nothing_stored(mem, before + 1)
    assert "4411" not in json.dumps([i.text for i in mem.list(scope=SCOPE, include_closed=True).items])
    mem.close()


def test_mcp_stdio_refuses_an_empty_visibility_list(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reverie.mcp", "--db", str(db), "--create", "--embedder", "hash"]
    )

    async def go() -> tuple[bool, dict[str, object]]:
        async with Client(params, mode="legacy") as client:
            args = {"text": "the safe code is 4411", "scope": SCOPE, "visibility": []}
            result = await client.call_tool("remember", args)
        return bool(result.is_error), json.loads(result.content[0].text)

    is_error, payload = anyio.run(go)
    assert is_error and payload["code"] == "invalid_input", payload
    _says_how_to_fix(str(payload["error"]))
    with Memory(db, embedder="hash") as mem:
        assert mem.list(scope=SCOPE, include_closed=True).items == []
