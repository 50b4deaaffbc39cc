"""A point-in-time read does not read the uses recorded after its time (probe 5 #7).

Regression: every plain ``recall`` records a ``memory.used`` event about its hits, and replaying
an item for ``recall(as_of=T)`` / ``get(id, as_of=T)`` fetched *all* its events and stopped at T
only afterwards: an agent's 1,500 recalls since T made one as_of recall take seconds on a
20-claim scope. The replay now reads the item's log a page at a time and stops at the first
event after T (``replay.FIRST_PAGE``), so what it reads depends on the history up to T, not on
how often the scope was used since. Counted on real stores (no timing): the events a read
returns are the same after a few dozen and after a few hundred recalls since T.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reverie import ManualClock, Memory
from reverie.model.events import Event
from reverie.store import replay
from reverie.store.postgres.store import PostgresStore
from reverie.store.sqlite import SQLiteStore
from strategies import START

S = "u"


class _CountEvents:
    """Counts the events every ``events`` read returns; every read still goes to the real store."""

    events_read = 0

    def events(self, scope: str, **kw: Any) -> list[Event]:
        found: list[Event] = super().events(scope, **kw)  # type: ignore[misc]
        self.events_read += len(found)
        return found


class _SQLite(_CountEvents, SQLiteStore):
    pass


class _Postgres(_CountEvents, PostgresStore):
    pass


@pytest.fixture(params=["sqlite", "postgres"])
def counted(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Memory, Any, ManualClock]]:
    store: Any = (
        _SQLite(tmp_path / "r.db") if request.param == "sqlite" else _Postgres(request.getfixturevalue("pg_url"))
    )
    clock = ManualClock(START)
    mem = Memory(store=store, embedder="hash", clock=clock, seed=0)
    yield mem, store, clock
    mem.close()


def _recalls(mem: Memory, clock: ManualClock, n: int) -> None:
    for _ in range(n):  # an agent recalling as it works: each records a use of its hits
        clock.advance(seconds=1)
        mem.recall("Alice hiking", scope=S, k=20)


def _read_as_of(mem: Memory, store: Any, ids: list[str], when: Any) -> tuple[int, list[Any]]:
    """Events read by one as_of recall and one as_of get of each item, and what they answered."""
    store.events_read = 0
    hits = mem.recall("Alice hiking", scope=S, as_of=when, k=10)
    items = [mem.get(i, scope=S, as_of=when) for i in ids]
    return store.events_read, [(h.item, h.score) for h in hits] + items


def test_as_of_reads_do_not_grow_with_recalls_since_then(counted: tuple[Memory, Any, ManualClock]) -> None:
    mem, store, clock = counted
    ids = [it.id for it in mem.remember_many([{"text": f"Alice fact {i} about hiking"} for i in range(5)], scope=S)]
    _recalls(mem, clock, 3)  # uses before T are part of the state then
    then = clock.now()
    _recalls(mem, clock, replay.FIRST_PAGE + 5)
    read_few, answer_few = _read_as_of(mem, store, ids, then)
    _recalls(mem, clock, 3 * replay.FIRST_PAGE)
    read_many, answer_many = _read_as_of(mem, store, ids, then)
    assert read_many == read_few
    assert answer_many == answer_few
    assert all(item is not None and item.use_count == 3 for item in answer_few[-5:])
