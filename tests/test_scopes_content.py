"""``scopes()`` lists every scope that holds anything, not only the scopes that hold items.

Regression (outside probe): ``Store.scopes`` read ``SELECT DISTINCT scope FROM items``, so a scope
holding only intents, tasks, a conversation or a learning pause was absent. Everything that walks
``scopes()`` to copy or dump a store dropped it: ``reverie migrate`` left its intents and its
conversation behind, and the demo's ``--if-empty`` took such a store for an empty one and deleted
it. A scope is listed once its log holds an event of any kind, on every backend.
"""

from __future__ import annotations

from reverie import Memory

ITEMS = "team/items"
PLANS = "team/plans"


def fill_without_items(mem: Memory, scope: str = PLANS) -> None:
    """An intent, a task of it and an opened conversation (no message yet): content, but no item."""
    intent = mem.intents.create("Ship the billing report", scope=scope)
    mem.tasks.create("Draft the summary table", scope=scope, intent=intent)
    mem.conversation("support-42", scope=scope)


def test_a_scope_with_intents_and_a_conversation_but_no_item_is_listed(any_mem: Memory) -> None:
    any_mem.remember("Alice is allergic to peanuts", scope=ITEMS)
    fill_without_items(any_mem)
    assert any_mem.list(scope=PLANS, include_closed=True).items == []
    assert any_mem.scopes() == sorted([ITEMS, PLANS])


def test_each_kind_of_content_alone_lists_its_scope(any_mem: Memory) -> None:
    any_mem.intents.create("Plan the offsite", scope="only/intent")
    any_mem.conversation("hello", scope="only/conversation")
    any_mem.pause_learning("only/paused", reason="a scope paused before its first claim")
    assert any_mem.scopes() == ["only/conversation", "only/intent", "only/paused"]


def test_a_store_without_any_event_lists_no_scope(any_mem: Memory) -> None:
    assert any_mem.scopes() == []


def test_a_principal_is_listed_the_scopes_where_it_sees_something(any_mem: Memory) -> None:
    """Intents and tasks carry no audience (every principal of the scope sees them); a conversation
    and an item are listed only to their audience: a scope holding nothing else stays unnamed."""
    fill_without_items(any_mem)
    any_mem.conversation("private", scope="team/private", visibility=["agent:a"])
    any_mem.remember("Only agent a may read this", scope="team/hidden", visibility=["agent:a"])
    assert any_mem.scopes() == ["team/hidden", PLANS, "team/private"]
    assert any_mem.as_principal("agent:a").scopes() == ["team/hidden", PLANS, "team/private"]
    assert any_mem.as_principal("agent:b").scopes() == [PLANS]
