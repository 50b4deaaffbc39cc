"""Promise: several processes can write (and read) one store at once.

- 4 writer processes run random remember / remember_many / revise / forget / link calls on two
  shared scopes while 2 reader processes loop recall (all modes) / list / get. No caller ever
  sees "database is locked" or any other ``StorageError`` (``busy_timeout`` + ``BEGIN IMMEDIATE``
  queue the writers); every acknowledged call is visible afterwards; the event log is gap-free
  and each process's calls appear in it in the order it made them; the projections equal a
  serial replay of the log (``rebuild``); readers never see another scope.
- Optimistic concurrency: racers released together by a barrier all ``revise`` the same item
  with the same ``expected_version``; in each round exactly one wins.
- Readers that always hold a snapshot do not make the WAL grow without bound.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory
from reverie.model.validate import normalise_text

from .soak import seed, soak
from .soak_workers import mixed_writer, racer, reader

pytestmark = pytest.mark.slow

SCOPES = ["team:a", "team:b"]
WRITERS, READERS, RACERS = 4, 2, 4
ALLOWED_REFUSALS = {"AlreadyClosedError", "VersionConflictError"}


def all_items(mem: Memory, scope: str) -> list[Any]:
    items, cursor = [], None
    while True:
        page = mem.list(scope=scope, include_closed=True, limit=1000, cursor=cursor)
        items += page.items
        cursor = page.next_cursor
        if cursor is None:
            return items


def all_events(mem: Memory, scope: str) -> list[Any]:
    events: list[Any] = []
    while True:
        batch = mem.events(scope=scope, after_seq=events[-1].seq if events else 0, limit=10_000)
        if not batch:
            return events
        events += batch


def projections(mem: Memory) -> dict[str, Any]:
    """Everything the projections hold, per scope, in a form that compares with ``==``."""
    return {
        scope: {
            "items": sorted((i.to_dict() for i in all_items(mem, scope)), key=lambda d: d["id"]),
            "edges": sorted((e.to_dict() for e in mem.edges(scope=scope, include_closed=True)), key=lambda d: d["id"]),
            "tombstones": mem.store.tombstones(scope),
        }
        for scope in SCOPES
    }


def event_key(event: Any) -> str | None:
    """The id of what an event created or closed: how a writer's log entry finds its event."""
    p = event.payload
    if event.type in ("memory.remembered", "memory.revised"):
        return f"item:{p['item']['id']}"
    if event.type == "memory.forgotten":
        return f"forgot:{p['id']}"
    if event.type == "edge.linked":
        return f"edge:{p['edge']['id']}"
    return None


def log_key(entry: list[Any]) -> str | None:
    op = entry[0]
    if op == "remember":
        return f"item:{entry[2]}"
    if op == "batch":
        return f"item:{entry[2][0]}"
    if op == "revise":
        return f"item:{entry[3]}"
    if op == "forget":
        return f"forgot:{entry[2]}"
    if op == "link" and entry[5]:
        return f"edge:{entry[2]}"
    # A shared remember may have corroborated an item another process created earlier, and an
    # idempotent link may have returned an edge that already existed: neither made an event now.
    return None


