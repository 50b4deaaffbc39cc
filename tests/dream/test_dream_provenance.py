"""Step 8 and ``cascade_retract``: what rests on a retracted or contradicted claim."""

from __future__ import annotations

import pytest

from reverie import ManualClock, Memory, NotFoundError

from .kit import TEA, S, count_all, ids


def test_item_whose_parent_was_forgotten_is_flagged_and_demoted(mem: Memory, clock: ManualClock) -> None:
    parent = mem.remember("The staging database runs PostgreSQL 15", scope=S).id
    child = mem.remember("Staging supports JSON path queries", scope=S, parents=[parent]).id
    other = mem.remember("Production answers JSON queries", scope=S).id
    mem.forget(parent, scope=S, reason="wrong: it runs MySQL")
    before = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S)
    assert report.ids("provenance", "applied") == {child}
    item = mem.get(child, scope=S)
    assert "stale_derived" in item.flags and item.tier == "subconscious"
    assert any("retracted (forgotten)" in a.reason for a in report.actions if a.step == "provenance")
    current = ids(mem.recall("JSON path queries", scope=S, record_use=False))
    assert other in current and child not in current
    past = mem.get(child, scope=S, as_of=before)
    assert "stale_derived" not in past.flags and past.tier == "active"


def test_item_whose_parent_is_contradicted_goes_stale(mem: Memory) -> None:
    parent = mem.remember("The office opens at 8", scope=S).id
    rival = mem.remember("The office opens at 10", scope=S).id
    mem.link(rival, parent, "contradicts", scope=S)
    child = mem.remember("Alice can start work at 8:15", scope=S, kind="derivation", parents=[parent]).id
    report = mem.dream(scope=S)
    assert child in report.ids("provenance")
    assert f"contradicted by {rival}" in next(a.reason for a in report.actions if a.step == "provenance")


def test_protected_derived_item_is_flagged_but_not_demoted(mem: Memory) -> None:
    parent = mem.remember("Build server is jenkins-01", scope=S).id
    child = mem.remember_manual("Deploys go through jenkins-01", scope=S, parents=[parent]).id
    mem.forget(parent, scope=S)
    mem.dream(scope=S)
    item = mem.get(child, scope=S)
    assert "stale_derived" in item.flags and item.tier == "active"


def test_pruned_evidence_leaves_a_gist_standing_but_a_revised_one_makes_it_stale(mem: Memory) -> None:
    tea = [mem.remember(t, scope=S).id for t in TEA]
    gist = next(o.created for o in mem.dream(scope=S).outcomes if o.created)
    assert gist is not None
    mem.forget(tea[0], scope=S, reason="pruned")
    assert gist not in mem.dream(scope=S, dry_run=True).ids("provenance")
    mem.revise(tea[1], "Alice prefers black tea in the morning", scope=S)
    report = mem.dream(scope=S, dry_run=True)
    assert gist in report.ids("provenance")
    assert "superseded" in next(a.reason for a in report.actions if a.step == "provenance")


def test_cascade_retract_forgets_the_whole_dependency_chain(mem: Memory, clock: ManualClock) -> None:
    root = mem.remember("The API base URL is api.example.com", scope=S).id
    child = mem.remember("The client config points at api.example.com", scope=S, parents=[root]).id
    grandchild = mem.remember("Integration tests hit api.example.com", scope=S, parents=[child]).id
    other = mem.remember("Alice likes green tea", scope=S).id
    rows = count_all(mem)
    before = clock.now()
    clock.advance(minutes=1)
    done = mem.cascade_retract(root, scope=S, reason="the domain moved")
    assert done == [root, child, grandchild]
    assert mem.get(other, scope=S).is_current
    assert count_all(mem) == rows
    assert not {root, child, grandchild} & set(ids(mem.recall("api.example.com", scope=S, record_use=False)))
    assert grandchild in ids(mem.recall("api.example.com", scope=S, as_of=before, record_use=False))
    events = mem.events(scope=S)
    assert any("cascade_retract from" in str(e.payload.get("reason")) for e in events)


def test_cascade_retract_of_an_unknown_id_writes_nothing(mem: Memory) -> None:
    mem.remember("Something", scope=S)
    n = len(mem.events(scope=S))
    with pytest.raises(NotFoundError):
        mem.cascade_retract("01941f29-7c00-7fff-bfff-ffffffffffff", scope=S)
    assert len(mem.events(scope=S)) == n
