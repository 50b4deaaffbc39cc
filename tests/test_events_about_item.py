"""Which events are *about* an item (``Store.events(item_id=...)``): the same answer on every backend.

Regression (the reference store disagreed): its test also matched an event's ``by`` field, so a
``memory.superseded`` event (``{"id": old, "by": twin}``) counted as about the twin there, while
SQLite and PostgreSQL (``event_refs.ABOUT_PATHS``) read it as about the superseded item only.
The reference store is the oracle the others are checked against: it must give their answer.
"""

from __future__ import annotations

from reverie import Memory

S = "u"


def test_a_superseded_event_is_about_the_superseded_item_not_its_superseder(any_mem: Memory) -> None:
    twin = any_mem.remember("The printer is on floor two.", scope=S)
    old = any_mem.remember("The printer is on floor three.", scope=S)
    any_mem.revise(old.id, "The printer is on floor two.", scope=S)  # corrected into the twin's words
    about_twin = [e.type for e in any_mem.store.events(S, item_id=twin.id)]
    about_old = [e.type for e in any_mem.store.events(S, item_id=old.id)]
    assert about_twin == ["memory.remembered", "memory.corroborated"]
    assert about_old == ["memory.remembered", "memory.superseded"]
