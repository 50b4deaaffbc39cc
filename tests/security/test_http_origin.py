"""Issue #14.9, over the in-process app: which writes count as same-origin, and the CSRF token.

Regression: the Origin check compared host *names* only, so a page on ``http://localhost:3000``
(another port, another program) passed it; a ``text/plain`` POST from there ran a dream pass;
and the double-submit CSRF cookie was a bare random value, so that page could set a cookie of
its own choosing for ``localhost`` (cookies ignore ports) and echo it in a form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import InvalidInputError, Memory
from reverie.http import create_app, serve
from reverie.http.page import CSRF_COOKIE
from reverie.http.security import AUTH_COOKIE, csrf_valid, issue_csrf, own_origin, parse_origin

from .http_sec_helpers import SCOPE, V1, assert_error, open_client

HOST = "localhost:8765"


@pytest.fixture
def client(mem: Memory) -> Iterator[TestClient]:
    with open_client(mem) as c:
        yield c


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, "no CSRF field on the page"
    return match.group(1)


def write(client: TestClient, **headers: str) -> object:
    return client.post(f"{V1}/items", json={"text": "written"}, headers={"host": HOST, **headers})


def test_write_from_another_port_of_the_same_host_is_refused(client: TestClient, mem: Memory) -> None:
    assert_error(write(client, origin="http://localhost:3000"), 403, "forbidden_origin")
    assert_error(write(client, origin="http://127.0.0.1:8765"), 403, "forbidden_origin")  # another origin too
    assert mem.list(scope=SCOPE).items == []


def test_write_from_another_scheme_is_refused(client: TestClient, mem: Memory) -> None:
    assert_error(write(client, origin="https://localhost:8765"), 403, "forbidden_origin")
    assert mem.list(scope=SCOPE).items == []


def test_same_origin_writes_are_accepted_default_ports_included(client: TestClient) -> None:
    assert write(client, origin="http://localhost:8765").status_code == 201  # type: ignore[attr-defined]
    r = client.post(f"{V1}/items", json={"text": "x"}, headers={"host": "127.0.0.1", "origin": "http://127.0.0.1:80"})
    assert r.status_code == 201, r.text
    assert write(client).status_code == 201  # type: ignore[attr-defined]  # no Origin: not a browser


def test_configured_origin_is_accepted_behind_a_proxy(mem: Memory) -> None:
    """A TLS proxy in front: the browser's Origin is https://…, the request reaching us is http."""
    with open_client(mem, allowed_hosts=["memory.lan"], allowed_origins=["https://memory.lan"]) as c:
        headers = {"host": "memory.lan", "origin": "https://memory.lan"}
        assert c.post(f"{V1}/items", json={"text": "x"}, headers=headers).status_code == 201


def test_cross_site_fetch_metadata_is_refused_without_origin(client: TestClient, mem: Memory) -> None:
    for site in ("same-site", "cross-site"):
        assert_error(write(client, **{"sec-fetch-site": site}), 403, "forbidden_origin")
    assert mem.list(scope=SCOPE).items == []
    assert write(client, **{"sec-fetch-site": "same-origin"}).status_code == 201  # type: ignore[attr-defined]


def test_text_plain_post_runs_no_dream_pass(client: TestClient, mem: Memory) -> None:
    """A form or text/plain body is what a cross-origin page can send without a preflight."""
    mem.remember("Alice drinks tea", scope=SCOPE)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        r = client.post(f"{V1}/dream", content=b"x", headers={"content-type": content_type})
        body = assert_error(r, 415, "unsupported_media_type")
        assert "send JSON" in body["error"]
    assert mem.dream_runs(scope=SCOPE) == []
    assert client.post(f"{V1}/dream").status_code == 200  # a body-less POST from a script still works


def test_forged_csrf_cookie_and_field_are_refused(client: TestClient, mem: Memory) -> None:
    """What the page on :3000 did: choose a value, set it as the cookie, send it in the form."""
    item = mem.remember("Alice may like jazz", scope=SCOPE, source="inferred")
    forged = "A" * 43
    client.cookies.set(CSRF_COOKIE, forged)
    r = client.post("/ui/promote", data={"csrf": forged, "scope": SCOPE, "id": item.id, "to": "manual"})
    assert_error(r, 403, "forbidden")
    assert mem.get(item.id, scope=SCOPE).source == "inferred"


def test_csrf_token_of_another_server_process_is_refused(mem: Memory) -> None:
    item = mem.remember("Alice may like jazz", scope=SCOPE, source="inferred")
    with open_client(mem) as first, open_client(mem) as second:
        token = csrf_of(first.get("/", params={"scope": SCOPE}).text)
        second.cookies.set(CSRF_COOKIE, token)
        r = second.post("/ui/promote", data={"csrf": token, "scope": SCOPE, "id": item.id, "to": "manual"})
        assert_error(r, 403, "forbidden")
        assert mem.get(item.id, scope=SCOPE).source == "inferred"
        # the token works where it was issued
        r = first.post("/ui/promote", data={"csrf": token, "scope": SCOPE, "id": item.id, "to": "manual"})
        assert r.status_code == 200, r.text
    assert mem.get(item.id, scope=SCOPE).source == "manual"


