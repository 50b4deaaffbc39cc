"""Point-in-time reads through the log's index (``schema.EVENT_REFS``) answer exactly as the scan did.

Why: ``get(id, as_of=T)`` and ``recall(as_of=T)`` replay an item from its events, and reading them
used to scan every payload of the scope (one scan per replayed candidate: ~121 ms per as_of recall
at 10k items, ``bench/as_of_recall.py``). The index only chooses which events are read; these
tests hold it to the old answer on a real file, by opening a copy without the index (read-only,
so the scan path runs) beside the indexed one: the same events for every id, the same hits with
the same states and scores at every time, whatever was revised, forgotten or purged in between.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from as_of_script import Op, play, scripts
from hypothesis import HealthCheck, given, settings

from reverie import ManualClock, Memory, ReverieError
from reverie.store.sqlite import event_refs
from strategies import START

S = "u"
QUERIES = ("note", "deploy note tuesday", "berlin green", "printer")


def _unindexed_copy(db: Path, tmp: Path) -> Path:
    """A copy of the file without ``event_refs``: read-only opens of it scan the log, as before."""
    copy = tmp / "scan.db"
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(db, copy)
    with sqlite3.connect(copy) as raw:
        raw.execute("DROP TABLE event_refs")  # its triggers go with it
    return copy


def _answers(mem: Memory, ids: list[str], times: list[datetime]) -> list[Any]:
    """Everything the point-in-time reads show: each id's events and state at each time, and
    each query's hits (ids, scores, why, items) at each time."""
    out: list[Any] = []
    for item_id in ids:
        out.append([e.to_dict() for e in mem.store.events(S, item_id=item_id, limit=10_000)])
        for when in times:
            try:
                out.append(mem.get(item_id, scope=S, as_of=when))
            except ReverieError as exc:
                out.append(exc.code)
    for when in times:
        for q in QUERIES:
            for mode in ("hybrid", "lexical"):
                hits = mem.recall(q, scope=S, k=20, as_of=when, mode=mode, record_use=False)
                out.append([(h.item, h.score, h.why, h.contradicted_by) for h in hits])
    return out


def _refs(raw: sqlite3.Connection) -> list[tuple[str, int]]:
    return raw.execute("SELECT ref, seq FROM event_refs ORDER BY ref, seq").fetchall()


def _same_with_and_without_index(db: Path, tmp: Path, ids: list[str], times: list[datetime]) -> None:
    with sqlite3.connect(db) as raw:  # the ids the writer read from its dicts are the payloads' ids
        last = raw.execute("SELECT max(seq) FROM events").fetchone()[0]
        assert raw.execute("SELECT v FROM settings WHERE k = 'event_refs_seq'").fetchone() == (str(last),)
        written = _refs(raw)
        raw.execute("DELETE FROM event_refs")
        event_refs.fill(raw.execute, 1, last)
        assert _refs(raw) == written
    scan = _unindexed_copy(db, tmp)
    clock = ManualClock(times[-1] + timedelta(days=1))
    with Memory(db, embedder="hash", clock=clock, seed=0, read_only=True) as indexed:
        assert indexed.store._event_refs  # type: ignore[attr-defined]
        fast = _answers(indexed, ids, times)
    with Memory(scan, embedder="hash", clock=clock, seed=0, read_only=True) as unindexed:
        assert not unindexed.store._event_refs  # type: ignore[attr-defined]
        slow = _answers(unindexed, ids, times)
    assert fast == slow


def test_as_of_reads_match_the_scan_after_revisions_forgets_and_a_purge(tmp_path: Path) -> None:
    clock = ManualClock(START)
    db = tmp_path / "m.db"
    times: list[datetime] = []
    with Memory(db, embedder="hash", clock=clock, seed=0) as mem:
        a = mem.remember("The deploy note says tuesday", scope=S, importance=0.9)
        b = mem.remember("The budget note says berlin", scope=S)
        c = mem.remember("The printer note says green", scope=S)
        d = mem.remember("The office note says seven", scope=S, parents=[a.id])
        clock.advance(hours=1)
        times.append(clock.now())
        mem.set_scores(a.id, scope=S, importance=0.1, authority=0.2)
        a2 = mem.revise(a.id, "The deploy note says friday", scope=S)
        mem.recall("note", scope=S)  # a use: last_used_at and value move
        clock.advance(hours=1)
        times.append(clock.now())
        mem.forget(b.id, scope=S)
        mem.revise(a2.id, "The deploy note says quiet", scope=S)
        clock.advance(hours=1)
        times.append(clock.now())
        mem.forget(c.id, scope=S, purge=True)
        mem.set_scores(d.id, scope=S, importance=0.7)
        mem.set_tiers({d.id: "durable", a2.id: "subconscious"}, scope=S)  # one event, a list of ids
        clock.advance(hours=1)
        times.append(clock.now())
        ids = [i.id for i in mem.list(scope=S, include_closed=True, limit=100).items]
    assert len(ids) >= 5
    times = [START - timedelta(minutes=1), START, *times]
    _same_with_and_without_index(db, tmp_path, ids, times)


