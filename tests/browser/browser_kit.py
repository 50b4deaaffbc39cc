"""The kit of the review page's browser tests: Chromium's location and flags, the watch that
fails a test on any script error or CSP violation, a real uvicorn server on a free loopback
port, and the helpers that drive the page as a person would. The fixtures are in
``conftest.py``; the tests in ``test_review_*.py``.

Skips only when the browser is not installed: no ``playwright`` package, or no Chromium
binary at ``$REVERIE_CHROMIUM`` (default ``/usr/bin/chromium``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from reverie.http.server import config as server_config

HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
if HAVE_PLAYWRIGHT:  # else every test skips (below); a broken install still fails loudly here
    from playwright.sync_api import Locator, Page, expect

CHROMIUM = Path(os.environ.get("REVERIE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Where screenshots go: ``$REVERIE_ARTIFACTS/screenshots`` if set, else ``artifacts/screenshots``
#: at the repository root (git-ignored either way: test runs are never committed).
ARTIFACTS = Path(os.environ.get("REVERIE_ARTIFACTS") or Path(__file__).resolve().parents[2] / "artifacts")
SCREENSHOTS = ARTIFACTS / "screenshots"
SCOPE = "user:alice"
XSS = "<script>window.__pwned=1</script>"

_missing = []
if not HAVE_PLAYWRIGHT:
    _missing.append("the Python package 'playwright' is not installed (pip install playwright)")
if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
    _missing.append(f"no Chromium executable at {CHROMIUM} (apt-get install chromium, or set REVERIE_CHROMIUM)")
if _missing and os.environ.get("CI") == "true":
    # CI installs Chromium (scripts/bootstrap): a missing browser there is a broken install, not a skip.
    raise RuntimeError("browser tests cannot run in CI: " + "; ".join(_missing))
pytestmark = pytest.mark.skipif(bool(_missing), reason="; ".join(_missing) or "browser available")


# -- the watch and the server ------------------------------------------------------------


@dataclass
class Watch:
    """What a page reported: console errors, uncaught exceptions, CSP violations, dialogs."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    csp: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    accept_dialogs: bool = True

    def problems(self) -> list[str]:
        return [*self.console_errors, *self.page_errors, *(f"CSP violation: {v}" for v in self.csp)]

    def clear(self) -> None:
        self.console_errors.clear()
        self.page_errors.clear()
        self.csp.clear()


# Runs in every document before its own scripts. Playwright injects it over CDP, so the page's
# CSP does not apply to it; it forwards each violation to Python through an exposed binding.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__reportCsp(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`);
});
"""


@contextmanager
def running(app: Any) -> Iterator[str]:
    """``app`` in uvicorn on a free loopback port (a background thread); yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(server_config(app, log_level="warning"))  # as `reverie serve` runs it
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not srv.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop"


# -- helpers -------------------------------------------------------------------------------


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def open_scope(page: Page, base: str, scope: str = SCOPE) -> None:
    page.goto(f"{base}/?scope={scope}")
    expect(page.locator("main h2")).to_have_text(scope)


def count(page: Page, table: str, key: str) -> str:
    """The number in the summary table captioned ``table`` on the row ``key``."""
    box = page.get_by_role("table", name=table, exact=True)
    row = box.locator("tr").filter(has=page.locator("td:first-child", has_text=re.compile(f"^{re.escape(key)}$")))
    return row.locator("td").nth(1).inner_text()


def item_texts(page: Page) -> list[str]:
    """The text column of the memories table, top to bottom (empty if it says nothing here)."""
    return page.locator("section.list table.items td.text > a").all_inner_texts()


def search(page: Page, query: str) -> None:
    """Type into the search box and press Enter, as a person would."""
    box = page.get_by_placeholder("recall…")
    box.fill(query)
    with page.expect_navigation():
        box.press("Enter")


def button(scope: Page | Locator, label: str) -> Locator:
    return scope.get_by_role("button", name=label, exact=True)
