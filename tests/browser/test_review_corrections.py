"""The item page's correcting forms send only what the person changed, in a real Chromium.

Regressions (outside tester, findings 6 and 10): the forms are pre-filled, and they sent every
field back as it was shown. "Correct it" re-sent the old key and value, so correcting only the
text ("1024 MB" → "2048 MB") kept ``value=1024`` where ``revise(id, text)`` in Python, HTTP and the
CLI clears a value the new text no longer states. "set scores" re-sent every score rounded to two
decimals (0.6666 → 0.67) and set importance, which flagged the item ``importance_stated`` so its
importance never settled again — when the person had changed only the trust.
"""

from __future__ import annotations

from browser_kit import HAVE_PLAYWRIGHT, SCOPE, Watch, button, pytestmark

from reverie import Memory

__all__ = ["pytestmark"]  # the skip mark, applied to this module by name
if HAVE_PLAYWRIGHT:  # else the kit's pytestmark skips every test
    from playwright.sync_api import Page, expect

CORRECTED = "Corrected: this is the new version; the old one is kept in its history."


def _revise_on_the_page(page: Page, server: str, item_id: str, **fill: str) -> None:
    page.goto(f"{server}/items/{item_id}?scope={SCOPE}")
    form = page.locator("form[action='/ui/revise']")
    for name, text in fill.items():
        form.locator(f"[name={name}]").fill(text)
    with page.expect_navigation():
        button(form, "revise").click()
    expect(page.locator("p.flash")).to_have_text(CORRECTED)


def test_correcting_only_the_text_behaves_like_revise(server: str, page: Page, mem: Memory) -> None:
    item = mem.remember("The upload quota is 1024 MB", scope=SCOPE, key="quota", value=1024)
    page.goto(f"{server}/items/{item.id}?scope={SCOPE}")
    expect(page.locator("form[action='/ui/revise'] input[name=value]")).to_have_value("1024")  # shown as it is
    _revise_on_the_page(page, server, item.id, text="The upload quota is 2048 MB")
    [now] = mem.list(scope=SCOPE).items
    assert (now.text, now.key, now.value) == ("The upload quota is 2048 MB", "quota", None)  # as revise() does
    echo = mem.remember("quota", scope=SCOPE, key="quota", value=1024, source="inferred")
    assert echo.id != now.id  # the old value said again no longer corroborates the correction


def test_a_text_that_still_states_the_value_keeps_it_as_revise_does(server: str, page: Page, mem: Memory) -> None:
    item = mem.remember("The upload quota is 1024 MB", scope=SCOPE, key="quota", value=1024)
    _revise_on_the_page(page, server, item.id, text="The upload quota is 1024 MB per user")
    [now] = mem.list(scope=SCOPE).items
    assert (now.key, now.value) == ("quota", 1024)  # still a number, as the text still says it


def test_a_value_the_person_types_is_kept_and_a_cleared_one_is_dropped(server: str, page: Page, mem: Memory) -> None:
    item = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    _revise_on_the_page(page, server, item.id, text="Alice moved to the south", value="Lyon")
    [now] = mem.list(scope=SCOPE).items
    assert (now.text, now.key, now.value) == ("Alice moved to the south", "alice.city", "Lyon")
    _revise_on_the_page(page, server, now.id, text="Alice lives in Lyon, near the river", value="")
    [last] = mem.list(scope=SCOPE).items
    assert (last.key, last.value) == ("alice.city", None)  # emptied by the person: no value, though the text says it


def test_setting_only_trust_changes_only_trust(server: str, page: Page, mem: Memory) -> None:
    item = mem.remember("Server runs Ubuntu", scope=SCOPE, importance=0.333, confidence=0.6666, durability=0.125)
    before = mem.get(item.id, scope=SCOPE)
    page.goto(f"{server}/items/{item.id}?scope={SCOPE}")
    form = page.locator("form[action='/ui/scores']")
    expect(form.locator("input[name=confidence]")).to_have_value("0.67")  # shown rounded, never sent so
    form.locator("input[name=authority]").fill("0.9")
    with page.expect_navigation():
        button(form, "set scores").click()
    expect(page.locator("p.flash")).to_have_text("Scores saved.")
    after = mem.get(item.id, scope=SCOPE)
    assert after.scores.authority == 0.9
    for name in ("confidence", "importance", "durability", "value"):
        assert getattr(after.scores, name) == getattr(before.scores, name), name
    assert "importance_stated" not in after.flags  # importance was not touched: it still settles


def test_setting_importance_on_the_page_states_it(server: str, page: Page, mem: Memory) -> None:
    item = mem.remember("Server runs Ubuntu", scope=SCOPE, confidence=0.6666)
    page.goto(f"{server}/items/{item.id}?scope={SCOPE}")
    form = page.locator("form[action='/ui/scores']")
    form.locator("input[name=importance]").fill("0.8")
    with page.expect_navigation():
        button(form, "set scores").click()
    after = mem.get(item.id, scope=SCOPE)
    assert (after.scores.importance, after.scores.confidence) == (0.8, 0.6666)
    assert "importance_stated" in after.flags


def test_set_scores_with_nothing_changed_says_so_and_writes_nothing(
    server: str, watched: tuple[Page, Watch], mem: Memory
) -> None:
    page, watch = watched
    item = mem.remember("Server runs Ubuntu", scope=SCOPE, confidence=0.6666)
    events = len(mem.events(scope=SCOPE))
    page.goto(f"{server}/items/{item.id}?scope={SCOPE}")
    with page.expect_navigation():
        button(page.locator("form[action='/ui/scores']"), "set scores").click()
    expect(page.locator("section.error h2")).to_have_text("That did not work")
    expect(page.locator("section.error")).to_contain_text("no score was changed")
    assert len(mem.events(scope=SCOPE)) == events
    watch.console_errors.clear()  # the 400 the browser logs for the refused form is the point
