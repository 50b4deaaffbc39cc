"""The conversation API: add, tool_call, history, the archive read-back, resume and scope isolation."""

from __future__ import annotations

from datetime import timedelta

from reverie import ManualClock, Memory, Q

SCOPE = "user:alice"


def test_add_returns_the_stored_message_with_its_id_position_turn_and_memory(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE)
    first = conv.add("I adopted a puppy named Biscuit.", speaker="Alice")
    conv.tool_call("weather", args={"city": "Oslo"})
    second = conv.add("What breed is Biscuit?", speaker="Bot", role="assistant", meta={"channel": "web"})
    assert (first.position, first.turn, second.position, second.turn) == (1, 1, 3, 2)
    assert first.id != second.id and first.at == clock.now()
    item = mem.get(second.item_id or "", scope=SCOPE)
    assert item.author == "Bot" and item.valid_from == clock.now()
    assert item.meta == {
        "channel": "web", "conversation": "chat-1", "message": second.id, "turn": 2, "session": 1,
        "role": "assistant", "speaker": "Bot",
    }  # fmt: skip
    assert "What breed is Biscuit?" in item.text and "Alice: I adopted a puppy" in item.text  # context


def test_tool_call_records_name_args_status_and_detail_never_a_result(mem: Memory) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE)
    entry = conv.tool_call("search", args={"q": "vets near me"}, status="error", detail="timed out after 5 s")
    assert (entry.kind, entry.text) == ("tool_call", "search")
    assert entry.meta == {"args": {"q": "vets near me"}, "status": "error", "detail": "timed out after 5 s"}
    assert mem.list(scope=SCOPE).items == []  # a tool call is not a recallable memory


def test_history_is_the_session_in_order_and_messages_rereads_the_archive(mem: Memory) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE)
    conv.add("hello", speaker="Alice")
    conv.tool_call("lookup")
    conv.add("hi Alice", speaker="Bot", role="assistant")
    assert [(e.kind, e.text) for e in conv.history()] == [
        ("message", "hello"), ("tool_call", "lookup"), ("message", "hi Alice"),
    ]  # fmt: skip
    assert [e.text for e in conv.messages()] == ["hello", "hi Alice"]


def test_opening_an_existing_conversation_resumes_it(mem: Memory) -> None:
    mem.conversation("chat-1", scope=SCOPE).add("one", speaker="Alice")
    again = mem.conversation("chat-1", scope=SCOPE)
    assert again.add("two", speaker="Alice").turn == 2
    assert [e.text for e in again.messages()] == ["one", "two"]


def test_message_text_is_kept_word_for_word(mem: Memory) -> None:
    text = "  Exactly   this,\n with   spacing — and ünïcode!  "
    conv = mem.conversation("chat-1", scope=SCOPE)
    conv.add(text, speaker="Alice")
    assert conv.messages()[0].text == text


def test_conversations_are_isolated_by_scope(mem: Memory) -> None:
    mem.conversation("chat", scope="user:a").add("the secret code is 4412", speaker="A")
    mem.conversation("chat", scope="user:b").add("hello there", speaker="B")
    assert [e.text for e in mem.conversation("chat", scope="user:b").messages()] == ["hello there"]
    assert mem.archive_search("secret code", scope="user:b") == []
    assert all(h.item.scope == "user:b" for h in mem.recall("secret code", scope="user:b"))
    assert mem.list(scope="user:b", where=Q.meta("speaker", "A")).items == []


def test_a_message_can_be_found_by_its_meta(mem: Memory) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE)
    msg = conv.add("see you at the vet", speaker="Alice", meta={"dia_id": "D1:3"})
    found = mem.list(scope=SCOPE, where=Q.meta("dia_id", "D1:3")).items
    assert [i.id for i in found] == [msg.item_id]


def test_messages_at_the_same_time_are_accepted(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE)
    at = clock.now() - timedelta(days=3)
    conv.add("first", speaker="A", at=at)
    assert conv.add("second", speaker="B", at=at).turn == 2
