"""Counts over HTTP under a ``Limits.max_k`` below every built-in default (10, 50, 100).

Regression: the JSON API and the review page passed their own defaults (``k=10``, ``limit=50``,
``limit=100``…) to ``Memory`` even when the client gave no count, so a ``Memory`` opened with a
smaller ``max_k`` refused a plain request with ``limit_exceeded`` instead of clamping the default
as the Python API does. A count the client does give is still checked by ``Memory``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error

from reverie import Limits, Memory, Q

V1 = f"/v1/scopes/{SCOPE}"
SMALL = Limits(max_k=3)


@pytest.fixture
def mem(memories: Any, db_path: Path) -> Memory:
    """Overrides the suite's ``mem``: the same real SQLite file, with ``max_k`` 3; eight
    kettles (more than ``max_k``), a conflict, and one item derived from five others."""
    m: Memory = memories.open(db_path, limits=SMALL)
    kettles = [m.remember(f"the red kettle number {i} is on shelf {i}", scope=SCOPE) for i in range(8)]
    m.remember("the kettles are all red", scope=SCOPE, kind="derivation", parents=[k.id for k in kettles[:5]])
    a = m.remember("Alice drinks tea", scope=SCOPE, key="alice.drink", value="tea")
    b = m.remember("Alice drinks coffee", scope=SCOPE, key="alice.drink", value="coffee")
    if not m.contradictions(scope=SCOPE):
        m.link(a.id, b.id, "contradicts", scope=SCOPE)
    return m


def test_requests_without_a_count_answer_clamped_to_max_k(client: TestClient) -> None:
    page = client.get(f"{V1}/items")
    assert page.status_code == 200, page.text
    assert len(page.json()["items"]) == SMALL.max_k and page.json()["next_cursor"]
    recall = client.post(f"{V1}/recall", json={"query": "red kettle shelf"})
    assert recall.status_code == 200, recall.text
    assert len(recall.json()["hits"]) == SMALL.max_k
    context = client.post(f"{V1}/context", json={"query": "red kettle shelf"})
    assert context.status_code == 200, context.text
    assert "kettle" in context.json()["context"]
    alerts = client.get(f"{V1}/contradictions")
    assert alerts.status_code == 200, alerts.text
    assert 1 <= len(alerts.json()["contradictions"]) <= SMALL.max_k


def test_an_explicit_null_count_is_not_given(client: TestClient) -> None:
    """JSON ``null`` means "not given" too, as it does for every optional field of a body."""
    assert client.post(f"{V1}/recall", json={"query": "kettle", "k": None}).status_code == 200
    assert client.post(f"{V1}/context", json={"query": "kettle", "k": None}).status_code == 200


def test_an_explicit_count_is_accepted_at_max_k_and_refused_past_it(client: TestClient) -> None:
    n = SMALL.max_k
    assert client.get(f"{V1}/items", params={"limit": n}).status_code == 200
    assert client.post(f"{V1}/recall", json={"query": "kettle", "k": n}).status_code == 200
    assert client.post(f"{V1}/context", json={"query": "kettle", "k": n}).status_code == 200
    assert client.get(f"{V1}/contradictions", params={"limit": n}).status_code == 200
    for response in (
        client.get(f"{V1}/items", params={"limit": n + 1}),
        client.post(f"{V1}/recall", json={"query": "kettle", "k": n + 1}),
        client.post(f"{V1}/context", json={"query": "kettle", "k": n + 1}),
        client.get(f"{V1}/contradictions", params={"limit": n + 1}),
    ):
        body = assert_error(response, 400, "limit_exceeded")
        assert "Limits.max_k (3)" in body["error"]


def test_the_openapi_document_says_a_count_may_be_left_out(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    for model in ("RecallIn", "ContextIn"):
        assert "k" not in schemas[model].get("required", [])
        assert "max_k" in schemas[model]["properties"]["k"]["description"]
    for path in ("/items", "/contradictions"):
        params = {p["name"]: p for p in doc["paths"][f"/v1/scopes/{{scope}}{path}"]["get"]["parameters"]}
        assert not params["limit"].get("required", False)
        assert params["limit"]["schema"].get("default") is None
        assert "max_k" in params["limit"]["description"]


def test_the_review_page_lists_searches_and_opens_items_under_a_small_max_k(client: TestClient, mem: Memory) -> None:
    listed = client.get("/", params={"scope": SCOPE})
    assert listed.status_code == 200, listed.text
    assert "more…" in listed.text, "the page pages on instead of failing"
    searched = client.get("/", params={"scope": SCOPE, "q": "red kettle"})
    assert searched.status_code == 200, searched.text
    assert "the red kettle number" in searched.text
    # The detail page reads an item's parents and the items derived from it with list().
    child = mem.list(scope=SCOPE, where=Q.kind("derivation")).items[0]
    for item_id in (child.id, child.parents[0]):
        detail = client.get(f"/items/{item_id}", params={"scope": SCOPE})
        assert detail.status_code == 200, detail.text
        assert re.search(r"the red kettle number \d", detail.text)
