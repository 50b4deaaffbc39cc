"""What a read says for "visible to everyone" is what a write takes for it, on every face.

Regression (outside probe, finding 18): a claim visible to everyone was *shown* as an empty
audience — ``Item.visibility == ()`` in Python, ``"visibility": []`` in the HTTP item JSON — the
very value every write refuses ("an empty list would hide the claim from everyone"), and which
a client reading it literally takes for "nobody". Now everyone is ``None`` / ``null`` on the way
out as on the way in (Python, HTTP, MCP, CLI ``--json``, slices, exported events), a restricted
audience is the sorted list of principals, and copying an item's own ``visibility`` into a write
keeps its audience. An empty list is still refused.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from reverie import InvalidInputError, Memory
from reverie.http import create_app
from reverie.mcp import build_server

from .http_sec_helpers import serving

SCOPE = "user:alice"


def _cli(db: Path) -> Any:
    """The CLI suite's in-process runner on a real SQLite file (tests/ has no packages)."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))
    from cli_support import Cli

    return Cli(db)


@pytest.fixture
def mem(store_url: str) -> Any:
    with Memory(store_url, embedder="hash") as m:
        yield m


def test_python_item_says_none_for_everyone_and_a_write_takes_it_back(mem: Memory) -> None:
    open_ = mem.remember("The quota is 1024", scope=SCOPE)
    assert open_.visibility is None
    assert mem.get(open_.id, scope=SCOPE).visibility is None
    copy = mem.remember("The quota doubles in May", scope=SCOPE, visibility=open_.visibility)
    assert copy.visibility is None and mem.as_principal("agent:x").get(copy.id, scope=SCOPE).text
    secret = mem.remember("The vault code is 9911", scope=SCOPE, visibility=["agent:ops", "agent:a"])
    assert secret.visibility == ("agent:a", "agent:ops")
    same = mem.remember("The vault is in room 4", scope=SCOPE, visibility=secret.visibility)
    assert same.visibility == secret.visibility
    widened = mem.set_visibility(secret.id, scope=SCOPE, visibility=open_.visibility)
    assert widened.visibility is None
    assert mem.set_visibility(secret.id, scope=SCOPE, visibility=same.visibility).visibility == same.visibility
    with pytest.raises(InvalidInputError, match="empty list"):
        mem.remember("The safe code is 4411", scope=SCOPE, visibility=[])


def test_a_widened_claim_reads_none_after_a_rebuild_and_its_event_says_null(mem: Memory) -> None:
    secret = mem.remember("The vault code is 9911", scope=SCOPE, visibility=["agent:ops"])
    mem.set_visibility(secret.id, scope=SCOPE, visibility=None)
    [event] = [e for e in mem.events(scope=SCOPE) if e.type == "memory.visibility_set"]
    assert event.payload["visibility"] is None
    mem.rebuild()
    assert mem.get(secret.id, scope=SCOPE).visibility is None
    assert mem.as_principal("agent:x").get(secret.id, scope=SCOPE).text == "The vault code is 9911"


def test_http_item_json_says_null_for_everyone_and_posting_it_back_is_accepted(tmp_path: Path) -> None:
    with Memory(tmp_path / "h.db", embedder="hash") as mem, serving(create_app(mem)) as port:
        url = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}/items"
        made = httpx.post(url, json={"text": "The quota is 1024"})
        assert made.status_code == 201, made.text
        item = made.json()
        assert item["visibility"] is None
        assert httpx.get(f"{url}/{item['id']}").json()["visibility"] is None
        again = httpx.post(url, json={"text": "The quota doubles in May", "visibility": item["visibility"]})
        assert again.status_code == 201 and again.json()["visibility"] is None
        narrow = httpx.post(url, json={"text": "The vault code is 9911", "visibility": ["agent:ops"]}).json()
        assert narrow["visibility"] == ["agent:ops"]
        assert httpx.post(url, json={"text": "x", "visibility": []}).status_code == 400


def test_mcp_item_says_null_for_everyone_and_remember_takes_it_back(tmp_path: Path) -> None:
    async def go() -> list[dict[str, Any]]:
        with Memory(tmp_path / "m.db", embedder="hash") as mem:
            async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
                first = await client.call_tool("remember", {"text": "The quota is 1024", "scope": SCOPE})
                item = json.loads(first.content[0].text)["item"]
                args = {"text": "The quota doubles in May", "scope": SCOPE, "visibility": item["visibility"]}
                second = await client.call_tool("remember", args)
                assert not second.is_error, second.content[0].text
                return [item, json.loads(second.content[0].text)["item"]]

    items = anyio.run(go)
    assert [i["visibility"] for i in items] == [None, None]


def test_cli_json_and_exported_events_say_null_for_everyone(tmp_path: Path) -> None:
    run = _cli(tmp_path / "c.db")
    item = run.json("remember", "The quota is 1024")["item"]
    assert item["visibility"] is None
    assert run.json("show", item["id"])["item"]["visibility"] is None
    restricted = run.json("remember", "The vault code is 9911", "--visible-to", "agent:ops")["item"]
    assert restricted["visibility"] == ["agent:ops"]
    events = [json.loads(line) for line in run.ok("export").stdout.splitlines()]
    assert [e["payload"]["item"]["visibility"] for e in events] == [None, ["agent:ops"]]
    report = run.json("import", "-", scope="user:copy", input=run.ok("export").stdout)
    assert report["failed"] == []
    shown = {i["text"]: i["visibility"] for i in run.json("list", scope="user:copy")["items"]}
    assert shown == {"The quota is 1024": None, "The vault code is 9911": ["agent:ops"]}


def test_a_slice_says_null_for_everyone_and_imports_it(mem: Memory) -> None:
    open_ = mem.remember("The quota is 1024", scope=SCOPE)
    sl = mem.export_slice(scope=SCOPE, memory_ids=[open_.id])
    data = json.loads(sl.to_json())
    assert [i.get("visibility") for i in data["items"]] == [None]
    report = mem.import_slice(sl, scope="user:copy")
    assert mem.get(report.ids[open_.id], scope="user:copy").visibility is None
