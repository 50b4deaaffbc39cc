"""Promise: an acknowledged write is never lost, and a write that fails leaves no trace.

Three ways a write can be cut short, each checked against the store afterwards:

- Writer processes killed with SIGKILL at seeded random moments while they remember, batch and
  revise on one shared file. Every call a writer acknowledged (its id appended and fsync'ed to
  the writer's ack file *after* the call returned) must be readable; at most the one call in
  flight may have committed unacknowledged; the file passes ``PRAGMA integrity_check`` and
  ``doctor()``. In ``durability="fast"`` (``synchronous=NORMAL``) a *process* kill loses no
  committed transaction either: only power loss could, which no test here can simulate.
- An exception raised before each write statement of one command (the store's test-only
  ``_crash_hook``): the command must be wholly absent — byte for byte, in every table — and
  the same ``Memory`` must go on working; with no hook the command is wholly present.
- The writer process SIGKILL-ed before each write statement of a ``revise``: same checks,
  through crash recovery of a hot WAL.

Sizes scale with ``REVERIE_SOAK`` (``scripts/soak`` sets 25: 4 x 2,500 writes per round).
"""

from __future__ import annotations

import multiprocessing as mp
import random
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory, StorageError
from reverie.model.query import Q

from .soak import seed, soak
from .soak_workers import crash_writer, read_acks, revise_killed_at

pytestmark = pytest.mark.slow

WRITERS = 4
#: (kill points required, minimum rounds) per durability.
KILL_TARGETS = {"fast": (20, 5), "full": (2, 2)}


# -- helpers ------------------------------------------------------------------------------------------


def integrity(db: Path) -> list[tuple[Any, ...]]:
    """``PRAGMA integrity_check`` through a read-only connection of our own (not reverie's)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("PRAGMA integrity_check").fetchall()
    finally:
        con.close()


def snapshot(db: Path) -> dict[str, list[str]]:
    """Every row of every table (FTS5 shadow tables and sqlite_sequence included), via a fresh
    read-only connection: what any other process would see as committed."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(repr(row) for row in con.execute(f'SELECT * FROM "{t}"')) for t in tables}
    finally:
        con.close()


def run_round(db: Path, tmp: Path, durability: str, round_no: int, rng: random.Random) -> tuple[int, list[Path]]:
    """Start the writers, SIGKILL each at its own random point; returns (kill points, ack files).

    Each writer's kill point is a number of acknowledged calls drawn from [1, max_ops) plus a
    random delay of up to 20 ms, so the kill lands somewhere inside a later call (between any
    two statements, in COMMIT, or between the commit and the acknowledgement) whatever the
    machine's speed.
    """
    ctx = mp.get_context("forkserver")  # children fork from a server that already imported reverie:
    ctx.set_forkserver_preload(["reverie", "reliability.soak_workers"])  # no cold start per writer
    max_ops = 100 * soak()
    acks = [tmp / f"{durability}-r{round_no}-w{w}.ack" for w in range(WRITERS)]
    procs = [
        ctx.Process(
            target=crash_writer,
            args=(str(db), str(acks[w]), w, round_no, durability, max_ops, rng.randrange(2**32)),
            daemon=True,
        )
        for w in range(WRITERS)
    ]
    kill_after = [rng.randrange(1, max_ops) for _ in procs]
    jitter = [rng.uniform(0.0, 0.02) for _ in procs]
    for p in procs:
        p.start()
    acked = [0] * WRITERS
    reached: list[float | None] = [None] * WRITERS
    pending = set(range(WRITERS))
    kills = 0
    deadline = time.monotonic() + 120 + 2 * max_ops  # generous: a writer manages > 1 call per second
    try:
        while pending:
            assert time.monotonic() < deadline, f"writers of round {round_no} stalled at {acked} acks"
            for w in sorted(pending):
                if not procs[w].is_alive():
                    assert procs[w].exitcode == 0, f"writer {w} died on its own (exit code {procs[w].exitcode})"
                    pending.discard(w)  # finished its quota before its kill point: not a kill point
                    continue
                if reached[w] is None:
                    if acks[w].exists():
                        acked[w] = acks[w].read_bytes().count(b"\n")
                    if acked[w] >= kill_after[w]:
                        reached[w] = time.monotonic()
                elif time.monotonic() - reached[w] >= jitter[w]:  # type: ignore[operator]
                    procs[w].kill()  # SIGKILL: no cleanup, no atexit, mid-whatever it was doing
                    procs[w].join(30)
                    if procs[w].exitcode == -signal.SIGKILL:
                        kills += 1
                    pending.discard(w)
            time.sleep(0.002)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
            p.join(30)
    return kills, acks


