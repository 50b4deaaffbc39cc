"""The "purge the message dated in the future" hint names only the messages its reader may see.

A conversation blocked by a stored message dated beyond the clock (written under a wrong clock,
or before such times were refused; issue #15) refuses the next ``add`` with a hint listing the ids
of the messages to purge. A principal outside such a message's audience was shown its id, and was
told to purge, which no principal may do. Now a principal sees only the ids of the messages it
may see, and is told that only the store's owner can purge; the owner still sees every id.
Every test runs on a SQLite file and PostgreSQL (``store_url``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie import InvalidInputError, ManualClock, Memory

SCOPE = "team:ops"
FAR = datetime(2099, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _blocked_store(url: str) -> tuple[str, str]:
    """A conversation for ann and bob whose two latest messages were dated 2099 by a wrong clock:
    one for both, then one for ann only. Returns their ids (open, ann's)."""
    with Memory(url, embedder="hash", clock=ManualClock(FAR), seed=7) as wrong:
        conv = wrong.conversation("chat", scope=SCOPE, visibility=["user:ann", "user:bob"])
        shared = conv.add("the team meets at noon", speaker="ann")
        private = conv.add("just for me: zqhidden", speaker="ann", visibility=["user:ann"])
        return shared.id, private.id


def _refusal(mem: Memory) -> str:
    with pytest.raises(InvalidInputError) as refused:
        mem.conversation("chat", scope=SCOPE).add("a message at a real time", speaker="bob")
    return refused.value.message


def test_a_principal_is_shown_only_the_ids_of_the_future_messages_it_may_see(store_url: str) -> None:
    shared, private = _blocked_store(store_url)
    with Memory(store_url, embedder="hash", clock=ManualClock(NOW), seed=8) as owner:
        said = _refusal(owner.as_principal("user:bob"))
        assert shared in said and private not in said
        assert "owner" in said  # a principal may not purge: it is told who can
        assert "Conversation.purge" not in said
        said = _refusal(owner.as_principal("user:ann"))
        assert shared in said and private in said
        said = _refusal(owner)
        assert shared in said and private in said and "Conversation.purge" in said
    with Memory(store_url, embedder="hash", clock=ManualClock(NOW), seed=9, principal="user:bob") as bob:
        said = _refusal(bob)  # a Memory opened for a principal, as its view
        assert shared in said and private not in said and "owner" in said


def test_a_principal_who_may_see_none_of_them_is_shown_no_id(store_url: str) -> None:
    with Memory(store_url, embedder="hash", clock=ManualClock(FAR), seed=7) as wrong:
        conv = wrong.conversation("chat", scope=SCOPE, visibility=["user:ann", "user:bob"])
        conv.add("the team meets at noon", speaker="ann", at=NOW)
        private = conv.add("just for me: zqhidden", speaker="ann", visibility=["user:ann"]).id
    with Memory(store_url, embedder="hash", clock=ManualClock(NOW), seed=8) as owner:
        said = _refusal(owner.as_principal("user:bob"))
        assert private not in said and "()" not in said
        assert "owner" in said