def test_writers_and_readers_in_parallel_processes(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    Memory(db, embedder="hash").close()
    ctx = mp.get_context("forkserver")  # children fork from a server that already imported reverie
    ctx.set_forkserver_preload(["reverie", "reliability.soak_workers"])
    go, stop = ctx.Event(), ctx.Event()
    n_ops = 250 * soak()
    base = seed()
    w_res = [tmp_path / f"writer{w}.json" for w in range(WRITERS)]
    r_res = [tmp_path / f"reader{r}.json" for r in range(READERS)]
    writers = [
        ctx.Process(target=mixed_writer, args=(str(db), str(w_res[w]), w, n_ops, base + w, SCOPES, go), daemon=True)
        for w in range(WRITERS)
    ]
    readers = [
        ctx.Process(target=reader, args=(str(db), str(r_res[r]), base + 100 + r, SCOPES, go, stop), daemon=True)
        for r in range(READERS)
    ]
    for p in writers + readers:
        p.start()
    go.set()
    try:
        for p in writers:
            p.join(120 * soak())
            assert p.exitcode == 0, f"a writer exited with {p.exitcode}"
        stop.set()
        for p in readers:
            p.join(60)
            assert p.exitcode == 0, f"a reader exited with {p.exitcode}"
    finally:
        for p in writers + readers:
            if p.is_alive():
                p.kill()
                p.join(10)
    wres = [json.loads(p.read_text()) for p in w_res]
    rres = [json.loads(p.read_text()) for p in r_res]

    # No caller saw a storage error (locked, busy) or anything but the expected refusals.
    assert [r["unexpected"] for r in wres + rres] == [[]] * (WRITERS + READERS)
    assert set().union(*(r["refused"] for r in wres)) <= ALLOWED_REFUSALS
    assert all(r["loops"] > 0 for r in rres) and sum(r["foreign"] for r in rres) == 0
    acked = sum(len(r["log"]) for r in wres)
    assert acked + sum(sum(r["refused"].values()) for r in wres) == WRITERS * n_ops

    with Memory(db, embedder="hash") as mem:
        report = mem.doctor()
        assert report.ok, report.problems
        # The log has no gaps and no reordering; each process's calls appear in its own order.
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            seqs = [r[0] for r in con.execute("SELECT seq FROM events ORDER BY seq")]
        finally:
            con.close()
        assert seqs == list(range(1, len(seqs) + 1))
        events = [e for s in SCOPES for e in all_events(mem, s)]
        for s in SCOPES:
            scoped = [e.seq for e in events if e.scope == s]
            assert scoped == sorted(set(scoped))
        where = {k: e.seq for e in events if (k := event_key(e)) is not None}
        for r in wres:
            order = [where[k] for k in map(log_key, r["log"]) if k is not None]
            assert order == sorted(order) and len(set(order)) == len(order), f"writer {r['worker']} out of order"
        _check_acknowledged_calls_visible(mem, wres)

        # The projections are exactly what a serial replay of the event log produces.
        before = projections(mem)
        assert sum(len(v["items"]) for v in before.values()) == sum(
            e.type in ("memory.remembered", "memory.revised") for e in events
        )
        mem.rebuild()
        assert projections(mem) == before
        assert mem.doctor().ok
    print(
        f"\nconcurrency: soak={soak()} writers={WRITERS}x{n_ops} acked={acked} "
        f"refused={sum(sum(r['refused'].values()) for r in wres)} events={len(seqs)} "
        f"reader_loops={sum(r['loops'] for r in rres)} storage_errors=0"
    )


def _check_acknowledged_calls_visible(mem: Memory, results: list[dict[str, Any]]) -> None:
    shared: dict[tuple[str, str], int] = {}
    for r in results:
        for entry in r["log"]:
            op, scope = entry[0], entry[1]
            if op in ("remember", "shared"):
                assert mem.get(entry[2], scope=scope)
            elif op == "batch":
                assert len(mem.store.get_many(scope, entry[2])) == len(entry[2])
            elif op == "revise":
                assert mem.get(entry[3], scope=scope).text.startswith(f"w{r['worker']} ")
                assert mem.get(entry[2], scope=scope).status == "superseded"
            elif op == "forget":
                assert mem.get(entry[2], scope=scope).status == "forgotten"
            else:
                (edge,) = [e for e in mem.edges(entry[3], scope=scope) if e.id == entry[2]]
                assert (edge.src, edge.dst) == (entry[3], entry[4])
            if op == "shared":
                shared[(scope, normalise_text(entry[3]))] = 0
    # The same text remembered by several processes at once was corroborated, never duplicated.
    for scope in SCOPES:
        for item in mem.list(scope=scope, limit=1000).items:
            if (scope, normalise_text(item.text)) in shared:
                shared[(scope, normalise_text(item.text))] += 1
    assert shared and max(shared.values()) <= 1


def test_racing_revises_with_expected_version_have_one_winner(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    with Memory(db, embedder="hash") as mem:
        target = mem.remember("v1 the contested claim", scope="race")
    ctx = mp.get_context("forkserver")  # children fork from a server that already imported reverie
    ctx.set_forkserver_preload(["reverie", "reliability.soak_workers"])
    tasks = [ctx.Queue() for _ in range(RACERS)]
    results = ctx.Queue()
    barrier = ctx.Barrier(RACERS)
    procs = [
        ctx.Process(target=racer, args=(str(db), w, tasks[w], results, barrier), daemon=True) for w in range(RACERS)
    ]
    for p in procs:
        p.start()
    rounds = 20 * soak()
    losses: dict[str, int] = {}
    wins: dict[int, int] = {}
    current, version = target.id, 1
    try:
        for n in range(rounds):
            for q in tasks:
                q.put(("race", current, version))
            outcomes = [results.get(timeout=120) for _ in range(RACERS)]
            assert [o for o in outcomes if o[1] == "error"] == []
            winners = [o for o in outcomes if o[1] == "won"]
            assert len(winners) == 1, f"round {n}: {len(winners)} winners"
            for o in outcomes:
                if o[1] != "won":
                    losses[o[1]] = losses.get(o[1], 0) + 1
            wins[winners[0][0]] = wins.get(winners[0][0], 0) + 1
            current, version = winners[0][2], winners[0][3]
            assert version == n + 2
        for q in tasks:
            q.put(None)
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join(10)
        for q in [*tasks, results]:
            q.close()
            q.join_thread()
    assert sum(losses.values()) == rounds * (RACERS - 1)
    with Memory(db, embedder="hash") as mem:
        history = mem.history(current, scope="race")
        assert [v.status for v in history.versions] == ["superseded"] * rounds + ["live"]
        assert len(mem.list(scope="race").items) == 1
        assert mem.doctor().ok
    print(f"\nrace: rounds={rounds} winners_by_racer={dict(sorted(wins.items()))} losers={losses}")


def test_wal_stays_bounded_while_readers_always_hold_a_snapshot(tmp_path: Path) -> None:
    """Regression (checkpoint starvation): with a reader always inside a read transaction, SQLite's
    automatic (passive) checkpoint can never restart the WAL, which then grows without bound — the
    soak saw a 1.3 GB WAL beside a 54 MB database, and every read slowed as it grew. Two readers
    take turns holding a snapshot (as two request handlers would) while one writer commits."""
    db = tmp_path / "wal.db"
    mem = Memory(db, embedder="hash", durability="fast", detect_conflicts=False)
    stop = threading.Event()
    reads = [0, 0]

    def read(n: int) -> None:
        con = sqlite3.connect(db, isolation_level=None)
        try:
            while not stop.is_set():
                con.execute("BEGIN")
                con.execute("SELECT count(*) FROM items").fetchone()
                time.sleep(0.002)  # work done inside one snapshot
                con.execute("SELECT count(*) FROM events").fetchone()
                con.execute("COMMIT")
                reads[n] += 1
        finally:
            con.close()

    threads = [threading.Thread(target=read, args=(n,), daemon=True) for n in range(2)]
    for t in threads:
        t.start()
    peak = 0
    try:
        for i in range(400 * soak()):
            mem.remember(f"note {i}: the WAL must not outgrow its checkpoints", scope="wal")
            peak = max(peak, Path(f"{db}-wal").stat().st_size)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
        mem.close()
    assert min(reads) > 10
    # Left alone, the WAL restarts near wal_autocheckpoint (1000 pages = 4 MB); allow 4x that.
    assert peak <= 16 * 2**20, f"the WAL grew to {peak / 2**20:.0f} MB"
    print(f"\nwal: peak {peak / 2**20:.1f} MB over {400 * soak()} commits with readers always present")
