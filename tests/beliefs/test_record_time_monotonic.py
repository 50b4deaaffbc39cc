"""Record time never goes backwards, whatever the clock says; ``doctor`` finds rows that did.

Regression (outside tester, finding 16): after the clock stepped back a day (an NTP correction, a
VM restored from a snapshot) a revise recorded the old version closed *before* it was recorded,
``recall(as_of=…)`` in between showed the correction believed before the claim it corrects was
heard, and ``doctor()`` called the store clean. Now a write whose clock reads earlier than the
last recorded event is recorded at that event's time (clamped, not refused: a store must not
become unwritable until the clock catches up), and ``doctor`` reports such rows in files written
before.
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import psycopg

from reverie import ManualClock, Memory
from reverie.model.clock import to_iso

SCOPE = "user:alice"


def test_a_clock_stepping_back_never_closes_a_version_before_it_was_recorded(
    any_mem: Memory, clock: ManualClock
) -> None:
    first = any_mem.remember("Alice lives in Paris", scope=SCOPE)
    heard = clock.now()
    clock.set(heard - timedelta(days=1))  # the clock steps back one day
    new = any_mem.revise(first.id, "Alice lives in Berlin", scope=SCOPE)
    old = any_mem.get(first.id, scope=SCOPE)
    assert old.closed_at is not None and old.closed_at >= old.recorded_at
    assert new.recorded_at == heard  # clamped to the last recorded time
    assert [e.at for e in any_mem.events(scope=SCOPE)] == sorted(e.at for e in any_mem.events(scope=SCOPE))
    between = heard - timedelta(hours=12)
    assert any_mem.recall("Alice lives", scope=SCOPE, as_of=between) == []  # nothing was believed yet
    assert [h.item.text for h in any_mem.recall("Alice lives", scope=SCOPE, as_of=heard)] == ["Alice lives in Berlin"]
    assert any_mem.doctor().problems == []
    clock.set(heard + timedelta(hours=1))  # once the clock is past it again, its own time counts
    later = any_mem.remember("Alice likes tea", scope=SCOPE)
    assert later.recorded_at == heard + timedelta(hours=1)


def test_another_writer_with_a_slower_clock_records_after_the_last_event(db_path: Path, clock: ManualClock) -> None:
    """Two processes on one file whose clocks disagree: the slower one does not write into the past."""
    ahead = ManualClock(clock.now() + timedelta(minutes=5))
    with Memory(db_path, embedder="hash", clock=ahead) as a, Memory(db_path, embedder="hash", clock=clock) as b:
        a.remember("Alice lives in Paris", scope=SCOPE)
        behind = b.remember("Bob lives in Rome", scope="user:bob")  # another scope: the store's order counts
        assert behind.recorded_at == ahead.now()
        assert a.doctor().problems == []


STEPPED_BACK = "events were recorded earlier than the event before them in their scope"
CLOSED_EARLY = "item versions were closed before they were recorded"


def _old_file(url: str, clock: ManualClock) -> None:
    """A store as the code before the clamp wrote it after a clock step back: the revise of a
    claim recorded at T was recorded at T - 1 day, and the old version closed then."""
    with Memory(url, embedder="hash", clock=clock) as mem:
        first = mem.remember("Alice lives in Paris", scope=SCOPE)
        new = mem.revise(first.id, "Alice lives in Berlin", scope=SCOPE)
        revised = mem.events(scope=SCOPE)[-1]
    back = to_iso(clock.now() - timedelta(days=1))
    edits = [
        ("UPDATE events SET at = ? WHERE id = ?", (back, revised.id)),
        ("UPDATE items SET closed_at = ? WHERE id = ?", (back, first.id)),
        ("UPDATE items SET recorded_at = ? WHERE id = ?", (back, new.id)),
    ]
    if url.startswith("postgresql"):
        with psycopg.connect(url, autocommit=True) as pg:
            for sql, args in edits:
                pg.execute(sql.replace("?", "%s"), args)
        return
    c = sqlite3.connect(url)
    with c:
        for sql, args in edits:
            c.execute(sql, args)
    c.close()


def test_doctor_reports_record_time_that_went_backwards_in_an_old_file(store_url: str, clock: ManualClock) -> None:
    _old_file(store_url, clock)
    with Memory(store_url, embedder="hash", clock=clock) as mem:
        problems = mem.doctor().problems
    assert any(p.startswith("1 ") and STEPPED_BACK in p for p in problems), problems
    assert any(p.startswith("1 ") and CLOSED_EARLY in p for p in problems), problems
