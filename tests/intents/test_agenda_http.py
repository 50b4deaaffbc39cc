"""HTTP routes for intents and tasks: one ``Memory`` call each, every refusal in the one error shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from agenda_kit import OTHER, SCOPE
from fastapi.testclient import TestClient

from reverie import Memory
from reverie.http import create_app


@pytest.fixture
def client(mem: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(mem), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def _url(path: str, scope: str = SCOPE) -> str:
    return f"/v1/scopes/{quote(scope, safe='')}{path}"


def _error(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "error", "status"} and body["code"] == code and body["status"] == status
    return str(body["error"])


def test_intent_and_task_lifecycle_over_http(client: TestClient, mem: Memory) -> None:
    claim = mem.remember("Alice may be allergic to peanuts", scope=SCOPE)
    made = client.post(_url("/intents"), json={"label": "confirm it", "owner": "ann", "memory_ids": [claim.id]})
    assert made.status_code == 201, made.text
    goal = made.json()
    assert client.post(_url(f"/intents/{goal['id']}/pause"), json={"reason": "later"}).json()["status"] == "paused"
    task = client.post(_url("/tasks"), json={"action": "ask", "intent": goal["id"], "inputs": [claim.id]}).json()
    for move, body in (("start", {}), ("fail", {"reason": "no answer"}), ("retry", {})):
        assert client.post(_url(f"/tasks/{task['id']}/{move}"), json=body).status_code == 200
    done = client.post(_url(f"/tasks/{task['id']}/complete"), json={"outputs": [claim.id]}).json()
    assert (done["status"], done["outputs"], done["failures"][0]["reason"]) == ("completed", [claim.id], "no answer")
    detail = client.get(_url(f"/intents/{goal['id']}")).json()
    assert [t["id"] for t in detail["tasks"]] == [task["id"]]
    assert [e["type"] for e in detail["history"]] == ["intent.created", "intent.paused"]
    listed = client.get(_url("/tasks"), params={"failed": "true"}).json()["tasks"]
    assert [t["id"] for t in listed] == [task["id"]]
    assert (
        client.get(_url("/intents"), params={"status": "paused", "owner": "ann"}).json()["intents"][0]["id"]
        == goal["id"]
    )
    assert len(client.get(_url(f"/tasks/{task['id']}")).json()["history"]) == 5


def test_an_invalid_move_is_409_and_changes_nothing(client: TestClient, mem: Memory) -> None:
    goal = client.post(_url("/intents"), json={"label": "g"}).json()
    client.post(_url(f"/intents/{goal['id']}/cancel"), json={})
    before = mem.events(scope=SCOPE)
    text = _error(client.post(_url(f"/intents/{goal['id']}/resume"), json={}), 409, "invalid_transition")
    assert "it is cancelled" in text
    assert mem.events(scope=SCOPE) == before


def test_a_task_for_another_scopes_intent_is_404(client: TestClient, mem: Memory) -> None:
    theirs = client.post(_url("/intents", OTHER), json={"label": "Bob's"}).json()
    _error(client.post(_url("/tasks"), json={"action": "x", "intent": theirs["id"]}), 404, "not_found")
    _error(client.get(_url(f"/intents/{theirs['id']}")), 404, "not_found")
    assert mem.tasks.list(scope=SCOPE) == []


def test_bad_input_is_400_in_the_one_shape(client: TestClient) -> None:
    _error(client.post(_url("/intents"), json={"label": "g", "priority": 7}), 400, "invalid_input")
    _error(client.post(_url("/intents"), json={"label": "g", "colour": "red"}), 400, "invalid_input")
    _error(client.get(_url("/tasks"), params={"status": "done"}), 400, "invalid_input")


def test_suggestions_are_listed_and_accepted(client: TestClient, mem: Memory) -> None:
    shaky = mem.remember("the meeting may be Friday", scope=SCOPE, importance=0.9, authority=0.2)
    found = client.get(_url("/intents/suggestions")).json()["suggestions"]
    assert [s["memory_ids"] for s in found] == [[shaky.id]] and mem.intents.list(scope=SCOPE) == []
    made = client.post(_url("/intents/suggestions/accept"), json={"memory_id": shaky.id, "owner": "ann"})
    assert made.status_code == 201 and made.json()["memory_ids"] == [shaky.id]
    _error(client.post(_url("/intents/suggestions/accept"), json={"memory_id": shaky.id}), 404, "not_found")
