"""The guard: error shape on every path, token, Host, Origin, body limit, bind refusal, CSP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error

from reverie import InvalidInputError, Limits, Memory
from reverie.http import create_app, serve
from reverie.http.security import CSP

V1 = f"/v1/scopes/{SCOPE}"
LIMIT = Limits().max_request_bytes


def test_unknown_route_and_method(client: TestClient) -> None:
    assert_error(client.get("/v1/nope"), 404, "not_found")
    r = assert_error(client.delete(f"{V1}/summary"), 405, "method_not_allowed")
    assert r["status"] == 405


def test_malformed_json_is_the_error_shape(client: TestClient) -> None:
    r = client.post(f"{V1}/items", content=b"{not json", headers={"content-type": "application/json"})
    assert_error(r, 400, "invalid_input")


def test_unexpected_exception_is_internal_without_traceback(
    client: TestClient, mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(**_: Any) -> None:
        raise RuntimeError("secret /etc/passwd detail")

    monkeypatch.setattr(mem, "summary", boom)
    body = assert_error(client.get(f"{V1}/summary"), 500, "internal")
    assert "secret" not in body["error"]


def test_token_required_on_every_v1_route(make_client: Callable[..., TestClient]) -> None:
    c = make_client(token="s3cret")
    r = assert_error(c.get(f"{V1}/summary"), 401, "unauthorized")
    assert r["status"] == 401
    assert_error(c.get(f"{V1}/summary", headers={"Authorization": "Bearer wrong"}), 401)
    assert_error(c.post(f"{V1}/items", json={"text": "x"}), 401)
    assert c.get(f"{V1}/summary", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    # the review page asks for a sign-in instead of showing data
    assert c.get("/", follow_redirects=False).headers["location"] == "/login"


def test_empty_token_is_refused(mem: Memory) -> None:
    with pytest.raises(InvalidInputError):
        create_app(mem, token="")


def test_host_header_allow_list(client: TestClient, make_client: Callable[..., TestClient]) -> None:
    assert_error(client.get(f"{V1}/summary", headers={"host": "evil.example"}), 400, "invalid_host")
    for ok in ("localhost:8765", "127.0.0.1", "[::1]:8765"):
        assert client.get(f"{V1}/summary", headers={"host": ok}).status_code == 200
    c = make_client(allowed_hosts=["localhost", "memory.lan"])
    assert c.get(f"{V1}/summary", headers={"host": "memory.lan:80"}).status_code == 200


def test_cross_origin_writes_refused(client: TestClient) -> None:
    r = client.post(f"{V1}/items", json={"text": "x"}, headers={"origin": "https://evil.example"})
    assert_error(r, 403, "forbidden_origin")
    assert_error(client.post(f"{V1}/items", json={"text": "x"}, headers={"origin": "null"}), 403)
    # the request's own origin (scheme, Host and port; see tests/security/test_http_origin.py)
    assert client.post(f"{V1}/items", json={"text": "x"}, headers={"origin": "http://127.0.0.1"}).status_code == 201
    # reads are not state-changing: an Origin header alone does not refuse them
    assert client.get(f"{V1}/summary", headers={"origin": "https://evil.example"}).status_code == 200


def test_declared_oversized_body_refused_before_reading(client: TestClient) -> None:
    r = client.post(f"{V1}/items", content=b"x" * (LIMIT + 1), headers={"content-type": "application/json"})
    assert_error(r, 413, "limit_exceeded")


def test_chunked_body_without_length_refused(client: TestClient) -> None:
    """No Content-Length (chunked): the count while streaming catches it. TestClient buffers
    the generator itself, so how much the *server* read is checked in the raw ASGI test below."""
    chunk = b" " * (1024 * 1024)

    def body() -> Iterator[bytes]:
        for _ in range(9):
            yield chunk

    r = client.post(f"{V1}/items", content=body(), headers={"content-type": "application/json"})
    assert_error(r, 413, "limit_exceeded")


def test_guard_stops_reading_raw_asgi(mem: Memory) -> None:
    """Straight at the ASGI app: the guard stops pulling chunks once the limit is passed."""
    app = create_app(mem)
    pulled = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": b"a" * 65536, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": f"{V1}/items",
        "raw_path": f"{V1}/items".encode(),
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8765),
        "root_path": "",
        "state": {},
    }
    anyio.run(app, scope, receive, send)
    assert sent[0]["status"] == 413
    assert pulled * 65536 <= LIMIT + 65536


def test_csp_and_security_headers_on_every_response(client: TestClient) -> None:
    for r in (client.get("/"), client.get(f"{V1}/summary"), client.get("/nope"), client.get("/static/review.js")):
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in CSP and "script-src 'self'" in CSP


def test_openapi_document_and_local_docs_page_served(client: TestClient) -> None:
    assert client.get("/openapi.json").json()["openapi"].startswith("3.")
    assert '<script src="/static/docs.js"' in client.get("/docs").text  # our own page, no CDN
    assert_error(client.get("/redoc"), 404)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "example.com", "::"])
def test_serve_refuses_non_loopback_without_token(tmp_path: Any, host: str) -> None:
    with pytest.raises(InvalidInputError, match="without a token"):
        serve(str(tmp_path / "x.db"), host=host)
    assert not (tmp_path / "x.db").exists()  # refused before opening anything


def test_serve_allows_loopback_and_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """``serve`` hands uvicorn an app bound where asked (uvicorn itself is stubbed out)."""
    import uvicorn

    seen: list[tuple[str, int]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **_: seen.append((host, port)))
    serve(str(tmp_path / "a.db"), embedder="hash")
    serve(str(tmp_path / "b.db"), host="0.0.0.0", port=9000, token="t", embedder="hash")
    assert seen == [("127.0.0.1", 8765), ("0.0.0.0", 9000)]
