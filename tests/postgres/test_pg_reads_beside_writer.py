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

from collections.abc import Iterator

import pytest

from atomic_holder import AtomicHolder
from memory_registry import MemoryRegistry
from reverie import Memory


@pytest.fixture
def filled(memories: MemoryRegistry, pg_url: str) -> str:
    mem = memories.open(pg_url, seed=1)
    for scope in ("s", "other"):
        mem.remember("Alice likes hiking", scope=scope)
        mem.remember("Bob prefers tea", scope=scope)
    return pg_url


@pytest.fixture
def held(filled: str) -> Iterator[AtomicHolder]:
    with AtomicHolder(filled) as holder:
        yield holder
        holder.release()


def test_reads_answer_from_the_last_commit_while_another_process_holds_a_write(
    memories: MemoryRegistry, filled: str, held: AtomicHolder
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
    assert held.holding  # the holder is still inside its block
