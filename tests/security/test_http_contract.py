"""Issue #20.9: the API a newcomer meets — one status for bad input, 415 for a body that is not
JSON, a described OpenAPI document, ``GET /v1/scopes``, and docs served from this server only.

Regressions: ``invalid_input`` came back as 400 from ``Memory``'s checks and 422 from FastAPI's,
so a client could not switch on the status; a ``text/plain`` body got a 422 about a "valid
dictionary"; no operation or field of ``/openapi.json`` had a description; there was no way
to list scopes over HTTP and no docs page (Swagger UI would have loaded from a CDN).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from reverie import Memory
from reverie.http.security import CSP

from .http_sec_helpers import SCOPE, V1, assert_error, open_client


@pytest.fixture
def client(mem: Memory) -> Iterator[TestClient]:
    with open_client(mem) as c:
        yield c


@pytest.fixture
def doc(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get("/openapi.json").json()
    return body


def operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            yield path, method, op


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref") or next((s.get("$ref") for s in schema.get("anyOf", []) if "$ref" in s), None)
    if ref is None:
        return schema
    out: dict[str, Any] = doc["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return out


def test_bad_input_is_400_invalid_input_whoever_finds_it(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice lives in Paris", scope=SCOPE)
    cases = {
        "unknown source (schema)": client.post(f"{V1}/items", json={"text": "x", "source": "manual"}),
        "empty text (Memory)": client.post(f"{V1}/items", json={"text": ""}),
        "unknown field": client.post(f"{V1}/items/{item.id}/revise", json={"text": "x", "bogus": 1}),
        "wrong type": client.post(f"{V1}/learning/pause", json={"reason": 5}),
        "malformed JSON": client.post(f"{V1}/items", content=b"{nope", headers={"content-type": "application/json"}),
        "query int": client.get(f"{V1}/items", params={"limit": "many"}),
        "query time": client.get(f"{V1}/items/{item.id}", params={"as_of": "not a time"}),
        "page tier typo": client.get("/", params={"scope": SCOPE, "tier": "lukewarm"}),
        "page scope missing": client.get(f"/items/{item.id}"),
    }
    for name, response in cases.items():
        assert response.status_code == 400, (name, response.text)
        assert_error(response, 400, "invalid_input")
    assert mem.summary(scope=SCOPE)["current"] == 1


def test_the_openapi_document_promises_400_never_422(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        assert "422" not in op["responses"], (method, path)
        if op.get("parameters") or op.get("requestBody"):
            error = op["responses"]["400"]["content"]["application/json"]["schema"]
            assert error["$ref"].endswith("/ErrorOut"), (method, path)
    assert "HTTPValidationError" not in doc["components"]["schemas"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_json_is_415_send_json(client: TestClient, mem: Memory, content_type: str | None) -> None:
    headers = {"content-type": content_type} if content_type else {}
    r = client.post(f"{V1}/items", content=b'{"text": "Alice likes tea"}', headers=headers)
    body = assert_error(r, 415, "unsupported_media_type")
    assert body["error"].startswith("send JSON")
    assert mem.scopes() == []
    ok = client.post(f"{V1}/items", content=b'{"text": "x"}', headers={"content-type": "application/json"})
    assert ok.status_code == 201
    assert client.post(f"{V1}/items", json={"text": "y"}, headers={"content-type": "application/merge-patch+json"})


def test_every_operation_has_a_summary_and_a_description(doc: dict[str, Any]) -> None:
    missing = [
        f"{method.upper()} {path}"
        for path, method, op in operations(doc)
        if not op.get("summary", "").strip() or len(op.get("description", "").strip()) < 20
    ]
    assert missing == []


def test_every_request_field_and_parameter_is_described(doc: dict[str, Any]) -> None:
    missing: list[str] = []
    for path, method, op in operations(doc):
        for param in op.get("parameters", []):
            if not param.get("description", "").strip():
                missing.append(f"{method.upper()} {path} parameter {param['name']}")
        body = op.get("requestBody")
        if body is None:
            continue
        schema = resolve(doc, body["content"]["application/json"]["schema"])
        stack = [(schema.get("title", "?"), schema)]
        while stack:
            title, model = stack.pop()
            for name, field in model.get("properties", {}).items():
                if not field.get("description", "").strip():
                    missing.append(f"{title}.{name}")
                nested = resolve(doc, field)
                if nested is not field:
                    stack.append((nested.get("title", name), nested))
    assert missing == []


def test_get_scopes_lists_every_scope_with_items(client: TestClient, mem: Memory) -> None:
    assert client.get("/v1/scopes").json() == {"scopes": []}
    for scope in ("user:bob", "team/alpha", SCOPE):
        mem.remember("something", scope=scope)
    r = client.get("/v1/scopes")
    assert r.status_code == 200 and r.json() == {"scopes": sorted(["user:bob", "team/alpha", SCOPE])}


def test_get_scopes_needs_the_token(mem: Memory) -> None:
    mem.remember("something", scope=SCOPE)
    with open_client(mem, token="s3cret") as c:
        assert_error(c.get("/v1/scopes"), 401, "unauthorized")
        assert c.get("/v1/scopes", headers={"authorization": "Bearer s3cret"}).json() == {"scopes": [SCOPE]}


def test_docs_page_loads_only_local_assets_under_the_csp(client: TestClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == CSP
    html = r.text
    assert "<style" not in html and not re.search(r"<script(?![^>]*\bsrc=\"/static/)", html)
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(a.startswith("/") and not a.startswith("//") for a in assets), assets
    for asset in (a for a in assets if a.startswith("/static/")):
        served = client.get(asset)
        assert served.status_code == 200, asset
        assert not re.search(r"https?://", served.text), f"{asset} names a remote URL"
