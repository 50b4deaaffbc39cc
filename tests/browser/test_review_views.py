"""The review page as a person who is not a developer sees it (issue #20, items 3–8), in a
real headless Chromium over real HTTP, at a laptop's width (1280 px) and a phone's (390 px).

Each test saves screenshots at both widths to ``$REVERIE_ARTIFACTS/screenshots`` (or
``artifacts/screenshots``), and asserts what the picture should show: no horizontal scrolling,
human times, validity in words, labelled scores, the neighbourhood graph, the charts, the
folded dream summary, and a confirmation after every action.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from browser_kit import HAVE_PLAYWRIGHT, SCREENSHOTS, XSS, Watch, button, item_texts, open_scope, pytestmark, running
from demo_store import SCOPE, Demo, populate

from reverie import ManualClock, Memory
from reverie.http import create_app

__all__ = ["pytestmark"]  # the skip mark, applied to this module by name
if HAVE_PLAYWRIGHT:  # else the kit's pytestmark skips every test
    from playwright.sync_api import Page, expect

WIDTHS = {"laptop": 1280, "phone": 390}
#: A raw ISO time with microseconds, as the page used to print them.
RAW_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
REPRS = ("{'", "[]", "['", "None", "— → —")


@pytest.fixture
def demo(mem: Memory, clock: ManualClock) -> Demo:
    return populate(mem, clock)


def horizontal_overflow(page: Page) -> int:
    """How many pixels the page scrolls sideways (0 when it fits)."""
    return int(page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def at_both_widths(page: Page, url: str, name: str) -> Iterator[str]:
    """Open ``url`` at each width, assert it never scrolls sideways, screenshot it; yields the
    width's name so the caller can check more at each."""
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        assert horizontal_overflow(page) == 0, f"{name} scrolls sideways at {width} px"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
        yield label
    page.set_viewport_size({"width": 1280, "height": 900})


def visible_text(page: Page) -> str:
    return page.locator("main").inner_text()


