"""Issue #20.9 in a real headless Chromium: the ``/docs`` page works offline, under the strict CSP.

It must draw every operation of ``/openapi.json`` and send real requests from its forms, while
the browser reports no CSP violation, no console error and no request to any other origin
(Swagger UI, FastAPI's default, would have loaded from a CDN).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from reverie import Memory
from reverie.http import create_app

from .http_sec_helpers import SCOPE, chromium, needs_browser, serving

pytestmark = needs_browser

CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__reportCsp(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`);
});
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


def test_docs_page_lists_every_operation_and_sends_requests(browser: Any, mem: Memory) -> None:
    mem.remember("Alice drinks tea", scope=SCOPE)
    problems: list[str] = []
    requested: list[str] = []
    with serving(create_app(mem)) as port:
        base = f"http://127.0.0.1:{port}"
        page = browser.new_page()
        try:
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: problems.append(f"uncaught: {exc}"))
            page.on("request", lambda r: requested.append(r.url))
            page.expose_function("__reportCsp", lambda v: problems.append(f"CSP: {v}"))
            page.add_init_script(CSP_LISTENER)
            page.goto(f"{base}/docs")
            doc = json.loads(page.evaluate("fetch('/openapi.json').then(r => r.text())"))
            expected = sum(len(methods) for methods in doc["paths"].values())
            ops = page.locator("details.op")
            ops.nth(expected - 1).wait_for()
            assert ops.count() == expected

            listing = page.locator("details.op[data-method=GET][data-path='/v1/scopes']")
            listing.locator("summary").click()
            listing.get_by_role("button", name="send").click()
            answer = listing.locator("pre.answer")
            answer.and_(page.locator("[data-status]")).wait_for()
            assert answer.get_attribute("data-status") == "200"
            assert SCOPE in answer.inner_text()

            write = page.locator("details.op[data-method=POST][data-path='/v1/scopes/{scope}/items']")
            write.locator("summary").click()
            write.get_by_label("scope", exact=True).fill("team/alpha")
            write.get_by_label("JSON body").fill('{"text": "written from the docs page"}')
            write.get_by_role("button", name="send").click()
            answer = write.locator("pre.answer")
            answer.and_(page.locator("[data-status]")).wait_for()
            assert answer.get_attribute("data-status") == "201", answer.inner_text()
        finally:
            page.close()
    assert problems == []
    assert all(url.startswith(base) for url in requested), requested
    [item] = mem.list(scope="team/alpha").items
    assert item.text == "written from the docs page"
