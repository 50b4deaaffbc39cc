"""Callers that read the store several times see one commit (``Store.read_snapshot``).

Regression: ``Memory.summary``, ``export_slice`` and ``migrate``'s copy each made several store
reads, each its own snapshot, so a write another process committed between two of them was in
some and not the others: a summary counting a claim as believed but its tombstone too, a slice
holding a claim as current beside the edge that closed it, a migrate report counting an item it
never copied. Here another connection to the same database (a second ``Memory`` on the SQLite
file or the PostgreSQL server) commits a write right after the caller's first read
(``counting_stores.WriteBetweenReads``: the real store, only the moment chosen); the result must
be the state before that write, whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from counting_stores import interleaved
from reverie import Memory
from reverie.errors import ConflictError
from reverie.store.migrate import copy_store
from reverie.store.sqlite import SQLiteStore
from strategies import START

S = "user:alice"


def _seeded(url: str) -> tuple[str, str]:
    """Two claims in the store at ``url``; their ids."""
    with Memory(url, embedder="hash") as mem:
        a = mem.remember("Alice drinks green tea", scope=S)
        b = mem.remember("Alice drinks black coffee", scope=S)
    return a.id, b.id


def _slice(mem: Memory) -> tuple[Any, Any]:
    sl = mem.export_slice(scope=S)
    return sl.items, sl.edges


def test_summary_is_of_one_commit_when_another_connection_writes_between_its_reads(store_url: str) -> None:
    a, _ = _seeded(store_url)
    store = interleaved(store_url)
    with Memory(store=store, embedder="hash") as mem, Memory(store_url, embedder="hash") as other:
        before = mem.summary(scope=S)
        store.write_after, store.between = "summary_counts", lambda: other.dismiss(a, scope=S)
        during = mem.summary(scope=S)
        after = mem.summary(scope=S)
    assert store.between is None  # the other write ran, between the counts and the other reads
    assert after != before  # the write shows in a summary (dismissed, tombstones, current)
    assert during == before


def test_slice_export_is_of_one_commit_when_another_connection_writes_between_its_reads(store_url: str) -> None:
    a, b = _seeded(store_url)
    store = interleaved(store_url)
    with Memory(store=store, embedder="hash") as mem, Memory(store_url, embedder="hash") as other:
        before = _slice(mem)
        # ``supersedes`` closes b and adds the edge: read apart, the slice held b as current
        # beside the edge that closed it, a state the store was never in.
        store.write_after, store.between = "query", lambda: other.link(a, b, "supersedes", scope=S)
        during = _slice(mem)
        after = _slice(mem)
    assert store.between is None
    assert after != before
    assert during == before


def test_migrate_copies_and_reports_one_commit_of_a_source_written_meanwhile(store_url: str, tmp_path: Path) -> None:
    _seeded(store_url)
    source = interleaved(store_url, read_only=True)
    dest = SQLiteStore(tmp_path / "copy.db")
    try:
        with Memory(store_url, embedder="hash") as other:
            source.write_after = "events"
            source.between = lambda: other.remember("Alice moved to Porto", scope=S)
            report = copy_store(source, dest, now=START)
        assert source.between is None
        copied = sum(dest.summary_counts(S)["status"].values())
        assert (report.items, report.events) == (copied, len(dest.events(S))) == (2, 2)
    finally:
        source.close()
        dest.close()


def test_a_write_inside_a_read_snapshot_is_refused_and_changes_nothing(store_url: str) -> None:
    with Memory(store_url, embedder="hash") as mem:
        mem.remember("Alice drinks green tea", scope=S)
        with mem.store.read_snapshot():  # type: ignore[attr-defined]
            with pytest.raises(ConflictError, match="read_snapshot"):
                mem.remember("Alice moved to Porto", scope=S)
            assert mem.summary(scope=S)["current"] == 1  # the block's reads go on
        assert mem.summary(scope=S)["current"] == 1
        mem.remember("Alice moved to Porto", scope=S)  # after the block: writes as before
        assert mem.summary(scope=S)["current"] == 2


def test_a_summary_inside_an_atomic_block_sees_the_blocks_own_writes(store_url: str) -> None:
    with Memory(store_url, embedder="hash") as mem, mem.atomic(scope=S):
        mem.remember("Alice drinks green tea", scope=S)
        assert mem.summary(scope=S)["current"] == 1
