"""``reverie export`` (``cli.transfer.export_events``) writes the log of one commit.

Regression: the export read the log in pages, each ``Memory.events`` call its own snapshot, so a
write another process committed between two pages was in some and not the others. A purge
rewrites the payloads of events already written: the file held the purged claim's text in its
first page beside the ``memory.purged`` event of a later page, a log the store never held (and
content the operator had erased, carried out). Here another connection purges right after the
first page (``counting_stores.WriteBetweenReads``: the real store, only the moment chosen); the
export must be the log as it stood before the purge, whole.
"""

from __future__ import annotations

import json

from counting_stores import interleaved
from reverie import Memory
from reverie.cli.transfer import export_events
from reverie.errors import StorageError
from reverie.limits import Limits

S = "user:alice"
SECRET = "Alice's passport number is X1234567"


def _export(mem: Memory) -> list[dict[str, object]]:
    lines: list[str] = []
    count = export_events(mem, S, lines.append)
    assert count == len(lines)
    return [json.loads(line) for line in lines]


def test_an_export_is_of_one_commit_when_another_connection_purges_between_its_pages(store_url: str) -> None:
    with Memory(store_url, embedder="hash") as mem:
        secret = mem.remember(SECRET, scope=S)
        mem.remember("Alice drinks green tea", scope=S)
        before = _export(mem)
    assert "X1234567" in json.dumps(before)
    store = interleaved(store_url)
    # One event a page: the purge lands between the first page and the rest.
    with (
        Memory(store=store, embedder="hash", limits=Limits(max_events=1)) as mem,
        Memory(store_url, embedder="hash", busy_timeout_ms=50) as other,
    ):

        def purge() -> None:
            try:
                other.forget(secret.id, scope=S, purge=True)
            except StorageError as exc:  # SQLite: committed, but the file scrub waits for our reader
                assert "purge is committed" in str(exc)

        store.write_after, store.between = "events", purge
        during = _export(mem)
        after = _export(mem)
    assert store.between is None  # the purge ran, after the first page
    assert [e["type"] for e in after][-1] == "memory.purged"
    assert "X1234567" not in json.dumps(after)
    assert during == before
