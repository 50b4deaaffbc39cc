"""Batch apply: one write transaction per batch, a savepoint per action; stale actions are skipped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import InvalidInputError, ManualClock, Memory, NotFoundError
from reverie.dream import DreamConfig, apply, plan
from reverie.model import commands as cmd
from reverie.model.ids import IdFactory
from reverie.store.protocol import Batch
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore
from reverie.testing import dream_host

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
    report = plan(dream_host(mem), scope=S)
    tier = {a.item_ids[0] for a in report.actions if a.op == "set_tier"}
    assert sc.remark in tier
    mem.set_scores(sc.remark, scope=S, importance=0.9, reason="someone else wrote after the plan read it")
    before = mem.get(sc.remark, scope=S)
    apply(dream_host(mem), report)
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

    report = mem.dream(scope=S, config=DreamConfig(apply_batch=3), progress=tick)
    assert seen == [*range(3, len(report.actions), 3), len(report.actions)]
    assert len(mem.events(scope=S, after_seq=seq, limit=100_000)) >= report.stats["applied"]


_REMARKS = (
    "Bob said the weather was nice",
    "the printer on floor two jammed again",
    "someone left a scarf in room 4",
    "lunch was late on Tuesday",
    "the lift music changed to jazz",
    "a pigeon sat on the window ledge",
)


def _stale_remarks(mem: Memory, clock: ManualClock) -> list[str]:
    ids = [mem.remember(t, scope=S, kind="remark", source="inferred").id for t in _REMARKS]
    clock.advance(days=40)
    return ids


def _new_events(mem: Memory, after: int) -> list[tuple[str, dict[str, object]]]:
    return [(e.type, e.payload) for e in mem.events(scope=S, after_seq=after, limit=100_000)]


def test_consecutive_demotions_are_one_event_with_a_reason_per_item(mem: Memory, clock: ManualClock) -> None:
    ids = _stale_remarks(mem, clock)
    report = plan(dream_host(mem), scope=S)
    tier = [a for a in report.actions if a.op == "set_tier"]
    assert sorted(a.item_ids[0] for a in tier) == sorted(ids)
    seq = mem.events(scope=S, limit=100_000)[-1].seq
    apply(dream_host(mem), report)
    assert {o.status for o in report.outcomes} == {"applied"}
    events = _new_events(mem, seq)
    assert [t for t, _ in events] == ["memory.tiers_set"]
    changes = events[0][1]["changes"]
    assert changes == [{"id": a.item_ids[0], "tier": "subconscious", "reason": f"dream/tier: {a.reason}"} for a in tier]
    for a in tier:  # each item's history holds the shared event; as_of before the pass still sees it active
        item = mem.get(a.item_ids[0], scope=S)
        assert item.tier == "subconscious" and item.version == a.versions[0] + 1
        assert mem.history(item.id, scope=S).events[-1].type == "memory.tiers_set"


def test_a_stale_demotion_in_a_run_is_skipped_alone_and_the_rest_apply(mem: Memory, clock: ManualClock) -> None:
    ids = _stale_remarks(mem, clock)
    report = plan(dream_host(mem), scope=S)
    order = [a.item_ids[0] for a in report.actions if a.op == "set_tier"]
    assert len(order) == len(ids)
    stale = order[2]
    mem.set_scores(stale, scope=S, importance=0.9, reason="someone else wrote after the plan read it")
    before = mem.get(stale, scope=S)
    seq = mem.events(scope=S, limit=100_000)[-1].seq
    apply(dream_host(mem), report)
    status = {a.item_ids[0]: o for a, o in zip(report.actions, report.outcomes, strict=True) if a.op == "set_tier"}
    assert status[stale].status == "skipped" and "VersionConflictError" in status[stale].detail
    assert all(status[i].status == "applied" for i in order if i != stale)
    assert mem.get(stale, scope=S) == before  # their write stands
    assert [mem.get(i, scope=S).tier for i in order if i != stale] == ["subconscious"] * (len(order) - 1)
    # the bulk event was refused before it wrote; the moves were then made one by one
    assert [t for t, _ in _new_events(mem, seq)] == ["memory.tier_set"] * (len(order) - 1)
    assert report.stats["applied"] == len(report.actions) - 1 and report.stats["skipped"] == 1


@pytest.mark.parametrize("backend", ["sqlite", "reference"])
def test_a_purge_is_refused_inside_a_batch_and_nothing_of_it_is_written(backend: str, tmp_path: Path) -> None:
    """A purge must scrub the file after its commit, which only ``Store.execute`` does."""
    store = SQLiteStore(tmp_path / "p.db") if backend == "sqlite" else ReferenceStore()
    ids = IdFactory(0)
    try:
        first = store.execute([_remember("a secret to purge")], now=NOW, new_id=lambda: ids.new(NOW), vectors={})
        item_id = first[0].item_id
        assert item_id is not None
        out = store.execute_steps(
            [lambda b: b.run([cmd.Purge(S, item_id, "erasure")]), lambda b: b.run([_remember("kept")])],
            now=NOW,
            new_id=lambda: ids.new(NOW),
            vectors={},
        )
        assert isinstance(out[0], InvalidInputError) and "Store.execute" in str(out[0])
        assert store.get(S, item_id).text == "a secret to purge"  # type: ignore[union-attr]
        assert [e.type for e in store.events(S)] == ["memory.remembered", "memory.remembered"]
    finally:
        store.close()
