"""A conversation message's memory is the record of what was said: ``revise`` of it is refused.

Outside probe 4, finding 14: ``mem.revise(msg.item_id, "Alice: I will pay 900 euros.")`` was
accepted, and recall then quoted Alice saying 900 (``meta.speaker`` Alice, ``meta.message`` the
archived message) while the archive says 100. The memory holds the message's words, as its purge
is the message's purge; a revision would make recall misquote a person. The refusal says what to
do instead: remember the correction (a claim of its own, which meets the old one), or purge the
message. A claim mined from the message is a belief, and is revised as any claim is.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import ManualClock, Memory
from reverie.errors import InvalidInputError, NotFoundError

SCOPE = "user:alice"


def test_revising_a_messages_memory_is_refused_and_recall_still_quotes_what_was_said(
    mem: Memory, clock: ManualClock, snapshot: Any
) -> None:
    conv = mem.conversation("deal", scope=SCOPE)
    msg = conv.add("I will pay 100 euros.", speaker="Alice", role="user")
    assert msg.item_id is not None
    before = snapshot(mem, SCOPE)
    for attempt in (
        lambda: mem.revise(msg.item_id, "Alice: I will pay 900 euros.", scope=SCOPE, reason="typo"),
        lambda: mem.revise_checked(msg.item_id, "Alice: I will pay 900 euros.", scope=SCOPE),
        lambda: mem.revise(msg.item_id, "Alice: I will pay 900 euros.", scope=SCOPE, valid_from=clock.now()),
    ):
        with pytest.raises(InvalidInputError) as refused:
            attempt()
        assert refused.value.code == "invalid_input"
        assert msg.id in refused.value.message and "remember" in refused.value.message
        assert "purge" in refused.value.message
    assert snapshot(mem, SCOPE) == before
    [hit] = [h.item for h in mem.recall("how much will Alice pay", scope=SCOPE) if h.item.meta.get("message") == msg.id]
    assert "100 euros" in hit.text and "900" not in hit.text
    assert [m.text for m in conv.messages()] == ["I will pay 100 euros."]


def test_a_claim_mined_from_the_message_is_still_revised(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("deal", scope=SCOPE)
    conv.add("I live in Porto.", speaker="Alice", role="user")
    closed = conv.close()
    assert closed.extraction is not None
    [claim] = closed.extraction.claims
    clock.advance(timedelta(minutes=1))
    new = mem.revise(claim, "Alice lives in Braga.", scope=SCOPE, reason="misheard")
    assert new.text == "Alice lives in Braga."


def test_a_plain_claim_naming_a_message_in_its_meta_is_not_a_messages_memory(mem: Memory) -> None:
    conv = mem.conversation("deal", scope=SCOPE)
    msg = conv.add("I will pay 100 euros.", speaker="Alice", role="user")
    note = mem.remember("Alice offered 100 euros.", scope=SCOPE, meta={"message": msg.id, "conversation": "deal"})
    assert mem.revise(note.id, "Alice offered 120 euros.", scope=SCOPE).text == "Alice offered 120 euros."


def test_a_principal_who_may_not_see_the_message_is_told_not_found(tmp_path: Path) -> None:
    """The refusal names the message: it must not tell a principal that a hidden one exists."""
    path = tmp_path / "v.db"
    with Memory(path, embedder="hash", seed=0) as owner:
        msg = owner.conversation("deal", scope=SCOPE, visibility=["agent:a"]).add("I will pay 100 euros.",
                                                                                 speaker="Alice")  # fmt: skip
    assert msg.item_id is not None
    with Memory(path, embedder="hash", principal="agent:b") as b, pytest.raises(NotFoundError):
        b.revise(msg.item_id, "Alice: I will pay 900 euros.", scope=SCOPE)
    with Memory(path, embedder="hash", principal="agent:a") as a, pytest.raises(InvalidInputError, match="remember"):
        a.revise(msg.item_id, "Alice: I will pay 900 euros.", scope=SCOPE)
