"""Fixtures of the review page's browser tests (the kit is ``browser_kit.py``).

``browser`` is Debian's Chromium launched by Playwright (never Playwright's own download), one
per test module with a fresh profile directory; every test gets its own watched page, server
and database.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_kit import CHROMIUM, CHROMIUM_ARGS, CSP_LISTENER, HAVE_PLAYWRIGHT, Watch, running

from reverie import Memory
from reverie.http import create_app

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import BrowserContext, ConsoleMessage, Dialog, Page, sync_playwright


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """Debian's Chromium with a fresh, empty profile directory; closed after the module."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
        )
        context.set_default_timeout(10_000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def watched(browser: BrowserContext) -> Iterator[tuple[Page, Watch]]:
    """A fresh page (no cookies) whose errors fail the test; confirm dialogs are accepted
    unless the test sets ``watch.accept_dialogs = False``."""
    browser.clear_cookies()
    watch = Watch()
    page = browser.new_page()

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            watch.console_errors.append(f"console error: {msg.text} ({msg.location.get('url')})")

    def on_dialog(dialog: Dialog) -> None:
        watch.dialogs.append(dialog.message)
        if watch.accept_dialogs:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda exc: watch.page_errors.append(f"uncaught: {exc}"))
    page.on("dialog", on_dialog)
    page.expose_function("__reportCsp", lambda violation: watch.csp.append(violation))
    page.add_init_script(CSP_LISTENER)
    try:
        yield page, watch
        assert watch.problems() == [], "the browser reported problems"
    finally:
        page.close()


@pytest.fixture
def server(mem: Memory) -> Iterator[str]:
    """The real app over ``mem`` (no token), served over real HTTP."""
    with running(create_app(mem)) as base:
        yield base


@pytest.fixture
def page(watched: tuple[Page, Watch]) -> Page:
    return watched[0]
