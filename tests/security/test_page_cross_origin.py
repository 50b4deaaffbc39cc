"""Issue #14.9 in a real headless Chromium: a page on another localhost port attacks the server.

The attack as it was confirmed: a page served from another port of ``localhost`` sets the CSRF
cookie itself (cookies are shared by every port of a host), then auto-submits a form to
``/ui/promote`` carrying the same value; an inferred claim became ``manual``. Before that it
sends a ``text/plain`` POST to ``/v1/…/dream`` (a "simple" request: no preflight). Neither may
change anything: the server must see another origin in both.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory
from reverie.http import create_app
from reverie.http.page import CSRF_COOKIE

from .http_sec_helpers import SCOPE, chromium, needs_browser, serving

pytestmark = needs_browser
FORGED = "A" * 43

ATTACK = """<!doctype html><html><body>
<form id="f" method="post" action="{target}/ui/promote">
  <input name="csrf" value="{forged}"><input name="scope" value="{scope}">
  <input name="id" value="{item}"><input name="to" value="manual">
</form>
<script>
document.cookie = "{cookie}={forged}; path=/";
fetch("{target}/v1/scopes/{scope}/dream", {{method: "POST", mode: "no-cors",
  headers: {{"content-type": "text/plain"}}, body: "x"}})
  .catch(function () {{}})
  .finally(function () {{ document.getElementById("f").submit(); }});
</script></body></html>"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture
def attacker() -> Iterator[tuple[list[str], int]]:
    """A plain HTTP server on another loopback port serving whatever page the test puts in ``pages[0]``."""
    pages: list[str] = [""]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages[0].encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield pages, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_page_on_another_localhost_port_cannot_promote_or_dream(
    browser: Any, attacker: tuple[list[str], int], mem: Memory, tmp_path: Path
) -> None:
    pages, attacker_port = attacker
    item = mem.remember("Alice may like jazz", scope=SCOPE, source="inferred")
    mem.remember("Alice drinks tea every morning", scope=SCOPE)
    with serving(create_app(mem)) as port:
        target = f"http://localhost:{port}"
        pages[0] = ATTACK.format(target=target, forged=FORGED, scope=SCOPE, item=item.id, cookie=CSRF_COOKIE)
        browser.clear_cookies()
        page = browser.new_page()
        try:
            posts: list[Any] = []
            page.on("response", lambda r: posts.append(r) if r.request.method == "POST" else None)
            with page.expect_navigation(url=lambda u: u.startswith(target)):
                page.goto(f"http://localhost:{attacker_port}/")
            # the attack really ran: the browser shares the forged cookie with the server's port
            cookies = {c["name"]: c["value"] for c in browser.cookies(target)}
            assert cookies.get(CSRF_COOKIE) == FORGED
            assert sorted(r.url.rsplit("/", 1)[-1] for r in posts) == ["dream", "promote"]
            assert "forbidden_origin" in page.locator("body").inner_text()
            assert [r.status for r in posts] == [403, 403], [(r.url, r.status) for r in posts]
        finally:
            page.close()
    assert mem.get(item.id, scope=SCOPE).source == "inferred"
    assert mem.dream_runs(scope=SCOPE) == []


def test_the_review_page_itself_still_promotes(browser: Any, mem: Memory) -> None:
    """The same action from the server's own page (its Origin, its signed token) goes through."""
    item = mem.remember("Alice may like jazz", scope=SCOPE, source="inferred")
    with serving(create_app(mem)) as port:
        browser.clear_cookies()
        page = browser.new_page()
        try:
            page.goto(f"http://localhost:{port}/items/{item.id}?scope={SCOPE}")
            with page.expect_navigation():
                page.get_by_role("button", name="promote to manual", exact=True).click()
            assert page.url.startswith(f"http://localhost:{port}/items/{item.id}")
        finally:
            page.close()
    assert mem.get(item.id, scope=SCOPE).source == "manual"
