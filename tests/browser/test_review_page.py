"""The review page driven like a person would, in a real headless Chromium over real HTTP.

The app (``create_app`` over a ``Memory`` on a real SQLite file, hash embedder) runs in
uvicorn on a background thread, bound to a free loopback port. The browser is Debian's
``chromium`` launched by Playwright (never Playwright's own download), one per module with
a fresh profile directory; every test gets its own page, server and database.

Every page is watched: an uncaught script error, a console error or a Content-Security-Policy
violation on any page fails the test that caused it. Screenshots of the main states go to
``artifacts/screenshots/`` (git-ignored) so a person can look at what the browser saw.

Skips only when the browser is not installed: no ``playwright`` package, or no Chromium
binary at ``$REVERIE_CHROMIUM`` (default ``/usr/bin/chromium``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browser_kit import (
    HAVE_PLAYWRIGHT,
    SCOPE,
    XSS,
    Watch,
    button,
    count,
    item_texts,
    open_scope,
    pytestmark,
    running,
    search,
    shot,
)

from reverie import Memory
from reverie.http import create_app

if HAVE_PLAYWRIGHT:  # else the kit's pytestmark skips every test
    from playwright.sync_api import Page, expect

__all__ = ["pytestmark"]  # the skip mark, applied to this module by name


# -- tests ---------------------------------------------------------------------------------


def test_page_shows_counts_items_and_switches_scope(server: str, page: Page, mem: Memory) -> None:
    mem.remember("Alice is allergic to peanuts", scope=SCOPE, kind="assertion", source="user_stated")
    mem.remember("Alice prefers window seats", scope=SCOPE, kind="preference", source="user_stated")
    mem.remember("Alice mentioned a trip to Lisbon", scope=SCOPE, kind="event", source="inferred")
    mem.remember("Bob likes trains", scope="user:bob")

    open_scope(page, server)
    assert page.title() == f"reverie — {SCOPE}"
    assert sorted(item_texts(page)) == [
        "Alice is allergic to peanuts",
        "Alice mentioned a trip to Lisbon",
        "Alice prefers window seats",
    ]
    summary = mem.summary(scope=SCOPE)
    assert count(page, "status", "current") == "3" == str(summary["current"])
    assert count(page, "by source", "user stated") == "2"
    assert count(page, "by source", "inferred") == "1"
    for kind, n in summary["by_kind"].items():
        assert count(page, "by kind", kind) == str(n)
    expect(page.locator("section.contradictions h3")).to_have_text("Contradictions (0)")
    # The stylesheet really applied (served from 'self' under the CSP): the header is dark.
    assert page.locator("header").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(36, 41, 47)"
    shot(page, "review-list")

    # review.js: picking another scope opens it without pressing "open".
    with page.expect_navigation():
        page.get_by_label("scope").select_option("user:bob")
    expect(page.locator("main h2")).to_have_text("user:bob")
    assert item_texts(page) == ["Bob likes trains"]
    assert "scope=user%3Abob" in page.url or "scope=user:bob" in page.url


def test_search_shows_the_matching_item_first(server: str, page: Page, mem: Memory) -> None:
    for text in (
        "Bob likes trains",
        "Alice prefers window seats",
        "Alice is allergic to peanuts",
        "The office moved to the third floor",
        "Carol drinks her coffee black",
    ):
        mem.remember(text, scope=SCOPE)
    open_scope(page, server)
    search(page, "which food is Alice allergic to")
    assert "q=which+food" in page.url
    rows = item_texts(page)
    assert rows and rows[0] == "Alice is allergic to peanuts", rows
    score = page.locator("section.list table.items tbody tr").first.locator("td[data-label=relevance]").inner_text()
    assert 0 < float(score) <= 1.0  # search results carry the recall score
    assert page.get_by_placeholder("recall…").input_value() == "which food is Alice allergic to"
    shot(page, "review-search")
    # Browsing is not the agent using memories: search in the page records no use.
    assert all(i.last_used_query is None for i in mem.list(scope=SCOPE).items)


def test_dismiss_on_detail_page_removes_it_from_recall(
    server: str, watched: tuple[Page, Watch], mem: Memory, open_mem: Callable[..., Memory], db_path: Path
) -> None:
    page, watch = watched
    item = mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    mem.remember("Alice prefers window seats", scope=SCOPE)
    open_scope(page, server)
    search(page, "peanuts")
    assert item_texts(page)[0] == "Alice is allergic to peanuts"

    with page.expect_navigation():
        page.get_by_role("link", name="Alice is allergic to peanuts").click()
    assert f"/items/{item.id}" in page.url
    expect(page.locator("main h2")).to_have_text("Alice is allergic to peanuts")
    shot(page, "review-detail")

    form = page.locator("form[action='/ui/dismiss']")
    form.get_by_placeholder("reason").fill("she outgrew it")
    # First the person hesitates: cancelling the confirm dialog must change nothing.
    watch.accept_dialogs = False
    button(form, "dismiss").click()
    page.wait_for_timeout(300)  # room for a submit that was not prevented to reach the server
    assert watch.dialogs == ["Really dismiss? The reason is kept in the history."]
    assert f"/items/{item.id}" in page.url and mem.get(item.id, scope=SCOPE).is_current

    watch.accept_dialogs = True
    with page.expect_navigation():
        button(form, "dismiss").click()
    expect(page.locator("p.closed")).to_have_text("This version is dismissed; it can no longer be changed.")
    assert len(watch.dialogs) == 2
    shot(page, "review-detail-dismissed")

    open_scope(page, server)
    assert "Alice is allergic to peanuts" not in item_texts(page)
    assert count(page, "status", "dismissed") == "1"
    search(page, "peanuts")
    assert "Alice is allergic to peanuts" not in item_texts(page)

    assert mem.get(item.id, scope=SCOPE).status == "dismissed"
    assert item.id not in [h.item.id for h in mem.recall("peanuts", scope=SCOPE)]
    again = open_mem(db_path)  # a second Memory on the same file sees it too
    hits = [h.item.text for h in again.recall("Alice peanuts allergy", scope=SCOPE)]
    assert hits == ["Alice prefers window seats"]  # the neighbour is still found; the dismissed item is not
    assert again.get(item.id, scope=SCOPE).status == "dismissed"
    # The reason typed into the form is what the event log keeps.
    assert "she outgrew it" in [e.payload.get("reason") for e in again.history(item.id, scope=SCOPE).events]


def test_contradiction_is_listed_and_resolved_with_one_click(server: str, page: Page, mem: Memory) -> None:
    paris = mem.remember("Alice lives in Paris", scope=SCOPE)
    berlin = mem.remember("Alice lives in Berlin", scope=SCOPE)
    [alert] = mem.contradictions(scope=SCOPE)  # detected on remember, nobody linked them
    assert {alert.a.id, alert.b.id} == {paris.id, berlin.id}

    open_scope(page, server)
    section = page.locator("section.contradictions")
    expect(section.locator("h3")).to_have_text("Contradictions (1)")
    conflict = section.locator("li.conflict")
    expect(conflict).to_have_count(1)
    side_a = conflict.locator("p").nth(0).inner_text()
    side_b = conflict.locator("p").nth(1).inner_text()
    assert side_a.startswith(f"A: {alert.a.text}") and side_b.startswith(f"B: {alert.b.text}")
    assert {alert.a.text, alert.b.text} == {"Alice lives in Paris", "Alice lives in Berlin"}
    section.scroll_into_view_if_needed()
    shot(page, "review-contradictions")

    with page.expect_navigation():
        button(conflict, "keep A").click()
    expect(page.locator("p.flash")).to_have_text("Resolved: the memory you kept stays, the other one is replaced.")
    expect(section.locator("h3")).to_have_text("Contradictions (0)")
    expect(section.locator("li.conflict")).to_have_count(0)
    assert mem.contradictions(scope=SCOPE) == []
    assert mem.get(alert.a.id, scope=SCOPE).is_current
    loser = mem.get(alert.b.id, scope=SCOPE)
    assert not loser.is_current and loser.status == "superseded"
    assert item_texts(page) == [alert.a.text]
    shot(page, "review-contradictions-resolved")


def test_a_false_positive_is_closed_with_one_click_and_both_claims_stay(server: str, page: Page, mem: Memory) -> None:
    """Probe 7 #5: "not a conflict" closes it for good; resolve would have replaced a true claim."""
    seven = mem.remember("The pool opens at 7 am.", scope=SCOPE)
    nine = mem.remember("The pool opens at 9 am.", scope=SCOPE)
    [alert] = mem.contradictions(scope=SCOPE)
    open_scope(page, server)
    section = page.locator("section.contradictions")
    conflict = section.locator("li.conflict")
    expect(conflict).to_have_count(1)
    with page.expect_navigation():
        button(conflict, "not a conflict").click()
    expect(page.locator("p.flash")).to_have_text(
        "Not a conflict: both memories stay, and this pair is not reported again."
    )
    expect(section.locator("h3")).to_have_text("Contradictions (0)")
    assert mem.get(seven.id, scope=SCOPE).is_current and mem.get(nine.id, scope=SCOPE).is_current
    mem.dream(scope=SCOPE)
    assert mem.contradictions(scope=SCOPE) == []
    assert [e.payload["edge_id"] for e in mem.events(scope=SCOPE, limit=100) if e.type == "edge.unlinked"] == [
        alert.edge_id
    ]
    shot(page, "review-contradictions-not-a-conflict")


