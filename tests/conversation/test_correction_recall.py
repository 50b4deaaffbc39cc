"""A correction of a claim mined from a chat is recalled, not folded into the message it came from.

The conversation defaults keep one hit per source (a message and the claims mined from it are
one source). A revised claim no longer says what the message said: "I live in Porto" was mined
as "Alice lives in Porto", then corrected to "Alice lives in Lisbon". Folding the correction into
the message answered "where does Alice live" with the corrected-away words only (outside probe 3,
finding 3). The unrevised claim still folds into its message.
"""

from __future__ import annotations

from reverie import Memory

SCOPE = "user:a"


def _chat_then_correct(mem: Memory) -> str:
    conv = mem.conversation("c1", scope=SCOPE)
    conv.add("I live in Porto.", speaker="Alice", role="user")
    conv.add("Nice, Porto is lovely.", speaker="Bot", role="assistant")
    conv.close()
    mined = next(i for i in mem.list(scope=SCOPE).items if i.text == "Alice lives in Porto.")
    return mem.revise(mined.id, "Alice lives in Lisbon.", scope=SCOPE, reason="she moved").id


def test_default_recall_and_context_carry_the_correction(mem: Memory) -> None:
    corrected = _chat_then_correct(mem)
    hits = mem.recall("where does Alice live", scope=SCOPE, record_use=False)
    assert corrected in [h.item.id for h in hits]
    assert "Lisbon" in mem.context("where does Alice live", scope=SCOPE)


def test_an_unrevised_mined_claim_still_folds_into_its_message(mem: Memory) -> None:
    conv = mem.conversation("c1", scope=SCOPE)
    conv.add("I live in Porto.", speaker="Alice", role="user")
    conv.close()
    hits = mem.recall("where does Alice live", scope=SCOPE, record_use=False)
    sources = [h.item.meta.get("message_id") or h.item.meta.get("message") for h in hits]
    named = [s for s in sources if s is not None]
    assert len(named) == len(set(named))  # one hit per message
    assert any(h.why.get("same_source_folded") for h in hits)
