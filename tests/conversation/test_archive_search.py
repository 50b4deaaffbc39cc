"""The archive: exact quotes with their span, newest first, per conversation or across the scope."""

from __future__ import annotations

from datetime import timedelta

from reverie import ManualClock, Memory

SCOPE = "user:alice"


def test_a_quote_is_found_with_its_span_speaker_time_and_conversation(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE)
    at = clock.now() - timedelta(days=2)
    msg = conv.add("Honestly, the Blue Whale café on 5th street is my favourite.", speaker="Alice", at=at)
    # exact means exact: the full-text index folds "café" to "cafe", but the span check does not
    assert mem.archive_search("blue whale cafe", scope=SCOPE) == []
    [hit] = mem.archive_search("the blue whale", scope=SCOPE)
    assert (hit.message_id, hit.conversation, hit.speaker, hit.at) == (msg.id, "chat-1", "Alice", at)
    assert hit.span == (10, 24) and hit.quote == "the Blue Whale"


def test_punctuation_between_the_words_of_a_quote_does_not_matter(mem: Memory) -> None:
    mem.conversation("c", scope=SCOPE).add("Remind me: eggs, milk -- and bread.", speaker="A")
    [hit] = mem.archive_search("eggs milk and bread", scope=SCOPE)
    assert hit.quote == "eggs, milk -- and bread"


def test_words_out_of_order_are_not_a_quote(mem: Memory) -> None:
    mem.conversation("c", scope=SCOPE).add("the cat sat on the mat", speaker="A")
    assert mem.archive_search("mat the on", scope=SCOPE) == []
    assert len(mem.archive_search("sat on the", scope=SCOPE)) == 1


def test_hits_come_newest_first_and_k_bounds_them(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    ids = [conv.add(f"deploy the release {i}", speaker="A").id for i in range(5)]
    hits = mem.archive_search("deploy the release", scope=SCOPE, k=3)
    assert [h.message_id for h in hits] == ids[::-1][:3]


def test_search_can_be_narrowed_to_one_conversation(mem: Memory) -> None:
    mem.conversation("a", scope=SCOPE).add("the launch code", speaker="A")
    mem.conversation("b", scope=SCOPE).add("the launch code", speaker="B")
    assert [h.conversation for h in mem.archive_search("launch code", scope=SCOPE, conversation="b")] == ["b"]
    assert {h.conversation for h in mem.archive_search("launch code", scope=SCOPE)} == {"a", "b"}


def test_tool_calls_summaries_and_recaps_are_not_in_the_archive_search(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("hello world", speaker="A")
    conv.tool_call("hello")
    clock.advance(hours=1)
    assert mem.recap(scope=SCOPE) is not None  # its text quotes "hello world"
    assert [h.quote for h in mem.archive_search("hello world", scope=SCOPE)] == ["hello world"]