def test_learning_pause_switch(server: str, page: Page, mem: Memory) -> None:
    mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    open_scope(page, server)
    state = page.locator("section.learning strong")
    expect(state).to_have_text("on")
    assert mem.summary(scope=SCOPE)["learning_paused"] is False

    with page.expect_navigation():
        button(page, "pause learning").click()
    expect(state).to_have_text("paused")
    assert state.evaluate("e => getComputedStyle(e).color") == "rgb(179, 38, 30)"  # .paused is red
    assert mem.summary(scope=SCOPE)["learning_paused"] is True

    with page.expect_navigation():
        button(page, "resume learning").click()
    expect(state).to_have_text("on")
    assert mem.summary(scope=SCOPE)["learning_paused"] is False


def test_stored_script_shows_as_text_and_never_runs(server: str, page: Page, mem: Memory) -> None:
    item = mem.remember(XSS, scope=SCOPE, tags=[XSS], author=XSS)
    mem.remember("an innocent neighbour", scope=SCOPE)

    open_scope(page, server)
    expect(page.get_by_role("link", name=XSS, exact=True)).to_be_visible()
    assert page.evaluate("typeof window.__pwned") == "undefined"

    search(page, XSS)
    assert XSS in item_texts(page)
    assert page.get_by_placeholder("recall…").input_value() == XSS
    assert page.evaluate("typeof window.__pwned") == "undefined"

    page.goto(f"{server}/items/{item.id}?scope={SCOPE}")
    expect(page.locator("main h2")).to_have_text(XSS)
    expect(page.locator("textarea[name=text]")).to_have_value(XSS)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    # The only script elements are the page's own: the stored one never became markup.
    assert page.locator("script").evaluate_all("els => els.map(e => e.getAttribute('src'))") == ["/static/review.js"]