def test_scope_page_fits_both_widths_and_speaks_in_words(server: str, page: Page, demo: Demo) -> None:
    for label in at_both_widths(page, f"{server}/?scope={SCOPE}", "scope"):
        text = visible_text(page)
        assert not RAW_ISO.search(text), f"a raw ISO time is shown at {label}"
        assert "— → —" not in text and "{'" not in text
        assert "ago" in text and "always" in text and "true since" in text
        # The laptop table shows every column inside the viewport; nothing is cut off.
        if label == "laptop":
            right = page.locator("table.items").evaluate("t => t.getBoundingClientRect().right")
            assert right <= 1280
            headers = page.locator("table.items thead th").all_inner_texts()
            assert headers == ["memory", "tier", "scores", "valid", "recorded", "last used"]  # no empty score column
    # The first screen, as the README shows it (docs/review-page.png is a copy of this file).
    page.goto(f"{server}/?scope={SCOPE}")
    page.screenshot(path=str(SCREENSHOTS / "scope-first-screen-laptop.png"))
    # The exact time is one hover away.
    first = page.locator("table.items time").first
    assert re.fullmatch(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d UTC", first.get_attribute("title") or "")
    # Scores are labelled bars with their numbers.
    score = page.locator("table.items .score").first
    assert score.locator("meter").count() == 1 and re.search(r"trust\s*\d\.\d\d", score.inner_text())


def test_search_adds_the_relevance_column_only_while_searching(server: str, page: Page, demo: Demo) -> None:
    page.goto(f"{server}/?scope={SCOPE}&q=peanuts")
    assert "relevance" in page.locator("table.items thead").inner_text()
    assert horizontal_overflow(page) == 0


def test_validity_in_words(server: str, page: Page, mem: Memory, clock: ManualClock) -> None:
    now = clock.now()
    mem.remember("Alice works at Acme", scope=SCOPE, valid_from=now - timedelta(days=30))
    old = mem.remember("Alice rented a flat in Rome", scope=SCOPE, valid_from=now - timedelta(days=400))
    mem.revise(old.id, "Alice owns a flat in Rome", scope=SCOPE, valid_from=now - timedelta(days=10))
    page.goto(f"{server}/?scope={SCOPE}&status=all")
    text = visible_text(page)
    start = now - timedelta(days=30)
    assert f"true since {start.day} {start:%b %Y}" in text
    assert "(ended)" in text


def test_item_page_reads_well_with_versions_links_and_graph(server: str, page: Page, demo: Demo) -> None:
    url = f"{server}/items/{demo.allergy.id}?scope={SCOPE}"
    for label in at_both_widths(page, url, "item"):
        # One picture per width: the wide one on a laptop, the column on a phone.
        wide, tall = page.locator("svg.graph.wide"), page.locator("svg.graph.tall")
        expect(wide if label == "laptop" else tall).to_be_visible()
        expect(tall if label == "laptop" else wide).to_be_hidden()
        text = visible_text(page)
        for repr_ in REPRS:
            assert repr_ not in text, f"{repr_!r} on the item page"
        assert not RAW_ISO.search(text)
    about = page.locator("section.about")
    expect(about).to_contain_text("alice.allergy = peanuts")
    expect(about).to_contain_text("always")
    assert about.locator("meter").count() == 5
    # Links name the other item by its text, never a bare id.
    links = page.locator("table.edges")
    expect(links).to_contain_text("Alice avoids Thai dishes with peanut sauce")
    expect(links).to_contain_text("supported by")
    assert not re.search(r"\b[0-9a-f]{8}-[0-9a-f]{4}-", links.inner_text())
    # The neighbourhood: the item in the centre, its derived item around it, linked.
    graph = page.locator("svg.graph.wide")
    expect(graph.locator(".node.centre")).to_have_count(1)
    expect(graph.locator(".node.centre text").first).to_have_text("Alice is allergic to")
    expect(graph.locator(".node.centre text").nth(1)).to_have_text("peanuts")
    neighbour = graph.locator("a .node", has_text="Alice avoids Thai")
    expect(neighbour.first).to_be_visible()
    # One node for the derived item, naming both ways it relates (derived from it, supports it).
    assert graph.locator(".node.rel-source-of").count() == 1
    expect(graph.locator(".link.rel-source-of text")).to_have_text("source of · supported by")
    with page.expect_navigation():
        graph.locator("a").first.click()
    assert "/items/" in page.url and demo.allergy.id not in page.url


def test_versions_mark_current_and_closed_and_the_version_matches(server: str, page: Page, demo: Demo) -> None:
    url = f"{server}/items/{demo.city.id}?scope={SCOPE}"
    for _ in at_both_widths(page, url, "item-versions"):
        pass
    expect(page.locator(".lede")).to_have_text("current · version 2 of 2")
    rows = page.locator("table.versions tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("closed")
    expect(rows.nth(0)).to_contain_text("replaced by the next version")
    expect(rows.nth(0)).to_contain_text("she moved in March")
    expect(rows.nth(1)).to_contain_text("current")
    expect(rows.nth(1)).to_contain_text("this page")
    # The old version's own page says version 1 of 2 and is closed.
    with page.expect_navigation():
        rows.nth(0).get_by_role("link").click()
    expect(page.locator(".lede")).to_have_text("replaced · version 1 of 2")
    graph = page.locator("svg.graph.wide")
    assert graph.locator(".node.rel-replaced-by").count() == 1


def test_scope_page_charts_tiers_over_time_and_dream_passes(server: str, page: Page, demo: Demo) -> None:
    page.goto(f"{server}/?scope={SCOPE}")
    tiers = page.locator("figure.chart-tiers")
    expect(tiers.locator("figcaption")).to_contain_text("Memories believed over time, by tier")
    assert tiers.locator("rect.tier-active").count() > 0
    runs = page.locator("figure.chart-runs")
    expect(runs.locator("figcaption")).to_have_text("The last 2 dream passes")
    assert runs.locator("rect").count() == 6  # 2 passes × (demoted, consolidated, contradictions)
    section = page.locator("section.dream")
    section.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "scope-dream-laptop.png"), full_page=False)


