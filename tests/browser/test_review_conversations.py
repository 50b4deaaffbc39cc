"""The review page's conversation and people views (issue #15.7), in a real headless Chromium
over real HTTP: linked from the scope page, messages with the claims extracted from each and
the tool-call records, people with aliases, relations and claims; caller text is escaped."""

from __future__ import annotations

from browser_kit import HAVE_PLAYWRIGHT, SCREENSHOTS, XSS, Watch, open_scope, pytestmark

from reverie import Memory

__all__ = ["pytestmark"]  # the skip mark, applied to this module by name
if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Page, expect

SCOPE = "user:alice"


def _talk(mem: Memory) -> None:
    conv = mem.conversation("c1", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    conv.tool_call("weather", args={"city": XSS}, detail="sunny")
    conv.add("Omar is my manager. " + XSS, speaker="Alice")
    conv.close()


def test_scope_page_links_to_the_conversation_view_with_claims_and_tool_calls(
    server: str, page: Page, mem: Memory
) -> None:
    _talk(mem)
    open_scope(page, server)
    page.locator("a.conversations-link").click()
    page.locator('tr.conversation[data-id="c1"] a').click()
    view = page.locator("section.conversation")
    said = mem.conversation("c1", scope=SCOPE, create=False).messages()
    first = view.locator(f'li.message[data-id="{said[0].id}"]')
    expect(first.locator(".speaker")).to_have_text("Alice")
    expect(first.locator("li.claim")).to_contain_text(["Dana is Alice's sister."])
    tool = view.locator("li.tool-call")
    expect(tool.locator(".tool")).to_have_text("weather")
    expect(tool.locator(".args")).to_contain_text("<script>")
    expect(view.locator(f'li.message[data-id="{said[1].id}"] .text')).to_contain_text("<script>window.__pwned=1")
    assert page.evaluate("() => window.__pwned") is None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "conversation.png"), full_page=True)


def test_people_view_shows_aliases_relations_and_claims(server: str, page: Page, mem: Memory) -> None:
    _talk(mem)
    open_scope(page, server)
    page.locator("a.people-link").click()
    expect(page.locator("section.people tr.person")).to_have_count(len(mem.people(scope=SCOPE)))
    page.locator("section.people tr.person a", has_text="Dana").click()
    person = page.locator("section.person")
    expect(person.locator("h3")).to_have_text("Dana")
    expect(person.locator("li.relation")).to_contain_text(["Dana is Alice's sister"])
    expect(person.locator("ul.claims")).to_contain_text("Dana lives in Lisbon")
    page.screenshot(path=str(SCREENSHOTS / "person.png"), full_page=True)


def test_an_unknown_conversation_shows_the_error_page_and_creates_nothing(
    server: str, watched: tuple[Page, Watch], mem: Memory
) -> None:
    page, watch = watched
    _talk(mem)
    response = page.goto(f"{server}/conversation?scope={SCOPE}&id=nope")
    assert response is not None and response.status == 404
    expect(page.locator("section.error")).to_contain_text("no conversation 'nope'")
    assert [c.id for c in mem.conversations(scope=SCOPE)] == ["c1"]
    assert len(watch.console_errors) == 1 and "404" in watch.console_errors[0]
    watch.clear()  # that 404 was the point


def test_a_scope_without_conversations_shows_no_link(server: str, page: Page, mem: Memory) -> None:
    mem.remember("a plain claim", scope=SCOPE)
    open_scope(page, server)
    expect(page.locator("section.conversations-links")).to_have_count(0)