def test_no_console_errors_or_csp_violations(server: str, watched: tuple[Page, Watch], mem: Memory) -> None:
    page, watch = watched
    item = mem.remember("Alice lives in Paris", scope=SCOPE)
    mem.remember("Alice lives in Berlin", scope=SCOPE)
    responses: list[tuple[int, str]] = []
    page.on("response", lambda r: responses.append((r.status, r.url)))

    open_scope(page, server)
    search(page, "Alice")
    page.goto(f"{server}/items/{item.id}?scope={SCOPE}")
    assert watch.problems() == []
    statics = {url.rsplit("/", 1)[-1]: status for status, url in responses if "/static/" in url}
    assert statics == {"review.css": 200, "review.js": 200}
    assert [r for r in responses if r[0] >= 400] == []

    # The watch is not blind: an injected inline script is blocked by the CSP and reported.
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__x = 1'; "
        "document.body.append(s); }"
    )
    _wait_for(page, lambda: bool(watch.csp))
    assert page.evaluate("typeof window.__x") == "undefined"
    assert any("script-src" in v for v in watch.csp), watch.csp
    watch.clear()


def test_sign_in_with_token_then_act(watched: tuple[Page, Watch], mem: Memory) -> None:
    page, watch = watched
    token = "c2VjcmV0/dG9rZW4+IHdpdGggYmFzZTY0=="  # '/' and '=' make the cookie value quoted
    mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    with running(create_app(mem, token=token)) as base:
        page.goto(f"{base}/?scope={SCOPE}")
        assert page.url == f"{base}/login"
        page.get_by_placeholder("token").fill("wrong")
        with page.expect_navigation():
            button(page, "sign in").click()
        assert "wrong token" in page.content()
        assert watch.console_errors == [
            f"console error: Failed to load resource: the server responded with a status of 401 (Unauthorized) "
            f"({base}/login)"
        ]
        watch.clear()  # that 401 was the point

        page.goto(f"{base}/login")
        page.get_by_placeholder("token").fill(token)
        with page.expect_request(lambda r: r.method == "POST") as posted, page.expect_navigation():
            button(page, "sign in").click()
        # The browser names the page's own origin (not "null"), so the Origin check lets it through.
        assert posted.value.header_value("origin") == base
        expect(page.locator("main h2")).to_have_text(SCOPE)
        with page.expect_navigation():
            button(page, "pause learning").click()
        expect(page.locator("section.learning strong")).to_have_text("paused")
        assert mem.summary(scope=SCOPE)["learning_paused"] is True


