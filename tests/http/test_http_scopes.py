"""Scopes containing '/' in ``/v1/scopes/{scope}/…`` paths, and the JSON filter of the API.

A scope such as ``team/alpha`` is one path segment sent percent-encoded (``team%2Falpha``).
Every route family is driven with such scopes through the in-process client (an httpx
client) and, once, through a real uvicorn server over a socket — the ASGI server is what
decodes ``%2F`` before routing, so the in-process client alone could not prove it works.
Isolation is checked between scopes that prefix each other (``team`` / ``team/alpha`` /
``team/alpha/x``).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient
from http_helpers import assert_error, running

from reverie import Memory
from reverie.http import create_app

SLASHED = ["team/alpha", "user:alice/work", "a/b/c-d.e@f_g"]


def v1(scope: str) -> str:
    """The route prefix for ``scope``, encoded the way any HTTP client library would."""
    return f"/v1/scopes/{quote(scope, safe='')}"


def remember(client: httpx.Client, scope: str, text: str, **fields: Any) -> dict[str, Any]:
    r = client.post(f"{v1(scope)}/items", json={"text": text, **fields})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def exercise_every_route(client: httpx.Client, mem: Memory, scope: str) -> None:
    """One call of every /v1 route family for ``scope``; each must act on exactly that scope."""
    base = v1(scope)
    a = remember(client, scope, "The meeting is on Monday", source="user_stated", tags=["cal"])
    b = remember(client, scope, "The meeting is on Tuesday", source="inferred")
    assert a["scope"] == b["scope"] == scope

    listed = client.get(f"{base}/items").json()
    assert {i["id"] for i in listed["items"]} == {a["id"], b["id"]}
    assert client.get(f"{base}/items/{a['id']}").json()["scope"] == scope
    assert client.post(f"{base}/recall", json={"query": "meeting"}).json()["hits"]
    assert "meeting" in client.post(f"{base}/context", json={"query": "meeting"}).json()["context"]
    assert client.get(f"{base}/summary").json()["scope"] == scope

    edge = client.post(f"{base}/edges", json={"src": a["id"], "dst": b["id"], "type": "contradicts"})
    assert edge.status_code == 201 and edge.json()["scope"] == scope, edge.text
    queue = client.get(f"{base}/contradictions").json()["contradictions"]
    assert queue, "the conflict is listed for its own scope"
    kept = client.post(f"{base}/contradictions/{queue[0]['edge_id']}/resolve", json={"keep": a["id"]})
    assert kept.status_code == 200 and kept.json()["id"] == a["id"], kept.text

    new = client.post(f"{base}/items/{a['id']}/revise", json={"text": "The meeting is on Wednesday"}).json()
    assert new["scope"] == scope
    versions = [v["text"] for v in client.get(f"{base}/items/{new['id']}/history").json()["versions"]]
    assert {"The meeting is on Monday", "The meeting is on Wednesday"} <= set(versions)
    c = remember(client, scope, "a claim to forget")
    assert client.post(f"{base}/items/{c['id']}/forget", json={}).json()["status"] == "forgotten"
    d = remember(client, scope, "a claim to dismiss")
    assert client.post(f"{base}/items/{d['id']}/dismiss", json={}).json()["status"] == "dismissed"

    assert client.post(f"{base}/learning/pause", json={}).json()["learning_paused"] is True
    assert mem.summary(scope=scope)["learning_paused"] is True
    assert client.post(f"{base}/learning/resume", json={}).json()["learning_paused"] is False

    # Everything above landed in this scope and nowhere else.
    assert mem.get(new["id"], scope=scope).text == "The meeting is on Wednesday"
    assert all(s == scope or not s.startswith(scope.split("/")[0]) for s in mem.scopes()), mem.scopes()


@pytest.mark.parametrize("scope", SLASHED)
def test_every_route_family_works_for_a_scope_with_a_slash(client: TestClient, mem: Memory, scope: str) -> None:
    exercise_every_route(client, mem, scope)


def test_dream_route_with_a_slashed_scope(client: TestClient, mem: Memory) -> None:
    mem.remember("Alice drinks green tea every morning", scope="team/alpha")
    planned = client.post(f"{v1('team/alpha')}/dream", params={"dry_run": "true"})
    assert planned.status_code == 200, planned.text
    assert planned.json()["report"]["scope"] == "team/alpha"
    assert planned.json()["report"]["dry_run"] is True
    done = client.post(f"{v1('team/alpha')}/dream")
    runs = client.get(f"{v1('team/alpha')}/dream/runs")
    assert runs.status_code == 200, runs.text
    assert [r["at"] for r in runs.json()["runs"]] == [done.json()["report"]["at"]]
    assert client.get(f"{v1('team')}/dream/runs").json() == {"runs": []}  # the parent scope sees none


def test_colon_and_at_may_be_sent_unencoded(client: TestClient) -> None:
    item = remember(client, "user:alice/work", "Alice works on Tuesdays")
    raw = client.get(f"/v1/scopes/user:alice%2Fwork/items/{item['id']}")
    assert raw.status_code == 200 and raw.json()["scope"] == "user:alice/work"
    encoded = client.get(f"/v1/scopes/user%3Aalice%2Fwork/items/{item['id']}")
    assert encoded.json() == raw.json()


def test_scopes_that_prefix_each_other_stay_isolated(client: TestClient, mem: Memory) -> None:
    scopes = ["team", "team/alpha", "team/alpha/x", "team-alpha"]
    ids = {s: remember(client, s, f"the launch code is {s}")["id"] for s in scopes}
    for scope in scopes:
        base = v1(scope)
        listed = [i["id"] for i in client.get(f"{base}/items").json()["items"]]
        assert listed == [ids[scope]], (scope, listed)
        hits = client.post(f"{base}/recall", json={"query": "launch code", "k": 10}).json()["hits"]
        assert [h["item"]["id"] for h in hits] == [ids[scope]]
        assert client.get(f"{base}/summary").json()["current"] == 1
        for other in scopes:
            if other != scope:
                foreign = client.get(f"{base}/items/{ids[other]}")
                body = assert_error(foreign, 404, "not_found")
                assert ids[other] in body["error"]
                assert_error(client.post(f"{base}/items/{ids[other]}/forget", json={}), 404, "not_found")
    assert all(mem.get(i, scope=s).is_current for s, i in ids.items())


def test_a_raw_slash_is_a_404_that_says_how_to_encode(client: TestClient, mem: Memory) -> None:
    item = remember(client, "team/alpha", "alpha only")
    remember(client, "team", "team only")
    for path in (
        "/v1/scopes/team/alpha/items",
        f"/v1/scopes/team/alpha/items/{item['id']}",
        "/v1/scopes/team/alpha/summary",
    ):
        body = assert_error(client.get(path), 404, "not_found")
        assert "%2F" in body["error"] and "team%2Falpha" in body["error"]
    assert mem.summary(scope="team")["current"] == 1


def test_a_malformed_or_double_encoded_scope_is_invalid_scope(client: TestClient) -> None:
    assert_error(client.get("/v1/scopes/team%252Falpha/summary"), 400, "invalid_scope")
    assert_error(client.get("/v1/scopes/%2Fteam/summary"), 400, "invalid_scope")
    assert_error(client.get("/v1/scopes/te%20am/summary"), 400, "invalid_scope")


def test_openapi_documents_scope_as_one_encoded_segment(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    v1_paths = [p for p in doc["paths"] if p.startswith("/v1/") and p != "/v1/scopes"]  # the list of scopes
    assert v1_paths and all(p.startswith("/v1/scopes/{scope}/") for p in v1_paths)
    for path in v1_paths:
        for operation in doc["paths"][path].values():
            [param] = [p for p in operation["parameters"] if p["name"] == "scope"]
            assert param["in"] == "path" and param["required"] is True
            assert "%2F" in param["description"], path


# -- the JSON filter -----------------------------------------------------------------------


def test_list_and_recall_take_a_json_filter(client: TestClient) -> None:
    scope = "team/alpha"
    remember(client, scope, "Alice likes green tea", kind="trait", importance=0.9, meta={"turn": 3})
    remember(client, scope, "Alice drank green tea on Monday", kind="episodic", importance=0.9)
    remember(client, scope, "Alice once tried green tea ice cream", kind="trait", importance=0.2)
    where = {"kind": "trait", "score": {"name": "importance", "ge": 0.8}}
    listed = client.get(f"{v1(scope)}/items", params={"where": json.dumps(where)}).json()["items"]
    assert [i["text"] for i in listed] == ["Alice likes green tea"]
    by_meta = client.get(f"{v1(scope)}/items", params={"where": '{"meta": {"path": "turn", "value": 3}}'}).json()
    assert [i["text"] for i in by_meta["items"]] == ["Alice likes green tea"]
    ranked = client.get(f"{v1(scope)}/items", params={"sort": "-importance", "where": '{"kind": "trait"}'}).json()
    assert [i["text"] for i in ranked["items"]] == ["Alice likes green tea", "Alice once tried green tea ice cream"]
    hits = client.post(f"{v1(scope)}/recall", json={"query": "green tea", "where": {"not": {"kind": "trait"}}}).json()
    assert [h["item"]["text"] for h in hits["hits"]] == ["Alice drank green tea on Monday"]


@pytest.mark.parametrize(
    "where",
    ["kind=trait", "[1]", '{"colour": "red"}', '{"scope": "team"}', '{"score": {"name": "loudness", "ge": 1}}'],
)
def test_a_bad_json_filter_is_invalid_query(client: TestClient, where: str) -> None:
    body = assert_error(client.get(f"{v1('team/alpha')}/items", params={"where": where}), 400, "invalid_query")
    assert "where" in body["error"]


def test_a_bad_filter_in_a_recall_body_names_its_place(client: TestClient) -> None:
    r = client.post(f"{v1('team/alpha')}/recall", json={"query": "x", "where": {"and": [{"kind": "a"}, {"tag": 1}]}})
    body = assert_error(r, 400, "invalid_query")
    assert body["error"].startswith("where.and[1].tag must be a string")


# -- over a real server --------------------------------------------------------------------


def test_every_route_family_over_a_real_server(mem: Memory) -> None:
    with running(create_app(mem)) as base, httpx.Client(base_url=base, timeout=30) as client:
        exercise_every_route(client, mem, "team/alpha")
        assert_error(client.get("/v1/scopes/team/alpha/summary"), 404, "not_found")
