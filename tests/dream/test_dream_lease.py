"""The cross-process lease: schema v2, the atomic lease row, renewal, expiry, two real processes."""

from __future__ import annotations

import multiprocessing as mp
import os
import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig, scope_lease
from reverie.dream.lease import ScopeLease
from reverie.model.clock import from_iso, to_iso
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.schema import FTS_TOKENIZE_DEFAULT, SCHEMA_VERSION, _v1
from reverie.testing import dream_host

from .kit import START, S, seed

T = START + timedelta(days=1)


def test_a_v1_file_made_by_the_v1_ddl_upgrades_in_place(tmp_path: Path, open_db: Callable[..., Memory]) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for stmt in _v1(FTS_TOKENIZE_DEFAULT):
        conn.execute(stmt)
    conn.execute("INSERT INTO settings VALUES ('fts_tokenize', ?)", (FTS_TOKENIZE_DEFAULT,))
    conn.execute("INSERT INTO settings VALUES ('schema_version', '1')")
    conn.commit()
    conn.close()
    mem = open_db("old")
    # v1 -> v8 in one step: leases, dream runs, vector tags, full-text counters, visibility + term stats, value types,
    # the full-text index form, prints in the comparison form
    assert SCHEMA_VERSION == 8
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert raw.execute("SELECT count(*) FROM leases").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM dream_runs").fetchone() == (0,)
    finally:
        raw.close()
    mem.remember("Alice prefers green tea", scope=S)
    assert mem.dream(scope=S).skipped is None
    assert mem.doctor().ok


@pytest.mark.parametrize("backend", ["sqlite", "reference"])
def test_the_lease_is_exclusive_until_it_expires(backend: str, tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "l.db") if backend == "sqlite" else ReferenceStore()
    try:
        later = T + timedelta(seconds=60)
        assert store.take_lease(S, "a", now=T, expires_at=later).owner == "a"
        refused = store.take_lease(S, "b", now=T + timedelta(seconds=59), expires_at=later + timedelta(seconds=60))
        assert (refused.owner, refused.expires_at) == ("a", later)  # the holder, not the asker
        assert store.take_lease("user:bob", "b", now=T, expires_at=later).owner == "b"  # per scope
        renewed = store.take_lease(S, "a", now=T + timedelta(seconds=30), expires_at=later + timedelta(seconds=30))
        assert renewed.expires_at == later + timedelta(seconds=30)  # the holder renews before expiry
        assert store.release_lease(S, "b") is False  # only the holder releases
        taken = store.take_lease(S, "b", now=later + timedelta(seconds=30), expires_at=later + timedelta(hours=1))
        assert taken.owner == "b"  # expired at `now`: taken over
        assert store.take_lease(S, "a", now=later, expires_at=later + timedelta(hours=2)).owner == "b"
        assert store.release_lease(S, "b") is True
        assert store.take_lease(S, "a", now=T, expires_at=later).owner == "a"
    finally:
        store.close()


def _hold_lease(path: str, now: str, seconds: float, held: object, done: object, release: bool) -> None:
    """Child process: take the scope's lease, say so, wait, then release it (or die holding it)."""
    mem = Memory(path, embedder="hash", clock=ManualClock(from_iso(now)))
    lease = ScopeLease(dream_host(mem), S, seconds)
    held.set() if lease else None  # type: ignore[attr-defined]
    done.wait(60)  # type: ignore[attr-defined]
    if release:
        lease.release()
        mem.close()
    else:
        os._exit(0)  # a crash: the row stays until it expires


def _child(path: Path, now: datetime, seconds: float, *, release: bool) -> tuple[mp.Process, object, object]:
    ctx = mp.get_context("spawn")
    held, done = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lease, args=(str(path), to_iso(now), seconds, held, done, release))
    proc.start()
    assert held.wait(60), "the child process did not get the lease"
    return proc, held, done


def test_a_pass_in_another_process_holds_the_scope_and_this_one_skips(
    open_db: Callable[..., Memory], clock: ManualClock, tmp_path: Path
) -> None:
    mem = open_db("shared", clock=clock)
    seed(mem, clock)
    proc, _, done = _child(tmp_path / "shared.db", clock.now(), 300, release=True)
    try:
        n = len(mem.events(scope=S))
        report = mem.dream(scope=S)
        assert report.skipped is not None and not report.actions
        assert f"pid {proc.pid} " in report.skipped and "holds the lease" in report.skipped
        assert len(mem.events(scope=S)) == n  # nothing written
        assert mem.dream(scope="user:bob").skipped is None  # other scopes are free
    finally:
        done.set()  # type: ignore[attr-defined]
        proc.join(60)
    assert proc.exitcode == 0
    assert mem.dream(scope=S).skipped is None  # released: this process may dream now


def test_a_crashed_holder_on_this_host_is_taken_over_before_its_lease_expires(
    open_db: Callable[..., Memory], clock: ManualClock, tmp_path: Path
) -> None:
    # Its process is gone, so the lease is taken over at once (tests/security/test_input_dream.py);
    # a holder on another host still blocks the scope until the lease expires.
    mem = open_db("crash", clock=clock)
    seed(mem, clock)
    proc, _, done = _child(tmp_path / "crash.db", clock.now(), 120, release=False)
    done.set()  # type: ignore[attr-defined]
    proc.join(60)
    report = mem.dream(scope=S)
    assert report.skipped is None and any(f"pid {proc.pid} " in n and "took over" in n for n in report.notes)


def test_a_long_pass_renews_its_lease_between_batches(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    intruders: list[str] = []

    def tick(phase: str, done: int, total: int) -> None:
        if phase == "apply" and done < total:
            clock.advance(seconds=40)  # two batches outlast the 60 s lease without renewal
            row = mem.store.take_lease(S, "intruder", now=clock.now(), expires_at=clock.now() + timedelta(hours=1))
            intruders.append(row.owner)

    report = mem.dream(scope=S, config=DreamConfig(apply_batch=1, lease_seconds=60), progress=tick)
    assert len(intruders) >= 3 and "intruder" not in intruders
    assert report.interrupted is None and report.stats["applied"] == len(report.actions)
    with scope_lease(dream_host(mem), S) as lease:
        assert lease  # released at the end of the pass


def test_a_pass_whose_lease_was_taken_over_stops_between_batches(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)

    def tick(phase: str, done: int, total: int) -> None:
        if phase == "apply" and done == 1:
            clock.advance(seconds=61)
            mem.store.take_lease(S, "other", now=clock.now(), expires_at=clock.now() + timedelta(hours=1))

    report = mem.dream(scope=S, config=DreamConfig(apply_batch=1, lease_seconds=60), progress=tick)
    assert report.interrupted is not None and "another pass took it (other)" in report.interrupted
    assert report.stats["applied"] == 1
    assert report.count(status="skipped") == len(report.actions) - 1
    assert mem.store.take_lease(S, "x", now=clock.now(), expires_at=clock.now()).owner == "other"  # not released
