"""Batch apply: one write transaction per batch, a savepoint per action; stale actions are skipped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import ManualClock, Memory, NotFoundError
from reverie.dream import DreamConfig, apply, dream, plan
from reverie.model import commands as cmd
from reverie.model.ids import IdFactory
from reverie.store.protocol import Batch
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore

from .kit import S, seed

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _remember(text: str) -> cmd.Remember:
    return cmd.Remember(scope=S, text=text, kind="observation", source="observed")


@pytest.mark.parametrize("backend", ["sqlite", "reference"])
def test_a_refused_step_is_rolled_back_alone_and_the_rest_commit(backend: str, tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "b.db") if backend == "sqlite" else ReferenceStore()
    ids = IdFactory(0)
    try:

        def ok(text: str):  # type: ignore[no-untyped-def]
            return lambda b: b.run([_remember(text)])[0].item_id

        def half(b: Batch) -> None:
            b.run([_remember("written, then undone")])
            raise NotFoundError("this step is refused after its first write")

        out = store.execute_steps([ok("first"), half, ok("third")], now=NOW, new_id=lambda: ids.new(NOW), vectors={})
        assert isinstance(out[1], NotFoundError)
        assert {store.get(S, i).text for i in (out[0], out[2])} == {"first", "third"}  # type: ignore[union-attr]
        assert [e.payload["item"]["text"] for e in store.events(S)] == ["first", "third"]

        def boom(b: Batch) -> None:
            b.run([_remember("never committed")])
            raise RuntimeError("not a refusal: the whole batch rolls back")

        with pytest.raises(RuntimeError):
            store.execute_steps([ok("fourth"), boom], now=NOW, new_id=lambda: ids.new(NOW), vectors={})
        assert len(store.events(S)) == 2
    finally:
        store.close()


def test_a_stale_action_is_skipped_and_reported_the_batch_applies(mem: Memory, clock: ManualClock) -> None:
    sc = seed(mem, clock)
    report = plan(mem, scope=S)
    tier = {a.item_ids[0] for a in report.actions if a.op == "set_tier"}
    assert sc.remark in tier
    mem.set_scores(sc.remark, scope=S, importance=0.9, reason="someone else wrote after the plan read it")
    before = mem.get(sc.remark, scope=S)
    apply(mem, report)
    skipped = [(a, o) for a, o in zip(report.actions, report.outcomes, strict=True) if o.status == "skipped"]
    assert [a.item_ids[0] for a, _ in skipped] == [sc.remark]
    assert "VersionConflictError" in skipped[0][1].detail and "changed since you read it" in skipped[0][1].detail
    assert mem.get(sc.remark, scope=S) == before  # their write stands; ours did not overwrite it
    assert report.stats["applied"] == len(report.actions) - 1 and report.stats["failed"] == 0


def test_progress_reports_apply_after_each_batch(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    seq = mem.events(scope=S, limit=100_000)[-1].seq
    seen: list[int] = []

    def tick(phase: str, done: int, total: int) -> None:
        if phase == "apply":
            seen.append(done)

    report = dream(mem, scope=S, config=DreamConfig(apply_batch=3), progress=tick)
    assert seen == [*range(3, len(report.actions), 3), len(report.actions)]
    assert len(mem.events(scope=S, after_seq=seq, limit=100_000)) >= report.stats["applied"]