def test_dream_panel_is_a_summary_with_details_folded(server: str, page: Page, demo: Demo) -> None:
    page.goto(f"{server}/?scope={SCOPE}")
    panel = page.locator("section.dream")
    summary = panel.locator(".dream-summary")
    expect(summary).to_contain_text(re.compile(r"^Ran \d+ hours? ago: \d+ changes? \(\d+ applied\)"))
    text = panel.inner_text()
    assert "{'" not in text and "[{" not in text
    details = panel.locator("details")
    assert details.count() >= 2
    actions = panel.locator("details.actions")
    assert actions.get_attribute("open") is None  # folded
    expect(actions.locator("li").first).not_to_be_visible()
    actions.locator("summary").click()
    expect(actions.locator("li").first).to_be_visible()
    # An action names its memories by their text.
    assert actions.locator("a.chip").count() > 0
    assert not re.search(r"memory [0-9a-f]{8}", actions.inner_text())
    panel.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(SCREENSHOTS / "dream-panel-laptop.png"))


def test_status_filter_shows_closed_items(server: str, page: Page, demo: Demo) -> None:
    open_scope(page, server)
    assert "Alice hates jazz" not in item_texts(page)
    page.get_by_label("status").select_option("dismissed")
    with page.expect_navigation():
        button(page.locator("form.search"), "search").click()
    assert item_texts(page) == ["Alice hates jazz"]
    expect(page.locator("table.items .meta").first).to_contain_text("dismissed")
    page.get_by_label("status").select_option("all")
    with page.expect_navigation():
        button(page.locator("form.search"), "search").click()
    texts = item_texts(page)
    assert "Alice hates jazz" in texts and "Alice lives in Paris" in texts and "Alice lives in Lyon" in texts


def test_undismiss_lets_the_value_be_learned_again(server: str, page: Page, mem: Memory, demo: Demo) -> None:
    page.goto(f"{server}/items/{demo.dismissed.id}?scope={SCOPE}")
    form = page.locator("form[action='/ui/undismiss']")
    form.get_by_placeholder("reason").fill("she does hate jazz after all")
    with page.expect_navigation():
        button(form, "undismiss").click()
    expect(page.locator("p.flash")).to_have_text("Undismissed: this value may be learned again.")
    again = mem.remember("Alice hates jazz", scope=SCOPE, source="inferred")  # no longer refused
    assert again.is_current


def test_correct_it_changes_text_and_structured_value(server: str, page: Page, mem: Memory, demo: Demo) -> None:
    page.goto(f"{server}/items/{demo.city.id}?scope={SCOPE}")
    form = page.locator("form[action='/ui/revise']")
    form.locator("textarea[name=text]").fill("Alice lives in Marseille")
    expect(form.locator("input[name=value]")).to_have_value("Lyon")
    form.locator("input[name=value]").fill("Marseille")
    form.get_by_placeholder("reason").fill("moved again")
    with page.expect_navigation():
        button(form, "revise").click()
    expect(page.locator("p.flash")).to_have_text(
        "Corrected: this is the new version; the old one is kept in its history."
    )
    expect(page.locator("main h2")).to_have_text("Alice lives in Marseille")
    expect(page.locator("section.about")).to_contain_text("alice.city = Marseille")
    expect(page.locator(".lede")).to_have_text("current · version 3 of 3")
    [current] = [i for i in mem.list(scope=SCOPE).items if i.key == "alice.city"]
    assert (current.text, current.value) == ("Alice lives in Marseille", "Marseille")


def test_every_action_confirms_what_it_did(server: str, page: Page, mem: Memory, demo: Demo) -> None:
    item = f"{server}/items/{demo.tea.id}?scope={SCOPE}"
    page.goto(item)
    scores = page.locator("form[action='/ui/scores']")
    scores.locator("input[name=authority]").fill("0.8")  # the form sends only what was changed
    with page.expect_navigation():
        button(scores, "set scores").click()
    expect(page.locator("p.flash")).to_have_text("Scores saved.")
    with page.expect_navigation():
        button(page, "pin as durable").click()
    expect(page.locator("p.flash")).to_have_text("Pinned: it stays in the durable tier.")
    with page.expect_navigation():
        button(page, "promote to manual").click()
    expect(page.locator("p.flash")).to_have_text("Promoted: it now carries your authority (source manual).")
    with page.expect_navigation():
        button(page, "forget").click()
    expect(page.locator("p.flash")).to_have_text("Forgotten: it is no longer believed (its history is kept).")
    open_scope(page, server)
    with page.expect_navigation():
        button(page, "pause learning").click()
    expect(page.locator("p.flash")).to_contain_text("Learning is paused")
    with page.expect_navigation():
        button(page, "resume learning").click()
    expect(page.locator("p.flash")).to_have_text("Learning resumed.")
    shot_both(page, "flash")
    # A made-up message in the URL shows nothing: the page says only what it did.
    page.goto(f"{server}/?scope={SCOPE}&done=You+won+a+prize")
    expect(page.locator("p.flash")).to_have_count(0)


