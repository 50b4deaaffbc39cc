"""PostgreSQL: a plain recall never waits for another writer to record its use (as on SQLite).

On PostgreSQL a write takes its scope's advisory lock, and at its first append the ``event_seq``
row every writer of any scope shares, both until it commits. So a recall's use-write waited for
another process's ``atomic`` block in the same scope (an import: no busy timeout here, for as
long as the block lasted) and, once that block had appended, in any scope. Now the use waits in
the ``Memory`` (``pending_uses``) and is written once the lock is free, as on SQLite
(``tests/reliability/test_recall_beside_writer.py``).

No timed assertions: the holder says through a pipe when it is inside its block and stays there
until the test writes a line to it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from atomic_holder import AtomicHolder
from reverie import ManualClock, Memory

T_RECALL = datetime(2025, 3, 3, tzinfo=UTC)


@pytest.mark.parametrize("held_scope", ["s", "other"])
def test_recall_answers_while_another_process_writes_and_close_writes_its_use(pg_url: str, held_scope: str) -> None:
    with Memory(pg_url, embedder="hash", clock=ManualClock(datetime(2025, 3, 1, tzinfo=UTC))) as mem:
        mem.remember("Alice likes hiking", scope="s")
    holding = AtomicHolder(pg_url, scope=held_scope, at=datetime(2025, 3, 2, tzinfo=UTC))
    with holding as holder, Memory(pg_url, embedder="hash", clock=ManualClock(T_RECALL)) as mem:
        hits = mem.recall("hiking", scope="s", mode="lexical")  # was: waited for the holder's commit
        assert holder.holding  # answered while the other process still writes
        assert [h.item.text for h in hits] == ["Alice likes hiking"]
        assert mem.pending_uses == 1
        holder.release()  # close (leaving the block) then writes the use
    with Memory(pg_url, embedder="hash") as again:
        used = [(e.payload["query"], e.at) for e in again.events(scope="s") if e.type == "memory.used"]
    assert used == [("hiking", T_RECALL)]


def test_a_free_lock_records_the_use_at_once(pg_url: str) -> None:
    with Memory(pg_url, embedder="hash", clock=ManualClock(T_RECALL)) as mem:
        mem.remember("Alice likes hiking", scope="s")
        mem.recall("hiking", scope="s", mode="lexical")
        assert mem.pending_uses == 0
        assert [e.payload["query"] for e in mem.events(scope="s") if e.type == "memory.used"] == ["hiking"]
