"""Load-bearing protection: an item other current beliefs rest on is neither forgotten by the
keep-budget nor demoted, while they rest on it — and the report says so."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reverie import InvalidInputError, ManualClock, Memory
from reverie.dream import DreamConfig
from reverie.dream.dependents import count_dependents
from reverie.dream.snapshot import read_snapshot
from reverie.testing import dream_host

from .kit import START, TEA, S, ids

BASE = "The staging cluster runs in the eu-west region"
TWIN = "The billing queue drains every night at two"
CHILD = "Staging latency to Frankfurt stays under ten ms"


def _twins(mem: Memory, clock: ManualClock, children: int = 1) -> tuple[str, str, list[str]]:
    """Two identical cold plain assertions; only the first has dependents, all critical
    enough to be protected by salience themselves, so the budget has exactly two candidates.
    ``base`` is written first: with equal keep scores the id tie-break would forget it first."""
    base = mem.remember(BASE, scope=S, kind="assertion").id
    twin = mem.remember(TWIN, scope=S, kind="assertion").id
    kids = [
        mem.remember(f"{CHILD} ({i})", scope=S, kind="policy", source="user_stated", confidence=0.95, parents=[base]).id
        for i in range(children)
    ]
    clock.advance(days=60)
    return base, twin, kids


def spared(report_dict: dict[str, object], item_id: str) -> list[dict[str, str]]:
    rows = report_dict["spared"]
    assert isinstance(rows, list)
    return [r for r in rows if r["id"] == item_id]


def test_load_bearing_cold_item_survives_the_budget_that_forgets_its_twin(mem: Memory, clock: ManualClock) -> None:
    base, twin, (child,) = _twins(mem, clock)
    budget = DreamConfig(keep_budget=2)
    # Without the rule the tie-break takes the older twin — the one a current item derives from.
    assert mem.dream(scope=S, dry_run=True, config=DreamConfig(keep_budget=2, protect_dependents=0)).ids(
        "keep_budget"
    ) == {base}
    before = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S, config=budget)
    assert report.ids("keep_budget", "applied") == {twin}
    assert base not in report.ids("tier")  # nor demoted, though stale and never used
    assert mem.get(base, scope=S).is_current and mem.get(base, scope=S).tier == "active"
    assert base in ids(mem.recall(BASE, scope=S, k=5, record_use=False))
    assert twin not in ids(mem.recall(TWIN, scope=S, k=5, record_use=False))
    assert twin in ids(mem.recall(TWIN, scope=S, k=5, as_of=before, record_use=False))
    # no cascade: the child still stands on a current parent
    assert mem.dream(scope=S, dry_run=True).count("provenance") == 0
    assert "stale_derived" not in mem.get(child, scope=S).flags


def test_protection_lapses_once_the_dependents_are_forgotten(mem: Memory, clock: ManualClock) -> None:
    base, twin, (child,) = _twins(mem, clock)
    mem.forget(child, scope=S, reason="no longer true")
    when = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=1))
    assert report.ids("keep_budget", "applied") == {base}  # ordinary again: the tie-break takes it
    assert mem.get(twin, scope=S).is_current
    assert not spared(report.to_dict(), base)
    assert base not in ids(mem.recall(BASE, scope=S, k=5, record_use=False))
    assert base in ids(mem.recall(BASE, scope=S, k=5, as_of=when, record_use=False))


def test_dry_run_names_the_dependents_as_the_reason(mem: Memory, clock: ManualClock) -> None:
    base, twin, kids = _twins(mem, clock, children=3)
    mem.link(kids[0], base, "derived_from", scope=S)  # a child that also links: still one dependent
    report = mem.dream(scope=S, dry_run=True, config=DreamConfig(keep_budget=4)).to_dict()
    (kept,) = [r for r in spared(report, base) if r["step"] == "keep_budget"]
    assert kept["reason"].startswith("load-bearing: 3 current items derive from it: kept")
    (active,) = [r for r in spared(report, base) if r["step"] == "tier"]
    assert active["reason"].startswith("load-bearing: 3 current items derive from it: stays active")
    assert report["stats"]["load_bearing"] == 1
    assert report["stats"]["spared"] == {"keep_budget": 1, "tier": 1}
    assert not spared(report, twin)


def test_edges_count_in_their_direction(mem: Memory, clock: ManualClock) -> None:
    ground = mem.remember("The lab thermometer was calibrated in March", scope=S).id
    claim = mem.remember("The lab readings this spring are accurate", scope=S).id
    source = mem.remember("The vendor datasheet lists a 0.1 degree error", scope=S).id
    derived = mem.remember("Our error bars are at least 0.1 degree", scope=S).id
    mem.link(ground, claim, "supports", scope=S)  # ground supports claim: claim rests on ground
    mem.link(derived, source, "derived_from", scope=S)  # derived rests on source
    clock.advance(days=60)
    deps = count_dependents(read_snapshot(dream_host(mem), S))
    assert set(deps) == {ground, source}
    assert deps[ground].describe() == "load-bearing: 1 current item derives from it or is supported by it"
    assert deps[source].describe() == "load-bearing: 1 current item derives from it"
    demoted = mem.dream(scope=S).ids("tier", "applied")
    assert demoted == {claim, derived}
    assert {ground, source} <= set(ids(mem.recall("lab thermometer datasheet error", scope=S, k=10)))


def test_a_threshold_of_two_needs_two_dependents(mem: Memory, clock: ManualClock) -> None:
    base, _, _ = _twins(mem, clock, children=1)
    report = mem.dream(scope=S, dry_run=True, config=DreamConfig(protect_dependents=2))
    assert base in report.ids("tier")
    with pytest.raises(InvalidInputError):
        DreamConfig(protect_dependents=-1)


def test_stale_dependents_and_gists_bear_no_weight(mem: Memory, clock: ManualClock) -> None:
    base = mem.remember(BASE, scope=S).id
    gone = mem.remember("The old region was us-east", scope=S).id
    child = mem.remember(CHILD, scope=S, parents=[base, gone]).id
    tea = [mem.remember(t, scope=S).id for t in TEA]
    mem.dream(scope=S)  # consolidates the tea cluster into a gist
    mem.forget(gone, scope=S, reason="wrong")
    mem.dream(scope=S)  # the child loses its footing: stale_derived
    assert "stale_derived" in mem.get(child, scope=S).flags
    deps = count_dependents(read_snapshot(dream_host(mem), S))
    assert base not in deps  # forgetting it now adds no damage
    assert not set(tea) & set(deps)  # a gist's parents are evidence: members stay prunable


def test_spared_list_is_deterministic(open_db: Callable[..., Memory]) -> None:
    plans = []
    for name in ("a", "b"):
        clock = ManualClock(START)
        mem = open_db(name, clock=clock)
        _twins(mem, clock, children=2)
        first = mem.dream(scope=S, dry_run=True, config=DreamConfig(keep_budget=2)).to_dict()
        assert mem.dream(scope=S, dry_run=True, config=DreamConfig(keep_budget=2)).to_dict() == first
        plans.append(first)
    assert plans[0] == plans[1] and plans[0]["spared"]