def shot_both(page: Page, name: str) -> None:
    url = page.url
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=False)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_dream_preview_then_run(server: str, page: Page, mem: Memory, clock: ManualClock) -> None:
    for text in (
        "Alice drinks green tea every morning",
        "Alice drinks green tea every morning at home",
        "Every morning Alice drinks green tea",
    ):
        mem.remember(text, scope=SCOPE)
    open_scope(page, server)
    expect(page.locator("section.dream h3")).to_have_text("Dreaming")
    with page.expect_navigation():
        page.get_by_role("link", name="preview a dream pass (dry run)").click()
    expect(page.locator("section.preview h3")).to_have_text("If a dream pass ran now")
    expect(page.locator(".dream-summary")).to_contain_text("a dry run: nothing was changed")
    assert page.locator("details.actions").get_attribute("open") is not None  # the plan is the page: unfolded
    assert mem.dream_runs(scope=SCOPE) == []  # the preview wrote nothing
    for _ in at_both_widths(page, page.url, "dream-preview"):
        pass
    with page.expect_navigation():
        button(page, "run this pass now").click()
    expect(page.locator("p.flash")).to_have_text("Dream pass done: see what it did below.")
    expect(page.locator("section.dream h3")).to_have_text("Last dream pass")
    assert len(mem.dream_runs(scope=SCOPE)) == 1


def test_a_bad_scope_shows_the_pages_own_error(server: str, watched: tuple[Page, Watch]) -> None:
    page, watch = watched
    response = page.goto(f"{server}/?scope=not%20a%20scope!")
    assert response is not None and response.status == 400
    expect(page.locator("section.error h2")).to_have_text("That did not work")
    expect(page.locator("section.error")).to_contain_text("is malformed")
    expect(page.locator("header h1")).to_have_text("reverie")  # the page's own frame, not raw JSON
    for _ in at_both_widths(page, page.url, "error"):
        pass
    watch.console_errors.clear()  # the 400 the browser logs for each load is the point


def test_hostile_text_in_the_graph_stays_text(server: str, page: Page, mem: Memory) -> None:
    evil = mem.remember(XSS + '"><svg onload="window.__pwned=2">', scope=SCOPE)
    centre = mem.remember("Alice likes <b>bold</b> claims", scope=SCOPE, parents=[evil.id])
    mem.link(centre.id, evil.id, "supports", scope=SCOPE)
    page.goto(f"{server}/items/{centre.id}?scope={SCOPE}")
    graph = page.locator("svg.graph.wide")
    expect(graph.locator(".node.rel-derived-from title")).to_have_text(evil.text)
    expect(graph.locator(".node.centre text").first).to_have_text("Alice likes <b>bold</b>")
    expect(graph.locator(".node.centre text").nth(1)).to_have_text("claims")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert graph.locator("script, foreignObject, [onload]").count() == 0
    assert page.locator("figure.graph svg").count() == 2  # wide and tall: the injected <svg> never became markup
    assert page.locator("figure.graph svg svg").count() == 0


def test_token_server_still_serves_the_new_pages(page: Page, mem: Memory, clock: ManualClock) -> None:
    demo = populate(mem, clock)
    with running(create_app(mem, token="tok-123456")) as base:
        page.goto(f"{base}/dream?scope={SCOPE}")
        assert page.url == f"{base}/login"
        page.get_by_placeholder("token").fill("tok-123456")
        with page.expect_navigation():
            button(page, "sign in").click()
        page.goto(f"{base}/items/{demo.allergy.id}?scope={SCOPE}")
        expect(page.locator("svg.graph.wide")).to_be_visible()
