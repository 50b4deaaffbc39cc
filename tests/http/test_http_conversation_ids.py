"""Conversation ids and person names that contain ``/`` (issue #17), and message times far in the
future (issue #15), over a real uvicorn server.

``support/2026-12`` is a valid conversation id in Python, the CLI and MCP; over HTTP it is one
path segment sent percent-encoded (``support%2F2026-12``), as a scope is. The ASGI server decodes
``%2F`` before routing, which is why these tests need a real server: the id must reach the
endpoint whole, on every conversation route.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from http_helpers import SCOPE, assert_error, running

from reverie import Memory
from reverie.http import create_app

V1 = f"/v1/scopes/{SCOPE}"
SLASHED = ["support/2026-12", "a/b/c", "50%/off", "deux mots/été"]


def conv_url(conversation: str) -> str:
    """The route prefix of ``conversation``, encoded the way any HTTP client library encodes a path parameter."""
    return f"{V1}/conversations/{quote(conversation, safe='')}"


@pytest.fixture
def client(mem: Memory) -> Iterator[httpx.Client]:
    with running(create_app(mem)) as base, httpx.Client(base_url=base, timeout=30) as c:
        yield c


def _add(client: httpx.Client, conversation: str, text: str, **fields: Any) -> dict[str, Any]:
    r = client.post(f"{conv_url(conversation)}/messages", json={"text": text, "speaker": "Alice", **fields})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


@pytest.mark.parametrize("name", SLASHED)
def test_a_conversation_id_with_a_slash_works_on_every_route(client: httpx.Client, mem: Memory, name: str) -> None:
    first = _add(client, name, "My sister Dana lives in Lisbon.")
    assert first["conversation"] == name
    url = conv_url(name)
    entries = client.get(f"{url}/messages").json()["entries"]
    assert [e["id"] for e in entries] == [first["id"]] and entries[0]["conversation"] == name
    assert [e["id"] for e in client.get(f"{url}/history").json()["entries"]] == [first["id"]]
    tool = client.post(f"{url}/tool-calls", json={"name": "lookup"})
    assert tool.status_code == 201 and tool.json()["conversation"] == name, tool.text
    assert len(client.get(f"{url}/messages", params={"all": "true"}).json()["entries"]) == 2
    narrowed = client.post(f"{url}/messages/{first['id']}/visibility", json={"visibility": ["agent:a"]})
    assert narrowed.status_code == 200 and narrowed.json()["visibility"] == ["agent:a"], narrowed.text
    hits = client.get(f"{V1}/conversations/search", params={"q": "Dana", "conversation": name}).json()["hits"]
    assert [h["conversation"] for h in hits] == [name]
    closed = client.post(f"{url}/close")
    assert closed.status_code == 200 and closed.json()["recap"]["conversation"] == name, closed.text
    recap = client.get(f"{V1}/conversations/recap", params={"conversation": name}).json()["recap"]
    assert recap["conversation"] == name
    # The same conversation in Python: the id round-trips.
    assert [m.id for m in mem.conversation(name, scope=SCOPE, create=False).messages()] == [first["id"]]


def test_a_conversation_made_in_python_is_reachable_over_http(client: httpx.Client, mem: Memory) -> None:
    said = mem.conversation("support/2026-12", scope=SCOPE).add("hello from Python", speaker="Bob")
    entries = client.get(f"{conv_url('support/2026-12')}/messages").json()["entries"]
    assert [e["id"] for e in entries] == [said.id]
    _add(client, "support/2026-12", "and one over HTTP")
    assert len(mem.conversation("support/2026-12", scope=SCOPE, create=False).messages()) == 2


def test_ids_that_prefix_each_other_are_different_conversations(client: httpx.Client) -> None:
    _add(client, "support", "the parent")
    _add(client, "support/2026-12", "the child")
    assert [e["text"] for e in client.get(f"{conv_url('support')}/messages").json()["entries"]] == ["the parent"]
    child = client.get(f"{conv_url('support/2026-12')}/messages").json()["entries"]
    assert [e["text"] for e in child] == ["the child"]


def test_an_unencoded_slash_in_a_conversation_id_is_a_404_that_says_to_encode_it(client: httpx.Client) -> None:
    _add(client, "support/2026-12", "hello")
    body = assert_error(client.get(f"{V1}/conversations/support/2026-12/messages"), 404, "not_found")
    assert "%2F" in body["error"] and "conversation id" in body["error"], body


def test_an_unknown_slashed_conversation_is_not_found_not_a_missing_route(client: httpx.Client) -> None:
    body = assert_error(client.get(f"{conv_url('support/1999-01')}/history"), 404, "not_found")
    assert "'support/1999-01'" in body["error"], body


def test_a_person_name_with_a_slash_reaches_the_person_lookup(client: httpx.Client) -> None:
    body = assert_error(client.get(f"{V1}/people/{quote('AC/DC', safe='')}"), 404, "not_found")
    assert "no person 'AC/DC'" in body["error"], body


def test_the_openapi_document_says_to_encode_the_conversation_id(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    params = doc["paths"]["/v1/scopes/{scope}/conversations/{conversation}/messages"]["post"]["parameters"]
    [conversation] = [p for p in params if p["name"] == "conversation"]
    assert "%2F" in conversation["description"]


# -- issue #15 -----------------------------------------------------------------------------------


def test_a_message_dated_far_in_the_future_is_refused_and_the_conversation_goes_on(
    client: httpx.Client, mem: Memory
) -> None:
    _add(client, "c1", "hello")
    r = client.post(f"{conv_url('c1')}/messages", json={"text": "hi from 2099", "at": "2099-01-01T00:00:00Z"})
    body = assert_error(r, 400, "invalid_input")
    assert "2099-01-01T00:00:00+00:00" in body["error"] and "Limits.max_clock_skew_seconds" in body["error"], body
    assert mem.clock.now().isoformat() in body["error"], "names the server clock's now"
    _add(client, "c1", "back in the present")
    texts = [e["text"] for e in client.get(f"{conv_url('c1')}/messages").json()["entries"]]
    assert texts == ["hello", "back in the present"]
