"""Properties of a pass: deterministic, non-destructive, concurrency-safe, explainable."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from reverie import InvalidInputError, ManualClock, Memory
from reverie.dream import DreamConfig, apply, plan, scope_lease
from reverie.testing import dream_host

from .kit import START, S, count_all, seed


def test_dry_run_plan_is_the_same_twice_and_across_identical_stores(open_db: Callable[..., Memory]) -> None:
    plans = []
    for name in ("a", "b"):
        clock = ManualClock(START)
        mem = open_db(name, clock=clock)
        seed(mem, clock)
        first = mem.dream(scope=S, dry_run=True).to_dict()
        assert mem.dream(scope=S, dry_run=True).to_dict() == first
        plans.append(first)
    assert plans[0] == plans[1]
    assert plans[0]["actions"]  # the seeded scope exercises the steps


def test_dry_run_writes_nothing(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    n = len(mem.events(scope=S))
    report = mem.dream(scope=S, dry_run=True)
    assert report.dry_run and report.actions
    assert all(d["status"] == "planned" for d in report.to_dict()["actions"])
    assert len(mem.events(scope=S)) == n


def test_report_is_json_and_names_step_items_and_reason(open_db: Callable[..., Memory], clock: ManualClock) -> None:
    mem = open_db("json", detect_conflicts=False)
    sc = seed(mem, clock)
    mem.forget(sc.parent, scope=S, reason="wrong")
    # The seed's only settling candidates are user-stated or manual, which no longer settle:
    # an observed item, unchanged for ten days, is what step 9 settles here.
    mem.remember("The build cache lives on the NFS share", scope=S)
    clock.advance(days=10)
    report = mem.dream(scope=S)
    data = json.loads(json.dumps(report.to_dict(timings=True)))
    steps = {a["step"] for a in data["actions"]}
    assert {"consolidate", "contradiction", "tier", "provenance", "settle"} <= steps
    for a in data["actions"]:
        assert a["item_ids"] and a["reason"] and a["status"] in ("applied", "skipped", "failed")
    assert data["stats"]["applied"] == len(data["actions"])


def test_passes_never_delete_and_every_change_is_a_logged_event(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    for budget in (12, 8, 4):
        rows = count_all(mem)
        seq = mem.events(scope=S, limit=100_000)[-1].seq
        report = mem.dream(scope=S, config=DreamConfig(keep_budget=budget))
        assert count_all(mem) >= rows
        new = mem.events(scope=S, after_seq=seq, limit=100_000)
        # a run of tier moves is one memory.tiers_set event carrying one change (and reason) per item
        bulk = [c for e in new if e.type == "memory.tiers_set" for c in e.payload["changes"]]
        assert len(new) - sum(e.type == "memory.tiers_set" for e in new) + len(bulk) >= report.count(status="applied")
        assert all(c["reason"].startswith("dream/") for c in bulk)
        for e in new:
            reason = e.payload.get("reason")
            edge = e.payload.get("edge")
            assert (
                (reason or "").startswith("dream/")
                or (edge and edge["author"] == "dream")
                or e.type.endswith("remembered")
                or e.type == "memory.tiers_set"
            )
        clock.advance(days=10)


def test_a_write_between_plan_and_apply_is_never_lost(mem: Memory, clock: ManualClock) -> None:
    sc = seed(mem, clock)
    planned = plan(dream_host(mem), scope=S, config=DreamConfig(keep_budget=5))
    assert sc.remark in planned.ids("tier") | planned.ids("keep_budget")
    assert sc.derived in planned.ids("tier") | planned.ids("keep_budget")
    mem.set_scores(sc.remark, scope=S, importance=0.9, reason="a person cares about this")
    revised = mem.revise(sc.derived, "Staging supports JSON path queries since 9.4", scope=S)
    report = apply(dream_host(mem), planned)
    assert not report.dry_run
    for i, action in enumerate(report.actions):
        if {sc.remark, sc.derived} & set(action.item_ids):
            assert report.outcomes[i].status == "skipped", action
    remark = mem.get(sc.remark, scope=S)
    assert remark.scores.importance == 0.9 and remark.is_current and remark.tier == "active"
    assert mem.get(revised.id, scope=S).is_current
    assert report.count(status="applied") > 0


def test_second_pass_on_a_held_scope_skips_and_says_so(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    n = len(mem.events(scope=S))
    with scope_lease(dream_host(mem), S) as held:
        assert held
        report = mem.dream(scope=S)
        assert report.skipped and "lease" in report.skipped and not report.actions
        assert apply(dream_host(mem), plan(dream_host(mem), scope=S)).skipped  # applying a plan needs the lease too
        assert mem.dream(scope="user:bob").skipped is None  # other scopes are free
    assert len(mem.events(scope=S)) == n
    assert mem.dream(scope=S).skipped is None


def test_two_memories_on_one_file_share_the_lease(open_db: Callable[..., Memory]) -> None:
    first = open_db("shared")
    second = open_db("shared")
    with scope_lease(dream_host(first), S) as held:
        assert held
        assert second.dream(scope=S).skipped is not None


@pytest.mark.parametrize(
    "bad",
    [
        {"dup_dense": 1.5},
        {"dup_lexical": 0.0},
        {"cluster_min_size": 1},
        {"keep_budget": -1},
        {"stale_after_days": 0},
        {"hub_k": True},
    ],
)
def test_config_is_validated(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        DreamConfig(**bad)  # type: ignore[arg-type]


def test_bad_scope_and_config_are_refused(mem: Memory) -> None:
    with pytest.raises(InvalidInputError):
        mem.dream(scope="")
    with pytest.raises(InvalidInputError):
        mem.dream(scope=S, config={"keep_budget": 3})  # type: ignore[arg-type]


def test_sqlite_and_reference_store_plan_the_same_pass(open_db: Callable[..., Memory], memories: Any) -> None:
    plans = []
    for backend in ("sqlite", "reference"):
        clock = ManualClock(START)
        mem = open_db(backend, clock=clock) if backend == "sqlite" else memories.open(reference=True, clock=clock)
        seed(mem, clock)
        plans.append(mem.dream(scope=S, dry_run=True).to_dict()["actions"])
    assert plans[0] == plans[1]


def test_public_surface_is_pinned() -> None:
    import reverie.dream

    assert sorted(reverie.dream.__all__) == sorted(
        [
            "STEPS",
            "Action",
            "Cohort",
            "DreamConfig",
            "DreamReport",
            "Outcome",
            "QueueEntry",
            "apply",
            "dream",
            "plan",
            "salience",
            "scope_lease",
            "thinking_queue",
            "value_by_cohort",
        ]
    )