def check_round(db: Path, round_no: int, acks: list[Path], all_acked: dict[str, str]) -> dict[str, int]:
    """Every acknowledged write is there; at most the in-flight call per writer committed unacked."""
    assert integrity(db) == [("ok",)]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        texts = [r[0] for r in con.execute("SELECT text FROM items WHERE scope = 'soak'")]
    finally:
        con.close()
    stats = {"acked_calls": 0, "acked_items": 0, "unacked_committed": 0}
    with Memory(db, embedder="hash") as mem:
        for w, ack_path in enumerate(acks):
            records = read_acks(ack_path)
            prefix = f"w{w} r{round_no} op"
            for rec in records:
                stats["acked_calls"] += 1
                tag = f"{prefix}{rec['j']} "
                if rec["op"] == "revise":
                    new = mem.get(rec["new"], scope="soak")
                    assert new.text.startswith(tag) and "revised" in new.text
                    assert mem.get(rec["old"], scope="soak").status == "superseded"
                    all_acked[rec["new"]] = tag
                    stats["acked_items"] += 1
                    continue
                for item_id in rec["ids"]:
                    assert mem.get(item_id, scope="soak").text.startswith(tag)
                    all_acked[item_id] = tag
                    stats["acked_items"] += 1
            acked_ops = {rec["j"] for rec in records}
            stored_ops = {int(t[len(prefix) :].split(" ")[0]) for t in texts if t.startswith(prefix)}
            assert acked_ops <= stored_ops
            extra = stored_ops - acked_ops
            # Only the call in flight at the kill may have committed without its acknowledgement.
            assert extra <= {max(acked_ops, default=-1) + 1}, f"writer {w}: unacknowledged ops {sorted(extra)}"
            stats["unacked_committed"] += len(extra)
        found = {}
        ids = list(all_acked)
        for start in range(0, len(ids), 500):  # every write acknowledged in any earlier round, too
            found.update(mem.store.get_many("soak", ids[start : start + 500]))
        lost = [i for i in ids if i not in found or not found[i].text.startswith(all_acked[i])]
        assert lost == [], f"{len(lost)} acknowledged writes lost"
        report = mem.doctor()
        assert report.ok, report.problems
        assert report.counts["items"] == len(texts)
    return stats


# -- 1. SIGKILL-ed writers on one file -----------------------------------------------------------------


@pytest.mark.parametrize("durability", ["fast", "full"])
def test_acknowledged_writes_survive_sigkill_of_every_writer(tmp_path: Path, durability: str) -> None:
    rng = random.Random(f"{seed()}-{durability}")
    db = tmp_path / "soak.db"
    Memory(db, embedder="hash", durability=durability).close()  # create the schema up front
    target, min_rounds = KILL_TARGETS[durability]
    kills = rounds = 0
    totals = {"acked_calls": 0, "acked_items": 0, "unacked_committed": 0}
    all_acked: dict[str, str] = {}
    while kills < target or rounds < min_rounds:
        assert rounds < 4 * min_rounds, f"only {kills} kill points in {rounds} rounds: writers finish too early"
        got, acks = run_round(db, tmp_path, durability, rounds, rng)
        kills += got
        for name, value in check_round(db, rounds, acks, all_acked).items():
            totals[name] += value
        rounds += 1
    assert totals["acked_items"] > 0
    print(
        f"\ncrash[{durability}] soak={soak()} rounds={rounds} kill_points={kills} "
        f"acked_calls={totals['acked_calls']} acked_items={totals['acked_items']} lost=0 "
        f"committed_unacked={totals['unacked_committed']}"
    )


# -- 2. an exception before every statement of one command ----------------------------------------------


class InjectedCrash(Exception):
    pass


class InjectedInterrupt(BaseException):  # like KeyboardInterrupt: must roll back too
    pass


FAILURES: dict[str, tuple[Callable[[], BaseException], type[BaseException]]] = {
    "exception": (lambda: InjectedCrash("injected"), InjectedCrash),
    "interrupt": (lambda: InjectedInterrupt("injected"), InjectedInterrupt),
    "io-error": (lambda: sqlite3.OperationalError("disk I/O error"), StorageError),
    "disk-full": (lambda: sqlite3.OperationalError("database or disk is full"), StorageError),
}

SCOPE = "crash"


def _seed_store(mem: Memory) -> dict[str, str]:
    a = mem.remember("Alice drinks green tea every morning", scope=SCOPE, key="alice.drink", value="green tea")
    b = mem.remember("Bob keeps two cats", scope=SCOPE, tags=["pets"])
    c = mem.remember("The deploy key lives in the vault", scope=SCOPE)
    mem.link(a.id, b.id, "about", scope=SCOPE)
    return {"a": a.id, "b": b.id, "c": c.id}


