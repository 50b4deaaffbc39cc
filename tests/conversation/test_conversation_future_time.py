"""Issue #15: a message dated far beyond the Memory's clock blocked its conversation for good.

Messages are appended in time order, so one accepted at 2099 made every later message with a
real time "before the previous message". Now a time more than ``Limits.max_clock_skew_seconds``
after the clock's now is refused at the boundary (``invalid_input`` naming the time, the clock's
now and the fix; nothing stored), and a store that already holds such a message (written before
the fix, or under a clock that was wrong) is released by purging that message: the time bound is
the latest message left.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, Limits, ManualClock, Memory
from reverie.limits import DEFAULT_LIMITS
from reverie.memory.replay_conversations import REPLAYED

SCOPE = "user:alice"
FAR = datetime(2099, 1, 1, tzinfo=UTC)


@pytest.fixture
def conv(mem: Memory) -> Any:
    c = mem.conversation("chat-1", scope=SCOPE)
    c.add("hello", speaker="Alice")
    return c


def test_the_tolerance_is_a_few_minutes_of_clock_skew() -> None:
    assert DEFAULT_LIMITS.max_clock_skew_seconds == 300
    with pytest.raises(ValueError, match=r"Limits\.max_clock_skew_seconds"):
        Limits(max_clock_skew_seconds=0)


def test_a_message_dated_far_in_the_future_is_refused_and_nothing_is_stored(
    mem: Memory, conv: Any, snapshot: Any, clock: ManualClock
) -> None:
    before = snapshot(mem, SCOPE)
    with pytest.raises(InvalidInputError) as info:
        conv.add("from the future", speaker="Alice", at=FAR)
    err = info.value
    assert type(err) is InvalidInputError and err.code == "invalid_input"
    assert FAR.isoformat() in err.message, "names the refused time"
    assert clock.now().isoformat() in err.message, "names the clock's now"
    assert "Limits.max_clock_skew_seconds" in err.message and "leave at out" in err.message, err.message
    assert snapshot(mem, SCOPE) == before


def test_after_a_refused_future_message_normal_messages_still_append(
    mem: Memory, conv: Any, clock: ManualClock
) -> None:
    with pytest.raises(InvalidInputError):
        conv.add("from the future", speaker="Alice", at=FAR)
    clock.advance(minutes=1)
    conv.add("still here", speaker="Alice")
    assert [m.text for m in conv.messages()] == ["hello", "still here"]


def test_a_time_within_the_clock_skew_is_accepted_and_one_second_beyond_is_not(
    mem: Memory, conv: Any, clock: ManualClock
) -> None:
    skew = timedelta(seconds=mem.limits.max_clock_skew_seconds)
    conv.add("a sender whose clock runs a little fast", speaker="Bob", at=clock.now() + skew)
    with pytest.raises(InvalidInputError, match="max_clock_skew_seconds"):
        conv.add("too far ahead", speaker="Bob", at=clock.now() + skew + timedelta(seconds=1))
    assert len(conv.messages()) == 2


def test_the_skew_follows_the_memorys_limits(open_mem: Callable[..., Memory], clock: ManualClock) -> None:
    mem = open_mem(limits=Limits(max_clock_skew_seconds=3600))
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("an hour ahead is fine here", speaker="Alice", at=clock.now() + timedelta(minutes=59))
    with pytest.raises(InvalidInputError, match=r"max_clock_skew_seconds = 3600"):
        conv.add("two hours is not", speaker="Alice", at=clock.now() + timedelta(hours=2))


def _old_store(db: Path) -> str:
    """A store written before the fix: its clock said 2099 when the message was added (the same
    thing a clock-less check let through). Returns the future message's id."""
    with Memory(db, embedder="hash", clock=ManualClock(FAR), seed=1) as old:
        return old.conversation("chat-1", scope=SCOPE).add("sent from a wrong clock", speaker="Alice").id


def test_purging_a_stored_future_message_releases_the_time_bound(
    open_mem: Callable[..., Memory], db_path: Path, clock: ManualClock
) -> None:
    future_id = _old_store(db_path)
    mem = open_mem(db_path)
    conv = mem.conversation("chat-1", scope=SCOPE)
    with pytest.raises(InvalidInputError) as blocked:
        conv.add("a normal message", speaker="Alice")
    assert "before the previous message" in blocked.value.message
    assert future_id in blocked.value.message and "purge" in blocked.value.message, "says how to get unstuck"

    conv.purge(future_id, reason="dated 2099 by a broken clock")
    assert conv.state().last_at is None, "no message is left to bound the time"
    conv.add("a normal message", speaker="Alice")
    clock.advance(minutes=1)
    conv.add("and the next one", speaker="Alice")
    texts = [m.text for m in conv.messages() if not m.meta.get("purged")]
    assert texts == ["a normal message", "and the next one"]


def test_purging_the_latest_message_bounds_the_time_by_the_one_before(any_mem: Memory, clock: ManualClock) -> None:
    """On every backend (SQLite, the reference store, PostgreSQL): the bound after a purge is the
    latest message left, so a time the purged message blocked is taken again."""
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    first = conv.add("hello", speaker="Alice")
    ahead = conv.add("dated by a clock 4 minutes fast", speaker="Bob", at=clock.now() + timedelta(minutes=4))
    with pytest.raises(InvalidInputError, match="before the previous message"):
        conv.add("now", speaker="Alice")
    conv.purge(ahead.id)
    assert conv.state().last_at == first.at
    conv.add("now", speaker="Alice")
    with pytest.raises(InvalidInputError, match="before the previous message"):
        conv.add("too early", speaker="Alice", at=first.at - timedelta(seconds=1))


def test_a_replayed_log_keeps_the_released_bound(
    open_mem: Callable[..., Memory], db_path: Path, tmp_path: Path, clock: ManualClock
) -> None:
    """The purge event carries the released state, so a store rebuilt from the log (``reverie
    import``) accepts the messages that followed the purge, as the original did."""
    future_id = _old_store(db_path)
    mem = open_mem(db_path)
    conv = mem.conversation("chat-1", scope=SCOPE)
    conv.purge(future_id)
    conv.add("after the purge", speaker="Alice")
    events = [e for e in mem.events(scope=SCOPE, limit=10_000) if e.type in REPLAYED]

    copy = open_mem(tmp_path / "copy.db")
    replay = copy.conversation_replay(scope=SCOPE)
    for event in events:
        replay.replay(event)
    again = copy.conversation("chat-1", scope=SCOPE, create=False)
    assert [m.text for m in again.messages() if not m.meta.get("purged")] == ["after the purge"]
    assert again.state().last_at == conv.state().last_at
