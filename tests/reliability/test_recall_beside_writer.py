"""Promise: a plain recall never waits for another writer's lock to record its use.

Recording which items a recall used is a write (a ``memory.used`` event). Beside another
process's long write (an ``atomic`` block: a whole ``reverie import``) a default ``recall``
waited the whole busy timeout and then failed with ``error[storage]``, although it only reads.
Now it tries the write without waiting; if the lock is held it answers at once and keeps the
uses in the ``Memory`` (``pending_uses``), written in order, in one transaction, with the times
of their recalls, by its next recall that can write, before its next write, or on ``close()``.

No timed assertions: the holder process says through a pipe when it is inside its block, and
stays there until the test writes a line to it; a recall that returned while it still holds
the lock did not wait for it. Timeouts only guard against a hang.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from atomic_holder import HANG_GUARD, AtomicHolder
from reverie import Memory
from reverie.errors import StorageError
from reverie.limits import Limits
from reverie.model.clock import ManualClock
from reverie.model.events import Event
from reverie.store.sqlite import SQLiteStore

T0 = datetime(2025, 3, 1, tzinfo=UTC)  # the fixture's writes
T_HOLDER = datetime(2025, 3, 2, tzinfo=UTC)  # the holder's uncommitted write
T_RECALL = datetime(2025, 3, 3, tzinfo=UTC)  # this process's recalls and writes, from here on


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "agent.db"
    with Memory(path, embedder="hash", clock=ManualClock(T0)) as mem:
        mem.remember("Alice likes hiking", scope="s")
        mem.remember("Bob prefers tea", scope="s")
    return path


@pytest.fixture
def held(db: Path) -> Iterator[AtomicHolder]:
    with AtomicHolder(db, at=T_HOLDER) as holder:
        yield holder


def _used(path: Path) -> list[tuple[int, str, datetime, list[str]]]:
    """(seq, query, at, item ids) of every ``memory.used`` event in scope "s", in log order."""
    with Memory(path, embedder="hash", read_only=True) as mem:
        return [
            (e.seq, e.payload["query"], e.at, [u[0] for u in e.payload["uses"]])
            for e in mem.events(scope="s")
            if e.type == "memory.used"
        ]


def test_recall_answers_while_another_process_holds_the_write_lock_and_close_writes_its_uses(
    db: Path, held: AtomicHolder
) -> None:
    clock = ManualClock(T_RECALL)
    mem = Memory(db, embedder="hash", clock=clock)
    try:
        hits = mem.recall("hiking", scope="s", mode="lexical")  # was: waited 30 s, then error[storage]
        assert held.holding  # it answered while the other process still held the lock
        assert [h.item.text for h in hits] == ["Alice likes hiking"]
        assert mem.pending_uses == 1  # one use not written yet, and visible as such
        assert _used(db) == []
        clock.advance(hours=1)
        held.release()
    finally:
        mem.close()  # writes what is pending
    assert mem.pending_uses == 0
    [(_, query, at, ids)] = _used(db)
    assert (query, at, ids) == ("hiking", T_RECALL, [hits[0].item.id])  # the recall's own time, not close's


def test_pending_uses_land_in_order_before_this_memory_s_next_write(db: Path, held: AtomicHolder) -> None:
    clock = ManualClock(T_RECALL)
    with Memory(db, embedder="hash", clock=clock) as mem:
        mem.recall("hiking", scope="s", mode="lexical")
        clock.advance(minutes=1)
        mem.recall("tea", scope="s", mode="lexical")
        assert held.holding and mem.pending_uses == 2
        held.release()
        clock.advance(minutes=1)
        written = mem.remember("Carol writes code", scope="s")
        assert mem.pending_uses == 0
        used = _used(db)
        assert [(q, at) for _, q, at, _ in used] == [("hiking", T_RECALL), ("tea", T_RECALL + timedelta(minutes=1))]
        remembered = [e.seq for e in mem.events(scope="s") if e.payload.get("item", {}).get("id") == written.id]
        assert remembered
        assert max(seq for seq, *_ in used) < min(remembered)  # the uses first, as they happened


def test_the_next_recall_that_can_write_writes_the_pending_uses_first(db: Path, held: AtomicHolder) -> None:
    clock = ManualClock(T_RECALL)
    with Memory(db, embedder="hash", clock=clock) as mem:
        mem.recall("hiking", scope="s", mode="lexical")
        assert mem.pending_uses == 1
        held.release()
        clock.advance(minutes=5)
        mem.recall("tea", scope="s", mode="lexical")
        assert mem.pending_uses == 0
        assert [(q, at) for _, q, at, _ in _used(db)] == [
            ("hiking", T_RECALL),
            ("tea", T_RECALL + timedelta(minutes=5)),
        ]


def test_as_of_and_value_see_the_uses_once_written(db: Path, held: AtomicHolder) -> None:
    clock = ManualClock(T_RECALL)
    with Memory(db, embedder="hash", clock=clock) as mem:
        [hit] = mem.recall("hiking", scope="s", mode="lexical")
        before = hit.item
        assert before.use_count == 0
        held.release()
        clock.advance(hours=1)
        mem.recall("tea", scope="s", mode="lexical", record_use=False)  # writes nothing: still pending
        assert mem.pending_uses == 1
        mem.remember("Carol writes code", scope="s")
        now = mem.get(before.id, scope="s")
        assert now.use_count == 1 and now.last_used_query == "hiking" and now.last_used_at == T_RECALL
        assert now.scores.value > before.scores.value  # reinforced: ranking sees the use
        then = mem.get(before.id, scope="s", as_of=T_RECALL + timedelta(minutes=1))
        assert then.use_count == 1  # as it stood just after the recall, the use counted
        earlier = mem.get(before.id, scope="s", as_of=T_RECALL - timedelta(minutes=1))
        assert earlier.use_count == 0
        [again] = mem.recall("hiking", scope="s", mode="lexical", record_use=False)
        assert again.item.use_count == 1


def test_close_that_cannot_write_the_pending_uses_says_so_and_keeps_them(db: Path, held: AtomicHolder) -> None:
    store = SQLiteStore(db, busy_timeout_ms=50)
    mem = Memory(store=store, embedder="hash", clock=ManualClock(T_RECALL))
    try:
        mem.recall("hiking", scope="s", mode="lexical")
        assert mem.pending_uses == 1
        with pytest.raises(StorageError, match=r"1 use.* not written"):
            mem.close()  # never a silent drop
        assert mem.pending_uses == 1
        assert len(mem.list(scope="s").items) == 2  # still open
        held.release()
    finally:
        mem.close()
    assert [q for _, q, _, _ in _used(db)] == ["hiking"]


def test_past_the_bound_a_recall_waits_as_a_write_does(db: Path, held: AtomicHolder) -> None:
    store = SQLiteStore(db, busy_timeout_ms=50)
    mem = Memory(store=store, embedder="hash", clock=ManualClock(T_RECALL), limits=Limits(max_pending_uses=2))
    try:
        mem.recall("hiking", scope="s", mode="lexical")
        mem.recall("tea", scope="s", mode="lexical")
        assert mem.pending_uses == 2
        with pytest.raises(StorageError, match="locked by another writer"):
            mem.recall("hiking", scope="s", mode="lexical")
        assert mem.pending_uses == 2  # the refused recall adds nothing; the earlier ones are kept
        held.release()
        mem.recall("hiking", scope="s", mode="lexical")
        assert mem.pending_uses == 0
    finally:
        mem.close()
    assert [q for _, q, _, _ in _used(db)] == ["hiking", "tea", "hiking"]


def test_recall_inside_this_memory_s_own_block_records_its_use_in_the_block(db: Path) -> None:
    with Memory(db, embedder="hash", clock=ManualClock(T_RECALL)) as mem:
        with mem.atomic(scope="s"):
            mem.recall("hiking", scope="s", mode="lexical")
            assert mem.pending_uses == 0
        assert [q for _, q, _, _ in _used(db)] == ["hiking"]


def test_a_use_still_waiting_when_another_process_purges_its_item_does_not_bring_back_the_query(
    db: Path, held: AtomicHolder
) -> None:
    """Promise 6 erases every query that retrieved a purged claim; a use written after the purge
    must not carry it back (the window was a moment before uses could wait; now it is as long as
    the other writer's block)."""
    with Memory(db, embedder="hash", clock=ManualClock(T_RECALL)) as mem:
        [hit] = mem.recall("hiking Alice", scope="s", mode="lexical")
        assert mem.pending_uses == 1
        held.release()
        with Memory(db, embedder="hash", clock=ManualClock(T_RECALL)) as other:
            other.forget(hit.item.id, scope="s", purge=True)
    events = [e for e in _events(db) if e.type == "memory.used"]
    assert all("hiking" not in str(e.payload) for e in events)


def _events(path: Path) -> list[Event]:
    with Memory(path, embedder="hash", read_only=True) as mem:
        return mem.events(scope="s")


def test_cli_recall_prints_its_answer_and_says_so_when_its_use_cannot_be_written(db: Path, held: AtomicHolder) -> None:
    """A CLI process cannot keep a use for later: it waits the busy timeout at exit, as a write does,
    then says the use was not recorded (was: a traceback from close, exit 1). ``--busy-timeout``
    shortens the wait (the default is 30 s)."""
    reverie = str(Path(sys.executable).with_name("reverie"))
    done = subprocess.run(
        [reverie, "--db", str(db), "--scope", "s", "--busy-timeout", "200", "recall", "hiking"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert held.holding
    assert done.returncode == 0, done.stderr
    assert "Alice likes hiking" in done.stdout
    assert "Traceback" not in done.stderr
    assert "warning[storage]" in done.stderr and "not recorded" in done.stderr
    assert _used(db) == []
