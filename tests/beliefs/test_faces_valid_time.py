"""The HTTP and MCP faces of valid time: revise with valid_from; valid_at on item, list and recall."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi.testclient import TestClient

from reverie import Memory
from reverie.http import create_app

URL = "/v1/scopes/user:alice"


def test_http_valid_from_and_valid_at(mem: Memory) -> None:
    old = mem.remember("Alice works at Acme", scope="user:alice", valid_from=datetime(2024, 1, 1, tzinfo=UTC))
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        revised = client.post(
            f"{URL}/items/{old.id}/revise", json={"text": "Alice works at Globex", "valid_from": "2026-03-01T00:00:00Z"}
        )
        assert revised.status_code == 200, revised.text
        new = revised.json()["id"]
        then = {"valid_at": "2025-06-01T00:00:00Z"}
        assert client.get(f"{URL}/items/{new}", params=then).json()["id"] == old.id
        assert [i["id"] for i in client.get(f"{URL}/items", params=then).json()["items"]] == [old.id]
        hits = client.post(f"{URL}/recall", json={"query": "Alice works", **then}).json()["hits"]
        assert [h["item"]["id"] for h in hits] == [old.id]
        naive = client.post(f"{URL}/recall", json={"query": "Alice works", "valid_at": "2025-06-01T00:00:00"})
        assert naive.status_code == 400 and naive.json()["code"] == "invalid_input"


def test_mcp_tools_take_valid_from_and_valid_at(mem: Memory) -> None:
    from reverie.mcp import handlers, tools

    schemas = {t.name: t.input_schema["properties"] for t in tools()}
    assert "valid_at" in schemas["recall"] and "valid_at" in schemas["get"] and "valid_from" in schemas["revise"]
    old = mem.remember("Alice works at Acme", scope="user:alice", valid_from=datetime(2024, 1, 1, tzinfo=UTC))
    args = {"scope": "user:alice", "id": old.id, "new_text": "Alice works at Globex", "valid_from": "2026-03-01T00:00Z"}
    new = handlers.revise(mem, args)["item"]["id"]
    then = {"scope": "user:alice", "valid_at": "2025-06-01T00:00:00+00:00"}
    assert handlers.get(mem, {**then, "id": new})["item"]["id"] == old.id
    assert [h["id"] for h in handlers.recall(mem, {**then, "query": "Alice works"})["hits"]] == [old.id]
