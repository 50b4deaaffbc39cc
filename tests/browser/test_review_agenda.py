"""The review page shows a scope's open intents and tasks, and on an item the task and intent
that produced it (issue #18.6), in a real headless Chromium over real HTTP; caller text is escaped."""

from __future__ import annotations

from browser_kit import HAVE_PLAYWRIGHT, SCREENSHOTS, XSS, open_scope, pytestmark

from reverie import Memory

__all__ = ["pytestmark"]  # the skip mark, applied to this module by name
if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Page, expect

SCOPE = "user:alice"


def _overflow(page: Page) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_scope_page_lists_open_intents_and_tasks_only(server: str, page: Page, mem: Memory) -> None:
    mem.remember("Alice may be allergic to peanuts", scope=SCOPE)
    goal = mem.intents.create("Confirm Alice's allergy " + XSS, scope=SCOPE, owner="agent-a", priority=0.9)
    done = mem.intents.create("An intent already done", scope=SCOPE)
    mem.intents.complete(done, scope=SCOPE)
    task = mem.tasks.create("Ask Alice directly", scope=SCOPE, intent=goal, agent="agent-a")
    mem.tasks.start(task, scope=SCOPE)
    mem.tasks.fail(task, "she did not answer", scope=SCOPE)
    open_scope(page, server)
    panel = page.locator("section.agenda")
    expect(panel.locator("h3").first).to_have_text("Open intents (1)")
    expect(panel.locator("table.intents tbody tr")).to_have_count(1)
    expect(panel.locator("table.intents")).to_contain_text("Confirm Alice's allergy <script>")
    expect(panel).not_to_contain_text("An intent already done")
    row = panel.locator(f'table.tasks tr[data-id="{task.id}"]')
    expect(row).to_contain_text("Ask Alice directly")
    expect(row).to_contain_text("failed")
    expect(row).to_contain_text("she did not answer")
    assert page.evaluate("() => window.__pwned") is None
    for label, width in (("laptop", 1280), ("phone", 390)):
        page.set_viewport_size({"width": width, "height": 900})
        page.reload()
        assert _overflow(page) == 0, f"the scope page scrolls sideways at {width} px"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"agenda-{label}.png"), full_page=True)


def test_a_scope_without_intents_shows_no_panel(server: str, page: Page, mem: Memory) -> None:
    mem.remember("a plain claim", scope=SCOPE)
    open_scope(page, server)
    expect(page.locator("section.agenda")).to_have_count(0)


def test_an_items_page_names_the_task_and_intent_that_produced_it(server: str, page: Page, mem: Memory) -> None:
    goal = mem.intents.create("Confirm Alice's allergy", scope=SCOPE)
    task = mem.tasks.create("Ask Alice directly", scope=SCOPE, intent=goal)
    with mem.tasks.running(task, scope=SCOPE) as run:
        made = run.remember("Alice is allergic to peanuts", source="user_stated")
    page.goto(f"{server}/items/{made.id}?scope={SCOPE}")
    produced = page.locator("section.produced")
    expect(produced.locator(f'li.task[data-id="{task.id}"]')).to_contain_text("Ask Alice directly")
    expect(produced.locator(f'li.task[data-id="{task.id}"]')).to_contain_text("completed")
    expect(produced.locator(f'li.intent[data-id="{goal.id}"]')).to_contain_text("Confirm Alice's allergy")
    plain = mem.remember("an unrelated claim", scope=SCOPE)
    page.goto(f"{server}/items/{plain.id}?scope={SCOPE}")
    expect(page.locator("main h2")).to_have_text("an unrelated claim")
    expect(page.locator("section.produced")).to_have_count(0)
