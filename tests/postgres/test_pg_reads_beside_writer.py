"""On PostgreSQL, reads answer beside another process's long write.

What ``tests/reliability/test_reads_beside_writer.py`` pins for SQLite, here for PostgreSQL: another
process holds ``mem.atomic(scope="s")`` (what ``reverie import`` does for its whole run) with one
claim written and not committed. Reads (``list``, ``recall(record_use=False)``, ``summary``, the
log, ``doctor``, a read-only open's recall) answer from the last commit. A plain ``recall`` records
its use without waiting for the holder (``test_pg_recall_beside_writer.py``); a write waits up to the
store's lock timeout (``test_pg_write_wait.py``).

No timed assertions: the holder says through a pipe when it is inside its block and stays there
until the test writes a line to it; a waiting call is seen in ``pg_stat_activity`` (a backend of
this database waiting for a lock), polled until it shows; the timeouts only guard against a hang.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from memory_registry import MemoryRegistry
from reverie import Memory

HANG_GUARD = 120  # seconds: only stops a hung test, never decides a pass

_HOLDER = """
import sys
from reverie import Memory
mem = Memory(sys.argv[1], embedder="hash")
with mem.atomic(scope="s"):
    mem.remember("a write still in progress", scope="s")
    print("holding", flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""


@pytest.fixture
def filled(memories: MemoryRegistry, pg_url: str) -> str:
    mem = memories.open(pg_url, seed=1)
    for scope in ("s", "other"):
        mem.remember("Alice likes hiking", scope=scope)
        mem.remember("Bob prefers tea", scope=scope)
    return pg_url


class Holder:
    """Another process inside ``atomic(scope="s")`` with one uncommitted claim, until ``release``."""

    def __init__(self, url: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "holding"

    def release(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self.proc.poll() is None and not self.proc.stdin.closed:
            self.proc.stdin.write("go\n")
            self.proc.stdin.close()
            assert self.proc.stdout.readline().strip() == "released"
            assert self.proc.wait(timeout=HANG_GUARD) == 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


@pytest.fixture
def held(filled: str) -> Iterator[Holder]:
    holder = Holder(filled)
    try:
        yield holder
        holder.release()
    finally:
        holder.stop()


def test_reads_answer_from_the_last_commit_while_another_process_holds_a_write(
    memories: MemoryRegistry, filled: str, held: Holder
) -> None:
    mem = memories.open(filled)
    assert sorted(i.text for i in mem.list(scope="s").items) == ["Alice likes hiking", "Bob prefers tea"]
    hits = mem.recall("hiking", scope="s", mode="lexical", record_use=False)
    assert [h.item.text for h in hits] == ["Alice likes hiking"]
    assert mem.summary(scope="s")["current"] == 2
    assert len(mem.events(scope="s")) == 2
    report = mem.doctor()
    assert report.ok and report.counts["items"] == 4
    with Memory(filled, embedder="hash", read_only=True) as ro:  # a read-only open records no use
        assert [h.item.text for h in ro.recall("hiking", scope="s", mode="lexical")] == ["Alice likes hiking"]
    assert held.proc.poll() is None  # the holder is still inside its block
