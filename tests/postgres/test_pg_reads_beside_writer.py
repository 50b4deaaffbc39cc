"""On PostgreSQL, reads answer beside another process's long write; a write, and a plain recall, wait for it.

What ``tests/reliability/test_reads_beside_writer.py`` pins for SQLite, here for PostgreSQL: another
process holds ``mem.atomic(scope="s")`` (what ``reverie import`` does for its whole run) with one
claim written and not committed. Reads (``list``, ``recall(record_use=False)``, ``summary``, the
log, ``doctor``, a read-only open's recall) answer from the last commit. A plain ``recall`` records
its use, which is a write: it waits for the holder, in the holder's scope (the scope's write lock)
and in any other scope (the one event-counter row, which the holder's first event locked until its
commit), and answers once the holder commits: it waits up to the store's lock timeout (30 s, far
past the moment the test releases the holder; the timeout itself: ``test_pg_write_wait.py``).

No timed assertions: the holder says through a pipe when it is inside its block and stays there
until the test writes a line to it; a waiting call is seen in ``pg_stat_activity`` (a backend of
this database waiting for a lock), polled until it shows; the timeouts only guard against a hang.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memory_registry import MemoryRegistry
from pg_server import PgServer
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


def _waiting_for_a_lock(pg: PgServer, url: str, n: int) -> None:
    """Poll until ``n`` backends of the test's database wait for a lock (a hang guard, not a timing)."""
    database = url.partition("?")[0].rsplit("/", 1)[1]
    deadline = time.monotonic() + HANG_GUARD
    with pg.admin() as c:
        while True:
            rows = c.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'", (database,)
            ).fetchone()
            if rows is not None and rows[0] >= n:
                return
            assert time.monotonic() < deadline, "the recalls never waited for the holder"
            time.sleep(0.05)


def test_a_plain_recall_records_its_use_so_it_waits_for_the_holder_then_answers(
    memories: MemoryRegistry, pg: PgServer, filled: str, held: Holder
) -> None:
    answers: dict[str, Any] = {}

    def recall_in(scope: str) -> Callable[[], None]:
        mem = memories.open(filled)  # a connection of its own, as another process has

        def run() -> None:
            answers[scope] = [h.item.text for h in mem.recall("hiking", scope=scope, mode="lexical")]

        return run

    threads = [threading.Thread(target=recall_in(scope), daemon=True) for scope in ("s", "other")]
    for t in threads:
        t.start()
    _waiting_for_a_lock(pg, filled, 2)  # "s": the scope's write lock; "other": the event counter row
    assert answers == {} and all(t.is_alive() for t in threads)
    held.release()
    for t in threads:
        t.join(HANG_GUARD)
    assert answers == {"s": ["Alice likes hiking"], "other": ["Alice likes hiking"]}