COMMANDS: dict[str, Callable[[Memory, dict[str, str]], Any]] = {
    "revise": lambda m, ids: m.revise(ids["a"], "Alice now drinks coffee", scope=SCOPE, value="coffee"),
    "remember_many": lambda m, ids: m.remember_many(["first of a batch", "second of a batch", "third"], scope=SCOPE),
    "forget": lambda m, ids: m.forget(ids["b"], scope=SCOPE),
    "dismiss": lambda m, ids: m.dismiss(ids["c"], scope=SCOPE),
    "link": lambda m, ids: m.link(ids["b"], ids["c"], "supports", scope=SCOPE),
}


def _fully_present(mem: Memory, command: str, ids: dict[str, str], result: Any) -> None:
    if command == "revise":
        assert result.text == "Alice now drinks coffee" and result.version == 2
        assert mem.get(ids["a"], scope=SCOPE).status == "superseded"
        assert any(e.type == "supersedes" for e in mem.edges(result.id, scope=SCOPE))
        hits = mem.recall("coffee", scope=SCOPE, mode="lexical", record_use=False)
        assert [h.item.id for h in hits] == [result.id]
    elif command == "remember_many":
        assert [i.text for i in result] == ["first of a batch", "second of a batch", "third"]
        listed = mem.list(scope=SCOPE, where=Q.ids(*[i.id for i in result])).items
        assert sorted(i.id for i in listed) == sorted(i.id for i in result)
    elif command in ("forget", "dismiss"):
        assert result.status == {"forget": "forgotten", "dismiss": "dismissed"}[command]
        assert result.id not in {i.id for i in mem.list(scope=SCOPE).items}
    else:
        assert result.type == "supports" and result in mem.edges(ids["b"], scope=SCOPE)


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_failure_before_any_statement_leaves_no_trace(tmp_path: Path, command: str, failure: str) -> None:
    make_error, expected = FAILURES[failure]
    db = tmp_path / "hook.db"
    mem = Memory(db, embedder="hash")
    try:
        ids = _seed_store(mem)
        store: Any = mem.store
        before = snapshot(db)
        events_before = len(mem.events(scope=SCOPE))
        statements = 0
        for i in range(200):
            calls = [0]

            def hook(sql: str, i: int = i, calls: list[int] = calls) -> None:
                if calls[0] == i:
                    raise make_error()
                calls[0] += 1

            store._crash_hook = hook
            try:
                result = COMMANDS[command](mem, ids)
            except expected:
                failed = True
            else:
                failed = False
            finally:
                store._crash_hook = None
            if failed:
                assert not store._conn.in_transaction, "the failed write left its transaction open"
                assert snapshot(db) == before, f"statement {i}: the failed {command} left rows behind"
                assert len(mem.events(scope=SCOPE)) == events_before  # this connection sees no trace either
                assert mem.doctor().ok
                assert mem.get(ids["a"], scope=SCOPE).version == 1  # and it still reads ...
                mem.remember(f"probe {i}: writes work after the failure", scope="probe")  # ... and writes
                before = snapshot(db)
                continue
            statements = i
            break
        else:  # pragma: no cover - would mean a command of over 200 statements
            pytest.fail("the command never completed")
        assert statements >= (5 if command == "revise" else 1), f"{command} ran only {statements} statements"
        _fully_present(mem, command, ids, result)
        assert len(mem.events(scope=SCOPE)) > events_before
        assert mem.doctor().ok
        mem.remember("the store still takes writes after every failure", scope=SCOPE)
    finally:
        mem.close()


# -- 3. SIGKILL before every statement of a revise ---------------------------------------------------------


def test_sigkill_before_any_statement_of_revise_leaves_no_trace(tmp_path: Path) -> None:
    db = tmp_path / "kill.db"
    with Memory(db, embedder="hash") as mem:
        ids = _seed_store(mem)
    before = snapshot(db)
    ctx = mp.get_context("forkserver")  # children fork from a server that already imported reverie
    ctx.set_forkserver_preload(["reverie", "reliability.soak_workers"])
    kills = 0
    for i in range(200):
        p = ctx.Process(target=revise_killed_at, args=(str(db), SCOPE, ids["a"], i))
        p.start()
        p.join(60)
        if p.exitcode == -signal.SIGKILL:
            kills += 1
            assert integrity(db) == [("ok",)]
            assert snapshot(db) == before, f"SIGKILL before statement {i} left rows behind"
            continue
        assert p.exitcode == 0, f"the revise failed with exit code {p.exitcode}"
        break
    assert kills >= 5, f"revise ran only {kills} write statements"
    with Memory(db, embedder="hash") as mem:
        assert mem.doctor().ok
        old = mem.get(ids["a"], scope=SCOPE)
        assert old.status == "superseded"
        (new,) = [i for i in mem.list(scope=SCOPE).items if i.text == "a revision that crashed mid-transaction"]
        assert new.version == 2
        assert len(mem.list(scope=SCOPE, include_closed=True).items) == 4  # exactly one revise landed
    print(f"\nsigkill-per-statement: revise killed at {kills} statements, then completed")
