"""The review page's bias alerts (h-patterns), in a real headless Chromium over real HTTP:
listed from the last dream pass, dismissed with one click, still dismissed after the next pass."""

from __future__ import annotations

from browser_kit import HAVE_PLAYWRIGHT, SCOPE, XSS, button, open_scope, pytestmark, shot

from reverie import Memory

if HAVE_PLAYWRIGHT:  # else the kit's pytestmark skips every test
    from playwright.sync_api import Page, expect

__all__ = ["pytestmark"]


def test_bias_alert_is_listed_and_dismissed_with_one_click(server: str, page: Page, mem: Memory) -> None:
    for text in ("Rosa lives in Seattle", "Rosa works at the harbour office", f"Rosa speaks Portuguese {XSS}"):
        mem.remember(text, scope=SCOPE, source="user_stated", author="bob")
    mem.dream(scope=SCOPE)
    [alert] = mem.alerts(scope=SCOPE)

    open_scope(page, server)
    section = page.locator("section.alerts")
    expect(section.locator("h3")).to_have_text("Bias alerts (1)")
    row = section.locator("li.bias-alert")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-kind", "single_source")
    expect(row.locator("p").nth(0)).to_have_text("single source — rosa")
    expect(row.locator("p").nth(1)).to_have_text(alert.reason)
    section.scroll_into_view_if_needed()
    shot(page, "review-alerts")

    with page.expect_navigation():
        button(row, "dismiss alert").click()
    expect(page.locator("p.flash")).to_have_text("Alert dismissed: it stays dismissed until its evidence changes.")
    expect(section.locator("h3")).to_have_text("Bias alerts (0)")
    assert mem.alerts(scope=SCOPE) == []
    mem.dream(scope=SCOPE)
    page.reload()
    expect(section.locator("h3")).to_have_text("Bias alerts (0)")
    assert [a.id for a in mem.alerts(scope=SCOPE, include_dismissed=True)] == [alert.id]