def test_a_file_from_before_the_index_is_filled_when_a_writer_opens_it(tmp_path: Path) -> None:
    """An existing store gains the index on its first writable open, filled from its whole log."""
    clock = ManualClock(START)
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", clock=clock, seed=0) as mem:
        a = mem.remember("The deploy note says tuesday", scope=S)
        clock.advance(hours=1)
        mem.revise(a.id, "The deploy note says friday", scope=S)
    old = _unindexed_copy(db, tmp_path)
    with sqlite3.connect(db) as raw:
        want = raw.execute("SELECT ref, seq FROM event_refs ORDER BY ref, seq").fetchall()
    assert any(ref == a.id for ref, _ in want)
    with Memory(old, embedder="hash", clock=clock, seed=0):
        pass
    with sqlite3.connect(old) as raw:
        assert raw.execute("SELECT ref, seq FROM event_refs ORDER BY ref, seq").fetchall() == want


def test_events_an_older_writer_adds_are_read_by_the_scan_then_indexed(tmp_path: Path) -> None:
    """A writer without the index (an older reverie of the same schema) appends events and leaves
    the watermark behind: reads scan the events past it, and the next write of this reverie
    indexes them from their payloads."""
    clock = ManualClock(START)
    with Memory(tmp_path / "new.db", embedder="hash", clock=clock, seed=0) as mem:
        a = mem.remember("The deploy note says tuesday", scope=S)
        b = mem.remember("The budget note says berlin", scope=S, parents=[a.id])
        mem.set_tiers({a.id: "durable", b.id: "subconscious"}, scope=S)
        mem.recall("deploy note", scope=S)  # memory.used
        mem.revise(a.id, "The deploy note says friday", scope=S)
        want = {i: mem.store.events(S, item_id=i) for i in (a.id, b.id)}
    with Memory(tmp_path / "old.db", embedder="hash", clock=clock, seed=0):
        pass  # an empty store: the index, its watermark at 0
    with sqlite3.connect(tmp_path / "new.db") as new, sqlite3.connect(tmp_path / "old.db") as old:
        rows = new.execute("SELECT seq, id, type, scope, at, cause, payload FROM events ORDER BY seq").fetchall()
        assert {r[2] for r in rows} >= {"memory.used", "memory.tiers_set", "memory.revised"}
        old.executemany(
            "INSERT INTO events (seq, id, type, scope, at, cause, payload) VALUES (?, ?, ?, ?, ?, ?, ?)", rows
        )
        assert _refs(old) == []
        written = _refs(new)
    with Memory(tmp_path / "old.db", embedder="hash", clock=clock, seed=0, read_only=True) as mem:
        assert {i: mem.store.events(S, item_id=i) for i in want} == want  # past the watermark: scanned
    clock.advance(hours=1)
    with Memory(tmp_path / "old.db", embedder="hash", clock=clock, seed=7) as mem:
        c = mem.remember("The office note says seven", scope=S)  # this reverie writes: the gap is indexed
    with sqlite3.connect(tmp_path / "old.db") as old:
        last = old.execute("SELECT max(seq) FROM events").fetchone()[0]
        assert _refs(old) == sorted([*written, (c.id, last)])
        assert old.execute("SELECT v FROM settings WHERE k = 'event_refs_seq'").fetchone() == (str(last),)


def test_triggers_made_from_other_paths_are_remade_and_the_index_refilled(tmp_path: Path) -> None:
    """``event_refs.ensure``: an index whose triggers differ from this reverie's (another version's
    paths) could miss events, so a writable open remakes them and refills every row."""
    clock = ManualClock(START)
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash", clock=clock, seed=0) as mem:
        a = mem.remember("The deploy note says tuesday", scope=S)
        mem.set_tiers({a.id: "durable"}, scope=S)
    with sqlite3.connect(db) as raw:
        want = raw.execute("SELECT ref, seq FROM event_refs ORDER BY ref, seq").fetchall()
        raw.execute("DROP TRIGGER event_refs_rewritten_2")
        raw.execute("DROP TRIGGER event_refs_rewritten")
        raw.execute("CREATE TRIGGER event_refs_rewritten AFTER UPDATE OF payload ON events BEGIN SELECT 1; END")
        raw.execute("DELETE FROM event_refs")
    with Memory(db, embedder="hash", clock=clock, seed=0):
        pass
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT ref, seq FROM event_refs ORDER BY ref, seq").fetchall() == want
        rows = raw.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'event_refs%'")
        assert dict(rows) == event_refs.TRIGGERS


# -- property: any script of writes, several times ---------------------------------------------

SCRIPTS = scripts(("remember", "remember", "set_scores", "revise", "forget", "purge", "use", "tiers"), max_size=12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=SCRIPTS)
def test_as_of_reads_match_the_scan_for_any_script(script: list[Op]) -> None:
    clock = ManualClock(START)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "p.db"
        with Memory(db, embedder="hash", clock=clock, seed=0, durability="fast") as mem:
            times = play(mem, clock, script, S)
            ids = [i.id for i in mem.list(scope=S, include_closed=True, limit=100).items]
        _same_with_and_without_index(db, Path(tmp), ids, times)
