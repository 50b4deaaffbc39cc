"""Issue #14.14, HTTP side: what an error or a write says about the face it came through.

Regressions: ``Memory``'s messages name Python calls ("call resume_learning('user:bob')",
"call undismiss(...)", "datetime.now(UTC)", "set_scores needs ..."), and they reached HTTP
clients and the review page unchanged, naming a call nobody there can make; and a claim
written over HTTP recorded ``provenance.origin`` ``api``, the same as one from Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from reverie import Memory

from .http_sec_helpers import SCOPE, V1, assert_error, open_client

#: What a Python call looks like inside a message: ``name(`` after a word boundary, or a
#: ``Memory.`` / ``mem.`` / ``reverie.`` attribute.
PYTHON = re.compile(r"\b[a-z_]+[a-z]\(|\bMemory\.|\bmem\.|\breverie\.[A-Za-z]")


@pytest.fixture
def client(mem: Memory) -> Iterator[TestClient]:
    with open_client(mem) as c:
        yield c


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match
    return match.group(1)


def plain(body: dict[str, Any]) -> str:
    text = str(body["error"])
    assert not PYTHON.search(text), f"a Python call leaked into an HTTP error: {text!r}"
    return text


def test_learning_paused_names_the_resume_route(client: TestClient, mem: Memory) -> None:
    scope = "team/alpha"
    mem.remember("alpha ships on Fridays", scope=scope)
    mem.pause_learning(scope)
    text = plain(assert_error(client.post("/v1/scopes/team%2Falpha/items", json={"text": "x"}), 409, "learning_paused"))
    assert "POST /v1/scopes/team%2Falpha/learning/resume" in text
    # following the instruction works
    assert client.post("/v1/scopes/team%2Falpha/learning/resume", json={}).status_code == 200
    assert client.post("/v1/scopes/team%2Falpha/items", json={"text": "x"}).status_code == 201


def test_learning_paused_on_the_review_page_names_its_button(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice lives in Paris", scope=SCOPE)
    mem.pause_learning(SCOPE)
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    r = client.post(
        "/ui/revise", data={"csrf": csrf_of(page), "scope": SCOPE, "id": item.id, "text": "Alice lives in Lyon"}
    )
    text = plain(assert_error(r, 409, "learning_paused"))
    assert "resume learning" in text
    assert mem.get(item.id, scope=SCOPE).text == "Alice lives in Paris"


def test_dismissed_value_names_the_undismiss_route_which_works(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice likes jazz", scope=SCOPE)
    mem.dismiss(item.id, scope=SCOPE)
    text = plain(assert_error(client.post(f"{V1}/items", json={"text": "Alice likes jazz"}), 409, "dismissed_value"))
    assert f"POST {V1}/undismiss" in text
    plain(assert_error(client.post(f"{V1}/undismiss", json={}), 400, "invalid_input"))
    assert client.post(f"{V1}/undismiss", json={"text": "Alice likes jazz", "reason": "she does"}).status_code == 200
    assert client.post(f"{V1}/items", json={"text": "Alice likes jazz"}).status_code == 201


def test_a_time_without_a_timezone_is_explained_in_iso_8601(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice likes jazz", scope=SCOPE)
    for response in (
        client.get(f"{V1}/items/{item.id}", params={"as_of": "2030-01-01T00:00:00"}),
        client.post(f"{V1}/recall", json={"query": "jazz", "as_of": "2030-01-01T00:00:00"}),
        client.post(f"{V1}/items", json={"text": "y", "valid_from": "2030-01-01T00:00:00"}),
    ):
        text = plain(assert_error(response, 400, "invalid_input"))
        assert "2030-01-01T00:00:00Z" in text or "+00:00" in text


def test_setting_no_score_on_the_page_says_what_to_fill_in(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice likes jazz", scope=SCOPE)
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    r = client.post("/ui/scores", data={"csrf": csrf_of(page), "scope": SCOPE, "id": item.id})
    text = plain(assert_error(r, 400, "invalid_input"))
    assert "set_scores" not in text and "authority" in text


def test_writes_through_http_record_origin_http(client: TestClient, mem: Memory) -> None:
    plain_write = client.post(f"{V1}/items", json={"text": "Alice likes tea"}).json()
    assert plain_write["provenance"]["origin"] == "http"
    assert mem.get(plain_write["id"], scope=SCOPE).provenance.origin == "http"
    with_ref = client.post(f"{V1}/items", json={"text": "Alice likes jazz", "provenance": {"ref": "chat-7"}}).json()
    assert with_ref["provenance"] == {**with_ref["provenance"], "origin": "http", "ref": "chat-7"}
    # a client that knows better names the origin itself
    told = client.post(f"{V1}/items", json={"text": "Alice likes rain", "provenance": {"origin": "document"}}).json()
    assert told["provenance"]["origin"] == "document"


def test_provenance_event_id_is_not_the_clients_to_set(client: TestClient) -> None:
    r = client.post(f"{V1}/items", json={"text": "x", "provenance": {"event_id": "forged"}})
    assert_error(r, 400, "invalid_input")


def test_an_unknown_alert_names_the_alerts_route(client: TestClient, mem: Memory) -> None:
    """Outside probe 2, finding 6: the dismissal of an unknown alert said "alerts(scope=...)"."""
    mem.remember("The deploy runs on Fridays", scope=SCOPE)
    scope_part = SCOPE.replace(":", "%3A").replace("/", "%2F")
    r = client.post(f"/v1/scopes/{scope_part}/alerts/al_0000000000000000/dismiss", json={})
    text = plain(assert_error(r, 404, "not_found"))
    assert "GET .../alerts" in text
