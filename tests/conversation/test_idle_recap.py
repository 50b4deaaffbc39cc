"""Idle timeout and recap, under a manual clock."""

from __future__ import annotations

from datetime import timedelta

from reverie import ManualClock, Memory

SCOPE = "user:alice"


def test_no_recap_before_anything_went_idle(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("I am planning a trip to Lisbon in May.", speaker="Alice")
    clock.advance(minutes=29)
    assert mem.recap(scope=SCOPE) is None
    assert [e.text for e in conv.history()] == ["I am planning a trip to Lisbon in May."]


def test_after_30_idle_minutes_the_history_is_released_and_a_recap_written(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("I am planning a trip to Lisbon in May.", speaker="Alice")
    conv.add("Lisbon in May is lovely; book the tram tour.", speaker="Bot", role="assistant")
    clock.advance(minutes=30)
    assert conv.history() == []
    recap = mem.recap(scope=SCOPE)
    assert recap is not None and (recap.conversation, recap.session, recap.messages) == ("c", 1, 2)
    assert "Lisbon" in recap.text and "2 message(s)" in recap.text
    assert conv.state().released
    assert conv.messages()[0].text.startswith("I am planning")  # the archive keeps everything


def test_the_idle_period_is_configurable(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE, idle_after=timedelta(minutes=5))
    conv.add("quick question", speaker="Alice")
    clock.advance(minutes=6)
    assert conv.history() == [] and conv.state().released
    assert mem.recap(scope=SCOPE) is not None


def test_a_message_after_the_idle_gap_opens_the_next_session(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("session one", speaker="Alice")
    clock.advance(hours=2)
    msg = conv.add("session two", speaker="Alice")
    assert [e.text for e in conv.history()] == ["session two"]
    assert mem.get(msg.item_id or "", scope=SCOPE).meta["session"] == 2
    assert "context" not in mem.get(msg.item_id or "", scope=SCOPE).text  # no context across a release
    assert mem.recap(scope=SCOPE, conversation="c") is not None


def test_a_gap_in_the_messages_own_times_releases_too(mem: Memory, clock: ManualClock) -> None:
    """Imported history: the clock does not move, the messages' ``at`` are days apart."""
    conv = mem.conversation("c", scope=SCOPE)
    day = clock.now() - timedelta(days=30)
    conv.add("day one", speaker="Alice", at=day)
    conv.add("still day one", speaker="Bob", at=day + timedelta(minutes=10))
    conv.add("day two", speaker="Alice", at=day + timedelta(days=1))
    kinds = [e.kind for e in conv.entries()]
    assert kinds == ["message", "message", "recap", "message"]
    assert conv.state().session == 2


def test_recap_returns_the_last_released_conversation(mem: Memory, clock: ManualClock) -> None:
    mem.conversation("old", scope=SCOPE).add("we fixed the boiler", speaker="Alice")
    clock.advance(hours=1)
    mem.conversation("new", scope=SCOPE).add("the garden needs water", speaker="Alice")
    clock.advance(hours=1)
    recap = mem.recap(scope=SCOPE)
    assert recap is not None and recap.conversation == "new"
    old = mem.recap(scope=SCOPE, conversation="old")
    assert old is not None and "boiler" in old.text


def test_a_recap_is_written_once(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("hello", speaker="Alice")
    clock.advance(hours=1)
    for _ in range(3):
        mem.recap(scope=SCOPE)
        conv.history()
    assert [e.kind for e in conv.entries()].count("recap") == 1


def test_tool_calls_keep_a_conversation_active(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("run the report", speaker="Alice")
    clock.advance(minutes=20)
    conv.tool_call("report")
    clock.advance(minutes=20)
    assert not conv.state().released


def test_release_now_writes_the_recap_without_waiting(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("we chose the blue tiles", speaker="Alice")
    recap = conv.release()
    assert recap is not None and recap.kind == "recap" and "blue tiles" in recap.text
    assert conv.release() is None  # already released: nothing more to write
    assert conv.history() == []