def test_configured_secret_keeps_tokens_valid_across_processes(mem: Memory) -> None:
    item = mem.remember("Alice may like jazz", scope=SCOPE, source="inferred")
    with open_client(mem, secret=b"k" * 32) as first, open_client(mem, secret=b"k" * 32) as second:
        token = csrf_of(first.get("/", params={"scope": SCOPE}).text)
        second.cookies.set(CSRF_COOKIE, token)
        r = second.post("/ui/promote", data={"csrf": token, "scope": SCOPE, "id": item.id, "to": "manual"})
        assert r.status_code == 200, r.text


def test_a_short_secret_is_refused_before_the_store_is_opened(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidInputError, match="at least 16 bytes"):
        create_app(mem, secret=b"short")
    monkeypatch.setenv("REVERIE_SECRET", "short")
    with pytest.raises(InvalidInputError, match="REVERIE_SECRET"):
        serve(str(tmp_path / "never.db"), embedder="hash")
    assert not (tmp_path / "never.db").exists()


def test_csrf_token_issued_before_sign_in_is_refused_after_it(mem: Memory) -> None:
    """A token anyone can fetch from /login must not authorise a signed-in person's actions."""
    item = mem.remember("Alice may like jazz", scope=SCOPE, source="inferred")
    with open_client(mem, token="s3cret-token") as c:
        anonymous = csrf_of(c.get("/login").text)
        signed_in = c.post("/login", data={"csrf": anonymous, "token": "s3cret-token"}, follow_redirects=False)
        assert signed_in.status_code == 303, signed_in.text
        c.cookies.set(CSRF_COOKIE, anonymous)
        r = c.post("/ui/promote", data={"csrf": anonymous, "scope": SCOPE, "id": item.id, "to": "manual"})
        assert_error(r, 403, "forbidden")
        assert mem.get(item.id, scope=SCOPE).source == "inferred"
        fresh = csrf_of(c.get("/", params={"scope": SCOPE}).text)
        assert fresh != anonymous
        r = c.post("/ui/promote", data={"csrf": fresh, "scope": SCOPE, "id": item.id, "to": "manual"})
        assert r.status_code == 200, r.text
    assert mem.get(item.id, scope=SCOPE).source == "manual"


def test_sign_in_cookie_does_not_carry_the_token(mem: Memory) -> None:
    """Cookies ignore ports: every other program on localhost receives this one."""
    with open_client(mem, token="s3cret-token") as c:
        csrf = csrf_of(c.get("/login").text)
        r = c.post("/login", data={"csrf": csrf, "token": "s3cret-token"}, follow_redirects=False)
        assert r.status_code == 303
        value = c.cookies.get(AUTH_COOKIE)
        assert value and "s3cret-token" not in value
        assert c.get(f"{V1}/summary").status_code == 200  # the cookie still signs in
        c.cookies.clear()
        c.cookies.set(AUTH_COOKIE, "s3cret-token")  # the raw token as a cookie is not a session
        assert_error(c.get(f"{V1}/summary"), 401, "unauthorized")


# -- invariants ------------------------------------------------------------------------------

PORTS = st.integers(min_value=1, max_value=65535)
HOSTS = st.sampled_from(["localhost", "127.0.0.1", "[::1]", "memory.lan"])


@settings(max_examples=60, deadline=None)
@given(scheme=st.sampled_from(["http", "https"]), host=HOSTS, port=PORTS, other=PORTS)
def test_an_origin_is_ours_only_with_the_same_scheme_host_and_port(
    scheme: str, host: str, port: int, other: int
) -> None:
    ours = own_origin(scheme, f"{host}:{port}")
    assert ours is not None and parse_origin(f"{scheme}://{host}:{port}") == ours
    assert (parse_origin(f"{scheme}://{host}:{other}") == ours) == (port == other)
    flipped = "https" if scheme == "http" else "http"
    assert parse_origin(f"{flipped}://{host}:{port}") != ours


@settings(max_examples=60, deadline=None)
@given(session=st.text(max_size=40), position=st.integers(min_value=0), char=st.characters(codec="ascii"))
def test_a_csrf_token_altered_anywhere_is_refused(session: str, position: int, char: str) -> None:
    secret = b"s" * 32
    token = issue_csrf(secret, session)
    assert csrf_valid(secret, token, session)
    assert not csrf_valid(b"t" * 32, token, session)  # another server's secret
    assert not csrf_valid(secret, token, session + "x")  # another session
    i = position % len(token)
    altered = token[:i] + char + token[i + 1 :]
    assert csrf_valid(secret, altered, session) == (altered == token)
