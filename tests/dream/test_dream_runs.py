"""Recorded dream passes (schema 3, ``Store.record_dream_run``, ``Memory.dream_runs``).

The promise: every pass that ran — applied or interrupted — leaves a compact summary in the
store, readable by any ``Memory`` on the file (another process, after a restart); dry runs and
skipped passes leave none; a scope keeps its newest 20 and sees no other scope's; ``rebuild``
keeps them (they are not derived from events) and a purge drops them (they may quote the text).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, LimitExceededError, Limits, ManualClock, Memory, StorageError
from reverie.dream import Action, DreamConfig, DreamReport, Outcome
from reverie.dream.runs import FIRST_ACTIONS, SPARED_KEPT, summarize
from reverie.store.protocol import DREAM_RUNS_KEPT
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.schema import SCHEMA_VERSION
from reverie.testing import dream_host

from .kit import START, TEA, S, seed


def _tea(mem: Memory, scope: str = S) -> None:
    for text in TEA:
        mem.remember(text, scope=scope, kind="episodic")


def test_a_pass_is_visible_from_a_second_memory_on_the_same_file_and_after_reopening(
    open_db: Callable[..., Memory], clock: ManualClock
) -> None:
    runner = open_db("shared")
    seed(runner, clock)
    watcher = open_db("shared")  # opened before the pass: reads the file, not the runner's memory
    assert watcher.dream_runs(scope=S) == []
    report = runner.dream(scope=S)
    (run,) = watcher.dream_runs(scope=S)
    assert watcher.last_dream_report is None  # the in-process report is the runner's alone
    assert (run["scope"], run["at"], run["dry_run"], run["interrupted"]) == (S, report.at, False, None)
    assert run["at"] == "2025-02-10T00:00:00.000000Z"  # the injected clock's time (seed advances 40 days)
    assert run["stats"] == json.loads(json.dumps(report.stats))
    assert run["counts"]["actions"] == len(report.actions)
    assert run["counts"]["by_status"] == {"applied": report.count(status="applied")}
    assert run["counts"]["by_step"]["consolidate"] == {"applied": report.count("consolidate", "applied")}
    assert run["first_actions"][0]["reason"] == report.actions[0].reason
    assert run["spared_total"] == len(report.spared) and run["spared"] == report.spared
    assert "actions" not in run and "outcomes" not in run
    assert set(run["timings"]) >= {"read", "plan", "apply"}
    runner.close()
    watcher.close()
    assert open_db("shared").dream_runs(scope=S) == [run]  # after a restart, unchanged


def test_twenty_one_passes_keep_the_newest_twenty_newest_first(mem: Memory, clock: ManualClock) -> None:
    mem.remember("Alice prefers green tea", scope=S)
    mem.remember("Bob keeps two cats", scope="user:bob")
    mem.dream(scope="user:bob")
    ats = []
    for _ in range(DREAM_RUNS_KEPT + 1):
        clock.advance(minutes=1)
        ats.append(mem.dream(scope=S).at)
    runs = mem.dream_runs(scope=S)
    assert DREAM_RUNS_KEPT == 20 and [r["at"] for r in runs] == ats[::-1][:20]  # the oldest was dropped
    assert [r["at"] for r in mem.dream_runs(scope=S, limit=3)] == ats[::-1][:3]
    assert len(mem.dream_runs(scope="user:bob")) == 1  # pruning is per scope


def test_dry_runs_and_skipped_passes_record_nothing(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    assert mem.dream(scope=S, dry_run=True).actions
    mem.dream(scope=S, dry_run=True)
    mem.store.take_lease(S, "cron elsewhere", now=clock.now(), expires_at=clock.now() + timedelta(hours=1))
    assert mem.dream(scope=S).skipped is not None
    assert mem.dream_runs(scope=S) == []


def test_an_interrupted_pass_is_recorded_as_interrupted(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)

    def tick(phase: str, done: int, total: int) -> None:
        if phase == "apply" and done == 1:  # another process takes the expired lease mid-pass
            clock.advance(seconds=61)
            mem.store.take_lease(S, "other", now=clock.now(), expires_at=clock.now() + timedelta(hours=1))

    report = mem.dream(scope=S, config=DreamConfig(apply_batch=1, lease_seconds=60), progress=tick)
    assert report.interrupted is not None
    (run,) = mem.dream_runs(scope=S)
    assert run["interrupted"] == report.interrupted
    assert run["counts"]["by_status"] == {"applied": 1, "skipped": len(report.actions) - 1}


def test_applying_a_plan_records_the_run(mem: Memory, clock: ManualClock) -> None:
    from reverie.dream import apply, plan

    seed(mem, clock)
    planned = plan(dream_host(mem), scope=S)
    assert mem.dream_runs(scope=S) == []
    done = apply(dream_host(mem), planned)
    (run,) = mem.dream_runs(scope=S)
    assert run["at"] == done.at and run["counts"]["by_status"] == {"applied": done.count(status="applied")}


def test_a_failed_record_is_a_note_on_the_report_never_a_failed_pass(
    mem: Memory, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(mem, clock)

    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise StorageError("the disk holding the store is full")

    monkeypatch.setattr(mem.store, "record_dream_run", disk_full)
    report = mem.dream(scope=S)
    assert report.stats["applied"] == len(report.actions) > 0
    assert any("not recorded" in n and "disk holding the store is full" in n for n in report.notes)
    assert mem.last_dream_report is report
    monkeypatch.undo()
    assert mem.dream_runs(scope=S) == []


def test_rebuild_keeps_the_runs_and_doctor_is_content(any_mem: Memory, clock: ManualClock) -> None:
    seed(any_mem, clock)
    any_mem.dream(scope=S)
    before = any_mem.dream_runs(scope=S)
    any_mem.rebuild()
    assert any_mem.dream_runs(scope=S) == before and len(before) == 1
    assert any_mem.doctor().ok


def test_a_purge_drops_the_scopes_runs_which_may_quote_the_text(any_mem: Memory, clock: ManualClock) -> None:
    secret = any_mem.remember("The vault code is 4417", scope=S, importance=0.9)
    _tea(any_mem)
    any_mem.remember("Bob keeps two cats", scope="user:bob")
    any_mem.dream(scope=S)
    any_mem.dream(scope="user:bob")
    assert "4417" in json.dumps(any_mem.dream_runs(scope=S))  # the attention list quotes item texts
    any_mem.forget(secret.id, scope=S, purge=True)
    assert any_mem.dream_runs(scope=S) == []
    assert len(any_mem.dream_runs(scope="user:bob")) == 1


def test_a_scope_never_sees_another_scopes_runs(any_mem: Memory, clock: ManualClock) -> None:
    scopes = ["p", "p/x", "p-x", "p/x/y", "p0", "p_x"]  # prefixes and near-neighbours of each other
    for i, scope in enumerate(scopes):
        any_mem.remember(f"fact number {i}", scope=scope)
        for _ in range(i + 1):
            clock.advance(seconds=1)
            any_mem.dream(scope=scope)
    for i, scope in enumerate(scopes):
        runs = any_mem.dream_runs(scope=scope)
        assert len(runs) == i + 1 and {r["scope"] for r in runs} == {scope}
    assert any_mem.dream_runs(scope="q") == []


def test_the_count_is_checked_like_every_other(open_mem: Callable[..., Memory], clock: ManualClock) -> None:
    small = open_mem(limits=Limits(max_k=3))
    small.remember("Alice prefers green tea", scope=S)
    for _ in range(5):
        clock.advance(seconds=1)
        small.dream(scope=S)
    assert len(small.dream_runs(scope=S)) == 3  # the default (20) clamped to max_k
    with pytest.raises(LimitExceededError):
        small.dream_runs(scope=S, limit=4)
    for bad in (0, -1, True, "2"):
        with pytest.raises(InvalidInputError):
            small.dream_runs(scope=S, limit=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["sqlite", "reference"])
def test_both_stores_keep_return_and_refuse_runs_alike(backend: str, tmp_path: Path) -> None:
    """The store contract over crafted summaries, run against both backends with the same expectations."""
    store = SQLiteStore(tmp_path / "r.db") if backend == "sqlite" else ReferenceStore()
    try:
        for i in range(25):
            store.record_dream_run("a", {"i": i, "notes": [f"n{i}"], "scope": "forged"}, at=START + timedelta(hours=i))
        store.record_dream_run("a/b", {"i": 99}, at=START)
        runs = store.dream_runs("a", limit=100)
        assert [r["i"] for r in runs] == list(range(24, 4, -1))
        assert runs[0] == {"scope": "a", "at": "2025-01-02T00:00:00.000000Z", "i": 24, "notes": ["n24"]}
        assert store.dream_runs("a", limit=2) == runs[:2]
        assert store.dream_runs("a/b", limit=5) == [{"scope": "a/b", "at": "2025-01-01T00:00:00.000000Z", "i": 99}]
        assert store.dream_runs("b", limit=5) == []
        for bad in ({"x": float("nan")}, {"x": object()}):
            with pytest.raises(InvalidInputError):
                store.record_dream_run("a", bad, at=START)
        assert store.dream_runs("a", limit=100) == runs  # a refused summary changed nothing
    finally:
        store.close()


def test_both_backends_record_the_same_pass_alike(memories: Any, tmp_path: Path, clock: ManualClock) -> None:
    """The same commands and clock through SQLite and the reference store give the same runs (timings aside)."""
    got = []
    for reference in (False, True):
        mem = memories.open(tmp_path / "x.db") if not reference else memories.open(reference=True)
        clock.set(START)
        seed(mem, clock)
        mem.dream(scope=S)
        clock.advance(days=1)
        mem.dream(scope=S)
        got.append([{k: v for k, v in r.items() if k != "timings"} for r in mem.dream_runs(scope=S)])
    assert got[0] == got[1] and len(got[0]) == 2


def test_the_summary_drops_the_action_list_and_keeps_counts_and_the_first_few() -> None:
    actions = [Action("tier", "set_tier", (f"id{i}",), (1,), f"stale {i}") for i in range(1000)]
    actions += [Action("settle", "set_scores", ("a", "b"), (1, 1), "settles")]
    outcomes = [Outcome("applied")] * 990 + [Outcome("skipped", "changed")] * 10
    spared = [{"step": "tier", "id": f"s{i}", "reason": "manual"} for i in range(50)]
    report = DreamReport(S, "2025-01-01T00:00:00.000000Z", False, {}, actions, outcomes, spared=spared)
    summary = summarize(report)
    assert summary["counts"] == {
        "actions": 1001,
        "by_status": {"applied": 990, "skipped": 10, "planned": 1},
        "by_step": {"tier": {"applied": 990, "skipped": 10}, "settle": {"planned": 1}},
    }
    assert len(summary["first_actions"]) == FIRST_ACTIONS and summary["first_actions"][0]["reason"] == "stale 0"
    assert summary["spared"] == spared[:SPARED_KEPT] and summary["spared_total"] == 50
    assert len(json.dumps(summary)) < 10_000  # compact whatever the size of the pass


def test_a_schema_2_file_upgrades_in_place_with_its_data_intact(
    open_db: Callable[..., Memory], clock: ManualClock, tmp_path: Path
) -> None:
    """A v2 file is a v3 file without ``dream_runs``: made here by a v3 store, then taken back to v2."""
    old = open_db("v2")
    ids = seed(old, clock)
    old.store.take_lease("user:bob", "cron", now=clock.now(), expires_at=clock.now() + timedelta(days=1))
    before = (old.list(scope=S, limit=100).items, old.events(scope=S), old.edges(scope=S))
    old.close()
    raw = sqlite3.connect(tmp_path / "v2.db")
    with raw:
        raw.execute("DROP TABLE dream_runs")
        raw.execute("UPDATE settings SET v = '2' WHERE k = 'schema_version'")
    raw.close()
    mem = open_db("v2")
    assert SCHEMA_VERSION == 8
    raw = sqlite3.connect(tmp_path / "v2.db")
    try:
        assert raw.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert raw.execute("SELECT count(*) FROM dream_runs").fetchone() == (0,)
        assert raw.execute("SELECT owner FROM leases WHERE scope = 'user:bob'").fetchone() == ("cron",)
    finally:
        raw.close()
    assert (mem.list(scope=S, limit=100).items, mem.events(scope=S), mem.edges(scope=S)) == before
    assert mem.get(ids.policy, scope=S).text.startswith("Never deploy")
    assert mem.doctor().ok
    assert mem.dream(scope=S).skipped is None and len(mem.dream_runs(scope=S)) == 1
