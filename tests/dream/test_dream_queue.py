"""The thinking queue and value by cohort: read-only views to steer by."""

from __future__ import annotations

import pytest

from reverie import InvalidInputError, ManualClock, Memory

from .kit import S


def test_thinking_queue_ranks_importance_times_doubt(mem: Memory) -> None:
    trusted = mem.remember_manual("Alice's passport expires in May", scope=S, importance=0.9).id
    doubtful = mem.remember("Alice might move to Berlin", scope=S, source="inferred", importance=0.9).id
    minor = mem.remember("Alice wore a blue shirt", scope=S, source="inferred", importance=0.1).id
    queue = mem.thinking_queue(scope=S, k=10)
    assert [e.item.id for e in queue] == [doubtful, minor]  # manual = full authority: nothing to check
    assert queue[0].priority == pytest.approx(0.9 * (1 - 0.4))
    assert trusted not in [e.item.id for e in queue]
    assert queue[0].to_dict()["id"] == doubtful
    with pytest.raises(InvalidInputError):
        mem.thinking_queue(scope=S, k=0)


def test_value_by_cohort_groups_by_tag_and_month(mem: Memory, clock: ManualClock) -> None:
    a = mem.remember("Alice runs on Tuesdays", scope=S, tags=["sport"]).id
    mem.remember("Alice swims on Fridays", scope=S, tags=["sport", "water"])
    mem.remember("Alice reads sci-fi", scope=S)
    clock.advance(days=40)
    mem.remember("Alice started climbing", scope=S, tags=["sport"])
    mem.record_use(S, [(a, 1.0)], "sport")
    by_tag = {c.name: c for c in mem.value_by_cohort(scope=S, by="tag")}
    assert set(by_tag) == {"sport", "water", "(untagged)"}
    assert by_tag["sport"].count == 3 and by_tag["sport"].uses == 1
    assert by_tag["sport"].value_sum == pytest.approx(0.55 + 0.5 + 0.5)
    by_month = [c.to_dict() for c in mem.value_by_cohort(scope=S, by="month")]
    assert [(c["name"], c["count"]) for c in by_month] == [("2025-01", 3), ("2025-02", 1)]
    with pytest.raises(InvalidInputError):
        mem.value_by_cohort(scope=S, by="week")
