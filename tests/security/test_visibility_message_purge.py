"""Purging a message kept the next messages' memories, re-written without it — and visible to everyone.

A message's memory quotes the messages before it (its context window), so ``conv.purge`` re-writes
each later memory without the purged words. The re-written memory was remembered with no
``visibility``: a later message whose memory had been restricted came back open to every
principal, words, archive entry and all. Now it keeps its audience. (Found while checking the
visibility promise for the parents leak.)
"""

from __future__ import annotations

from reverie import Memory

from .kit import dump

SCOPE = "team:ops"


def test_purging_a_message_keeps_the_audience_of_the_later_memories_it_rewrites(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    first = conv.add("the launch code is zqone", speaker="alice")
    second = conv.add("and the backup is zqtwo", speaker="alice")
    assert second.item_id is not None
    any_mem.set_visibility(second.item_id, scope=SCOPE, visibility=["agent:ops"], reason="secret")
    conv.purge(first.id, reason="erase")
    rewritten = [i for i in any_mem.list(scope=SCOPE).items if "zqtwo" in i.text]
    assert len(rewritten) == 1 and rewritten[0].visibility == ("agent:ops",)
    bob = any_mem.as_principal("agent:bob")
    seen = dump(
        [
            [i.to_dict() for i in bob.list(scope=SCOPE, include_closed=True).items],
            [e.to_dict() for e in bob.conversation("chat-1", scope=SCOPE).history()],
            [e.to_dict() for e in bob.archive_search("zqtwo backup", scope=SCOPE)],
        ]
    )
    assert "zqtwo" not in seen and "zqone" not in seen
    assert "zqtwo" in dump([i.to_dict() for i in any_mem.as_principal("agent:ops").list(scope=SCOPE).items])
