"""``/v1/scopes/{scope}/conversations/…`` and ``…/people`` over a real app and SQLite file.

Every refusal is the one error shape and stores nothing; only ``POST …/messages`` opens a
conversation, so a mistyped id on any other route is 404, never a new empty conversation.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import Memory

V1 = f"/v1/scopes/{SCOPE}"
C1 = f"{V1}/conversations/c1"


def _talk(client: TestClient) -> list[dict[str, Any]]:
    said = []
    for text, at in (("My sister Dana lives in Lisbon.", "2024-12-31T23:59:00+00:00"), ("Omar is my manager.", None)):
        body: dict[str, Any] = {"text": text, "speaker": "Alice", **({"at": at} if at else {})}
        response = client.post(f"{C1}/messages", json=body)
        assert response.status_code == 201, response.text
        said.append(response.json())
    return said


def _count(client: TestClient) -> int:
    return len(client.get(f"{C1}/messages?all=true").json()["entries"])


def test_add_then_messages_and_history(client: TestClient) -> None:
    said = _talk(client)
    assert [m["turn"] for m in said] == [1, 2] and said[0]["speaker"] == "Alice" and said[0]["item_id"]
    texts = [e["text"] for e in client.get(f"{C1}/messages").json()["entries"]]
    assert texts == ["My sister Dana lives in Lisbon.", "Omar is my manager."]
    assert [e["text"] for e in client.get(f"{C1}/history").json()["entries"]] == texts


def test_search_returns_the_matched_span(client: TestClient) -> None:
    _talk(client)
    [hit] = client.get(f"{V1}/conversations/search", params={"q": "dana lives"}).json()["hits"]
    assert hit["quote"] == "Dana lives" and hit["text"][hit["span"][0] : hit["span"][1]] == "Dana lives"


def test_close_writes_the_recap_and_people_appear(client: TestClient) -> None:
    _talk(client)
    assert client.get(f"{V1}/conversations/recap").json() == {"recap": None}
    closed = client.post(f"{C1}/close")
    assert closed.status_code == 200 and closed.json()["recap"]["kind"] == "recap"
    assert closed.json()["extraction"]["claims"]
    assert client.get(f"{V1}/conversations/recap").json()["recap"]["conversation"] == "c1"
    names = {p["name"] for p in client.get(f"{V1}/people").json()["people"]}
    assert {"Alice", "Dana", "Omar"} <= names
    alice = client.get(f"{V1}/people/Alice").json()["person"]
    assert ("Dana", "sister", "Alice") in {(r["person_name"], r["type"], r["of_name"]) for r in alice["relations"]}


def test_regression_people_lists_relations_and_claim_counts_not_empty_claims(client: TestClient) -> None:
    """Outside probe, finding 7: ``GET …/people`` said every person had no relation and no claim."""
    _talk(client)
    client.post(f"{C1}/close")
    listed = {p["name"]: p for p in client.get(f"{V1}/people").json()["people"]}
    dana = client.get(f"{V1}/people/Dana").json()["person"]
    assert "claims" not in listed["Dana"] and listed["Dana"]["claim_count"] == len(dana["claims"]) > 0
    assert listed["Dana"]["relations"] == dana["relations"] != []
    schema = client.get("/openapi.json").json()["components"]["schemas"]["PeopleOut"]
    assert "claim_count" in schema["properties"]["people"]["description"]
    page = client.get("/people", params={"scope": SCOPE}, headers={"accept": "text/html"})
    assert page.status_code == 200, page.text
    [row] = [line for line in page.text.split("<tr") if ">Dana</a>" in line]
    assert "Dana is Alice&#x27;s sister" in row and f'<td class="claims">{len(dana["claims"])}</td>' in row


def test_tool_calls_are_recorded_between_messages(client: TestClient) -> None:
    _talk(client)
    response = client.post(f"{C1}/tool-calls", json={"name": "weather", "args": {"city": "Lisbon"}})
    assert response.status_code == 201 and response.json()["meta"]["args"] == {"city": "Lisbon"}
    assert _count(client) == 3


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("get", "/history"), ("get", "/messages"), ("post", "/close"), ("post", "/tool-calls")],
)
def test_an_unknown_conversation_is_404_and_is_not_created(
    client: TestClient, mem: Memory, method: str, suffix: str
) -> None:
    _talk(client)
    url = f"{V1}/conversations/nope{suffix}"
    response = client.post(url, json={"name": "x"}) if method == "post" else client.get(url)
    body = assert_error(response, 404, "not_found")
    assert "mem." not in body["error"]
    assert [c.id for c in mem.conversations(scope=SCOPE)] == ["c1"]


def test_an_unknown_person_is_404(client: TestClient) -> None:
    _talk(client)
    body = assert_error(client.get(f"{V1}/people/Zed"), 404, "not_found")
    assert "mem." not in body["error"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"text": "x" * 40_000}, 400, "limit_exceeded"),  # over Limits.max_text_chars: the core refuses
        ({"text": "hi", "speaker": "Al\x1bice"}, 400, "invalid_input"),
        ({"text": "late", "at": "2024-01-01T00:00:00+00:00"}, 400, "invalid_input"),
        ({"text": "hi", "colour": "red"}, 400, "invalid_input"),
        ({"text": "hi", "role": "boss"}, 400, "invalid_input"),
    ],
)
def test_bad_messages_are_refused_and_nothing_is_stored(
    client: TestClient, body: dict[str, Any], status: int, code: str
) -> None:
    _talk(client)
    response = client.post(f"{C1}/messages", json=body)
    assert_error(response, status, code)
    assert _count(client) == 2


def test_a_huge_tool_call_args_blob_is_refused(client: TestClient) -> None:
    _talk(client)
    response = client.post(f"{C1}/tool-calls", json={"name": "upload", "args": {"data": "x" * 20_000}})
    assert_error(response, 400, "limit_exceeded")
    assert _count(client) == 2


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    head=st.text(alphabet=st.characters(categories=["L"]), min_size=1, max_size=8),
    control=st.sampled_from(["\x00", "\x07", "\x1b", "\n", "\r", "\t", "\x7f", "\u200b", "\u202e"]),
)
def test_any_speaker_with_a_control_or_format_character_is_refused(client: TestClient, head: str, control: str) -> None:
    """Property: whatever the name around it, a control or format character in the speaker is a 400
    and the archive keeps exactly what it had."""
    before = len(client.get(f"{C1}/messages?all=true").json().get("entries", []))
    response = client.post(f"{C1}/messages", json={"text": "hello", "speaker": head + control})
    assert_error(response, 400, "invalid_input")
    assert len(client.get(f"{C1}/messages?all=true").json().get("entries", [])) == before


def test_a_refused_first_message_does_not_open_the_conversation(client: TestClient, mem: Memory) -> None:
    """Regression: POST …/messages opened the conversation before the message was checked."""
    assert_error(client.post(f"{C1}/messages", json={"text": "x" * 40_000}), 400, "limit_exceeded")
    assert mem.conversations(scope=SCOPE) == []


def test_regression_people_routes_and_pages_show_a_revised_relation_by_its_current_words(client: TestClient) -> None:
    """Session 31: after ``revise`` of "Dana is Alice's sister." to "… cousin." the faces still said sister."""
    _talk(client)
    client.post(f"{C1}/close")
    [rel] = [r for r in client.get(f"{V1}/people/Dana").json()["person"]["relations"] if r["type"] == "sister"]
    revised = client.post(f"{V1}/items/{rel['claim']}/revise", json={"text": "Dana is Alice's cousin."})
    assert revised.status_code == 200, revised.text
    alice = client.get(f"{V1}/people/Alice").json()["person"]
    assert {(r["person_name"], r["type"]) for r in alice["relations"]} >= {("Dana", "cousin")}
    assert "sister" not in {r["type"] for r in alice["relations"]}
    listed = {p["name"]: p for p in client.get(f"{V1}/people").json()["people"]}
    assert [r["type"] for r in listed["Dana"]["relations"]] == ["cousin"]
    html = {"accept": "text/html"}
    page = client.get("/person", params={"scope": SCOPE, "name": "Dana"}, headers=html).text
    listing = client.get("/people", params={"scope": SCOPE}, headers=html).text
    for shown in (page, listing):
        assert "Dana is Alice&#x27;s cousin" in shown and "Dana is Alice&#x27;s sister" not in shown
