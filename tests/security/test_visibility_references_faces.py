"""The parents leak through every face: a principal's view of a claim derived from a hidden one.

The concealment happens once, in ``VisibleStore`` (``test_visibility_references.py`` pins it
on every backend); these tests pin that no face re-derives the hidden id on its own — the CLI's
provenance tree, the HTTP API and review page (item page, neighbourhood graph, slice export),
and the MCP tools — and that a filter naming the hidden id is no oracle there either.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory
from reverie.http import create_app
from reverie.mcp import build_server

sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))  # the CLI suite's runner (tests/ has no packages)
sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))

from cli_support import SCOPE, Cli
from mcp_support import call

OPERATOR = "operator-token-0123456789"
AGENT = "agent-bob-token-0123456789"
OPS, BOB = "agent:ops", "agent:bob"


def _seed(db: Path) -> tuple[str, str]:
    """A hidden claim and a public one derived from it (parents, meta, provenance, an edge's meta)."""
    with Memory(db, embedder="hash") as mem:
        hidden = mem.remember("zqhid secret plan", scope=SCOPE, visibility=[OPS]).id
        derived = mem.remember(
            "zqpub public note from the plan",
            scope=SCOPE,
            parents=[hidden],
            meta={"see": hidden},
            provenance={"origin": "tool", "ref": hidden, "locator": hidden},
        ).id
        plain = mem.remember("zqpub plain public note", scope=SCOPE).id
        mem.link(derived, plain, "supports", scope=SCOPE, meta={"because": hidden})
    return hidden, derived


def _clean(text: str, hidden: str) -> None:
    assert hidden not in text and "zqhid" not in text


def test_cli_show_list_recall_and_slice_export_name_no_hidden_parent(tmp_path: Path) -> None:
    run = Cli(tmp_path / "r.db")
    hidden, derived = _seed(run.db)
    as_bob = ("--principal", BOB)
    shown = run.json(*as_bob, "show", derived)
    assert shown["item"]["parents"] == [] and shown["parents"] == []
    _clean(json.dumps(shown), hidden)
    _clean(run.ok(*as_bob, "show", derived).stdout, hidden)  # the people's table, provenance tree included
    assert run.json(*as_bob, "list", "--parent", hidden)["items"] == []
    _clean(json.dumps(run.json(*as_bob, "list", "--include-closed")), hidden)
    _clean(json.dumps(run.json(*as_bob, "recall", "zqpub public note plan", "--why")), hidden)
    _clean(run.ok(*as_bob, "slice", "export").stdout, hidden)
    owner = run.json("show", derived)
    assert owner["item"]["parents"] == [hidden] and owner["parents"][0]["id"] == hidden


def test_http_api_and_review_page_name_no_hidden_parent(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    hidden, derived = _seed(db)
    mem = Memory(db, embedder="hash")
    base = f"/v1/scopes/{SCOPE}"
    agent = {"Authorization": f"Bearer {AGENT}"}
    with TestClient(create_app(mem, token=OPERATOR, principals={AGENT: BOB}), base_url="http://127.0.0.1") as http:
        got = http.get(f"{base}/items/{derived}", headers=agent)
        assert got.status_code == 200 and got.json()["parents"] == []
        bodies = [
            got.text,
            http.get(f"{base}/items", headers=agent, params={"include_closed": "true"}).text,
            http.get(f"{base}/items/{derived}/history", headers=agent).text,
            http.post(f"{base}/recall", headers=agent, json={"query": "zqpub public note plan"}).text,
            http.post(f"{base}/slices/export", headers=agent, json={}).text,
        ]
        for body in bodies:
            _clean(body, hidden)
        oracle = http.get(f"{base}/items", headers=agent, params={"where": json.dumps({"parent": hidden})})
        assert oracle.status_code == 200 and oracle.json()["items"] == []
        operator = {"Authorization": f"Bearer {OPERATOR}"}
        assert http.get(f"{base}/items/{derived}", headers=operator).json()["parents"] == [hidden]
    mem.close()
    # The review page served for a principal (``reverie serve --principal``): item page and graph.
    bob = Memory(db, embedder="hash", principal=BOB)
    with TestClient(create_app(bob), base_url="http://127.0.0.1") as page:
        html = page.get(f"/items/{derived}", params={"scope": SCOPE})
        assert html.status_code == 200 and "zqpub public note" in html.text
        _clean(html.text, hidden)
        scope_page = page.get("/", params={"scope": SCOPE})
        assert scope_page.status_code == 200 and "zqpub plain public note" in scope_page.text
        _clean(scope_page.text, hidden)
    bob.close()


@pytest.mark.anyio
async def test_mcp_tools_name_no_hidden_parent(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    hidden, derived = _seed(db)
    with Memory(db, embedder="hash", principal=BOB) as bob:
        async with Client(build_server(bob), mode="legacy", raise_exceptions=True) as client:
            got: dict[str, Any] = await call(client, "get", id=derived, scope=SCOPE)
            seen = [
                got,
                await call(client, "list", scope=SCOPE, include_closed=True),
                await call(client, "history", id=derived, scope=SCOPE),
                await call(client, "recall", query="zqpub public note plan", scope=SCOPE),
                await call(client, "slice_export", scope=SCOPE),
            ]
            _clean(json.dumps(seen), hidden)
            oracle = await call(client, "list", scope=SCOPE, where={"parent": hidden})
            assert oracle["items"] == []
