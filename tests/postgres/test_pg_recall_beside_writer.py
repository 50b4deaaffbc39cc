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

import subprocess
import sys
from datetime import UTC, datetime

import pytest

from reverie import ManualClock, Memory

HANG_GUARD = 120  # seconds: only stops a hung test, never decides a pass
T_RECALL = datetime(2025, 3, 3, tzinfo=UTC)

_HOLDER = """
import sys
from datetime import datetime, UTC
from reverie import Memory
from reverie.model.clock import ManualClock
mem = Memory(sys.argv[1], embedder="hash", clock=ManualClock(datetime(2025, 3, 2, tzinfo=UTC)))
with mem.atomic(scope=sys.argv[2]):
    mem.remember("a write still in progress", scope=sys.argv[2])
    print("holding", flush=True)
    sys.stdin.readline()
print("released", flush=True)
mem.close()
"""


@pytest.mark.parametrize("held_scope", ["s", "other"])
def test_recall_answers_while_another_process_writes_and_close_writes_its_use(pg_url: str, held_scope: str) -> None:
    with Memory(pg_url, embedder="hash", clock=ManualClock(datetime(2025, 3, 1, tzinfo=UTC))) as mem:
        mem.remember("Alice likes hiking", scope="s")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, pg_url, held_scope], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdin is not None and holder.stdout is not None
    mem = Memory(pg_url, embedder="hash", clock=ManualClock(T_RECALL))
    try:
        assert holder.stdout.readline().strip() == "holding"
        hits = mem.recall("hiking", scope="s", mode="lexical")  # was: waited for the holder's commit
        assert holder.poll() is None  # answered while the other process still writes
        assert [h.item.text for h in hits] == ["Alice likes hiking"]
        assert mem.pending_uses == 1
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
        assert holder.wait(timeout=HANG_GUARD) == 0
    finally:
        mem.close()
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        for pipe in (holder.stdin, holder.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()
    with Memory(pg_url, embedder="hash") as again:
        used = [(e.payload["query"], e.at) for e in again.events(scope="s") if e.type == "memory.used"]
    assert used == [("hiking", T_RECALL)]


def test_a_free_lock_records_the_use_at_once(pg_url: str) -> None:
    with Memory(pg_url, embedder="hash", clock=ManualClock(T_RECALL)) as mem:
        mem.remember("Alice likes hiking", scope="s")
        mem.recall("hiking", scope="s", mode="lexical")
        assert mem.pending_uses == 0
        assert [e.payload["query"] for e in mem.events(scope="s") if e.type == "memory.used"] == ["hiking"]