def test_a_scope_with_a_slash_through_the_picker_links_and_forms(server: str, page: Page, mem: Memory) -> None:
    scope = "team/alpha"
    item = mem.remember("alpha deploys on Fridays", scope=scope, kind="policy")
    mem.remember("alpha uses blue-green deploys", scope=scope, kind="observation")
    mem.remember("the team deploys on Mondays", scope="team")
    open_scope(page, server, "team")
    assert item_texts(page) == ["the team deploys on Mondays"]

    # review.js submits the picker; the browser encodes the '/' of the chosen scope itself.
    with page.expect_navigation():
        page.get_by_label("scope").select_option(scope)
    expect(page.locator("main h2")).to_have_text(scope)
    assert "scope=team%2Falpha" in page.url
    assert sorted(item_texts(page)) == ["alpha deploys on Fridays", "alpha uses blue-green deploys"]

    # The list's filter: pick a kind and press search.
    page.get_by_label("kind").select_option("policy")
    with page.expect_navigation():
        button(page.locator("form.search"), "search").click()
    assert item_texts(page) == ["alpha deploys on Fridays"]
    assert "kind=policy" in page.url and "scope=team%2Falpha" in page.url
    shot(page, "review-slashed-scope-filtered")

    with page.expect_navigation():
        page.get_by_role("link", name="alpha deploys on Fridays").click()
    assert page.url == f"{server}/items/{item.id}?scope=team%2Falpha"
    form = page.locator("form[action='/ui/forget']")
    form.get_by_placeholder("reason").fill("we stopped")
    with page.expect_navigation():
        button(form, "forget").click()
    expect(page.locator("p.closed")).to_have_text("This version is forgotten; it can no longer be changed.")
    assert page.url == f"{server}/items/{item.id}?scope=team%2Falpha&done=forget"
    assert mem.get(item.id, scope=scope).status == "forgotten"
    assert mem.summary(scope="team")["current"] == 1  # the parent scope is untouched

    with page.expect_navigation():
        page.get_by_role("link", name="reverie").click()
    expect(page.locator("main h2")).to_have_text(scope)
    assert item_texts(page) == ["alpha uses blue-green deploys"]


def test_last_dream_pass_is_shown_with_its_reasons(server: str, page: Page, mem: Memory) -> None:
    for text in (
        "Alice drinks green tea every morning",
        "Alice drinks green tea every morning at home",
        "Every morning Alice drinks green tea",
    ):
        mem.remember(text, scope=SCOPE)
    open_scope(page, server)
    expect(page.locator("section.dream h3")).to_have_text("Dreaming")  # no pass yet: only the buttons
    report = mem.dream(scope=SCOPE).to_dict()
    assert report["actions"], "the population should give the pass something to do"
    open_scope(page, server)
    section = page.locator("section.dream")
    expect(section.locator("h3")).to_have_text("Last dream pass")
    expect(section).to_contain_text(report["actions"][0]["reason"][:60])
    section.scroll_into_view_if_needed()
    shot(page, "review-dream")


def _wait_for(page: Page, check: Callable[[], Any], timeout: float = 5.0) -> None:
    """Poll ``check`` while letting Playwright deliver events (``time.sleep`` would not)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        page.wait_for_timeout(50)
