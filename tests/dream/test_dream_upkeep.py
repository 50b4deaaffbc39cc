"""Steps 4, 5, 6 and 9: hubs, the keep-budget, tiers, importance settling.

Each test shows what the step removed from current truth (or down-weighted) is gone from
recall, and that reading the past (``as_of`` / ``get(as_of=...)``) still sees it as it was.
"""

from __future__ import annotations

import pytest

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig, salience
from reverie.recall.engine import RecallOptions

from .kit import S, count_all, ids, seed

TOPICS = [
    "tennis",
    "piano",
    "python",
    "paris",
    "sushi",
    "gardening",
    "chess",
    "cycling",
    "jazz",
    "hiking",
    "kayaking",
    "pottery",
    "astronomy",
    "baking",
    "climbing",
    "knitting",
    "surfing",
    "photography",
    "poetry",
    "robotics",
    "skiing",
    "yoga",
    "sailing",
    "painting",
    "camping",
    "fencing",
    "archery",
    "origami",
    "juggling",
    "birdwatching",
]


def _hub_scope(mem: Memory) -> str:
    for i, t in enumerate(TOPICS):
        mem.remember(f"Alice enjoys {t} on weekends number {i}", scope=S)
        mem.remember(f"Alice bought new {t} gear last month item {i}", scope=S)
    return mem.remember("Alice hobbies list: " + ", ".join(TOPICS), scope=S).id


def test_hub_is_flagged_and_down_weighted_in_recall(mem: Memory, clock: ManualClock) -> None:
    hub = _hub_scope(mem)
    before = clock.now()
    clock.advance(days=10)  # importance settles with time: a minute would settle nothing
    report = mem.dream(scope=S)
    assert report.ids("hub", "applied") == {hub}
    assert [x.item_ids for x in report.actions if x.step == "settle"].count((hub,)) == 1  # once per pass
    assert "hub" in mem.get(hub, scope=S).flags
    (hit,) = [h for h in mem.recall("Alice hobbies tennis chess", scope=S, k=20, record_use=False) if h.item.id == hub]
    assert hit.why["hub_penalty"] is True
    assert "hub" not in mem.get(hub, scope=S, as_of=before).flags


def test_no_hubs_in_a_scope_too_small_to_tell(mem: Memory) -> None:
    for t in TOPICS[:10]:
        mem.remember(f"Alice likes {t}", scope=S)
    report = mem.dream(scope=S, dry_run=True)
    assert report.count("hub") == 0 and report.stats["hub_probes"] == 0


def test_keep_budget_forgets_the_lowest_value_unprotected_surplus(mem: Memory, clock: ManualClock) -> None:
    sc = seed(mem, clock)
    mem.promote(sc.remark, scope=S, to="durable")  # a person's pin protects even a remark
    filler = [mem.remember(f"Alice mentioned {t} at lunch", scope=S, kind="remark").id for t in TOPICS[:6]]
    rows = count_all(mem)
    current = len(mem.list(scope=S, limit=1000).items)
    before = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=current - 3))
    forgotten = report.ids("keep_budget", "applied")
    assert len(forgotten) == 4  # 3 over budget, plus the gist this pass adds
    # The tea cluster's members are ranked like the rest: the gist this pass writes restates
    # them, and they are older than the filler (outside probe 6, finding 1).
    assert forgotten <= set(filler) | {sc.parent, sc.derived, *sc.tea}
    for keep in (sc.policy, sc.manual, sc.remark, sc.flag_on, sc.flag_off):
        # protected, or a side of a contradiction
        assert mem.get(keep, scope=S).is_current
    gist = next(o.created for o in report.outcomes if o.created)
    assert mem.get(gist, scope=S).is_current  # the gist stays, whichever members the budget took
    assert count_all(mem) == rows + 1  # nothing deleted; one gist added
    victim = sorted(forgotten)[0]
    text = mem.get(victim, scope=S).text
    assert victim not in ids(mem.recall(text, scope=S, k=10, record_use=False))
    assert victim in ids(mem.recall(text, scope=S, k=10, as_of=before, record_use=False))


def test_cold_critical_fact_outlives_a_busy_trivial_one(mem: Memory, clock: ManualClock) -> None:
    critical = mem.remember(
        "Rotate the signing key before it expires on the first of the month",
        scope=S,
        kind="procedural",
        source="user_stated",
        confidence=0.9,
    ).id
    chatter = [mem.remember(f"Alice chatted about {t}", scope=S, kind="remark").id for t in TOPICS[:5]]
    clock.advance(days=200)  # the procedure is never used; the chatter is used all the time
    for _ in range(10):
        mem.record_use(S, [(c, 1.0) for c in chatter], "hello")
    assert salience(mem.get(critical, scope=S)) >= DreamConfig().protect_salience
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=3))
    assert mem.get(critical, scope=S).is_current
    assert len(report.ids("keep_budget", "applied")) == 3


def test_budget_that_only_protected_items_exceed_is_reported_unmet(mem: Memory) -> None:
    for i in range(3):
        mem.remember_manual(f"Manual fact number {i} about the office", scope=S)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=1))
    assert report.count("keep_budget") == 0
    assert any("unmet" in n for n in report.notes)


def test_stale_low_use_items_are_demoted_and_recall_promotes_them_back(mem: Memory, clock: ManualClock) -> None:
    sc = seed(mem, clock)
    before = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S)
    demoted = report.ids("tier", "applied")
    assert sc.remark in demoted and sc.derived in demoted
    assert sc.parent not in demoted  # load-bearing: sc.derived rests on it
    assert not demoted & {sc.policy, sc.manual}  # protected
    assert set(sc.tea) <= demoted  # consolidated this pass: the gist stays active, the stale originals move
    assert not demoted & {sc.flag_on, sc.flag_off}  # contradiction sides stay visible
    query = "Bob said the weather was nice"
    first_pass_only = RecallOptions(k=5, self_correct=False)
    assert sc.remark not in ids(mem.recall(query, scope=S, options=first_pass_only, record_use=False))
    # ... but it is the only real answer, so the corrective pass (which widens to the subconscious
    # tier when the answer is weak) finds it
    corrected = mem.recall(query, scope=S, k=5, record_use=False)
    assert corrected[0].item.id == sc.remark and corrected[0].why["answer_from"] == "corrective"
    assert mem.get(sc.remark, scope=S, as_of=before).tier == "active"
    # recall reads the current tier even with as_of; include_history sees every tier
    assert sc.remark in ids(mem.recall(query, scope=S, k=5, include_history=True, record_use=False))
    hits = mem.recall(query, scope=S, k=5, tiers=("active", "durable", "subconscious"))
    assert sc.remark in ids(hits)
    assert mem.get(sc.remark, scope=S).tier == "active"  # used again: promoted back


def test_used_items_are_not_demoted(mem: Memory, clock: ManualClock) -> None:
    item = mem.remember("Alice parks on level three", scope=S).id
    clock.advance(days=40)
    mem.record_use(S, [(item, 1.0)], "parking")
    mem.record_use(S, [(item, 1.0)], "parking")
    clock.advance(days=40)
    assert item not in mem.dream(scope=S, dry_run=True).ids("tier")


def test_importance_settles_with_time_and_never_below_the_floor(mem: Memory, clock: ManualClock) -> None:
    a = mem.remember("Note about the printer", scope=S, source="inferred", importance=0.5).id
    b = mem.remember("Note about the stapler", scope=S, source="inferred", importance=0.12).id
    c = mem.remember("Note about the scanner", scope=S, source="inferred", importance=0.1).id
    before = clock.now()
    clock.advance(days=10)
    report = mem.dream(scope=S, config=DreamConfig(settle_half_life_days=10))
    assert [e["id"] for e in report.attention] == [a, b, c]  # importance x (1 - authority)
    settles = [x for x in report.actions if x.step == "settle"]
    assert sorted(x.item_ids[0] for x in settles) == sorted([a, b])  # c is at the floor
    assert mem.get(a, scope=S).scores.importance == pytest.approx(0.25)  # one half-life
    assert mem.get(b, scope=S).scores.importance == pytest.approx(0.1)
    assert mem.get(c, scope=S).scores.importance == pytest.approx(0.1)
    assert mem.get(a, scope=S, as_of=before).scores.importance == pytest.approx(0.5)
    hit = mem.recall("printer note", scope=S, k=3, record_use=False)[0]
    assert hit.item.id == a and hit.why["importance"] == pytest.approx(0.25)  # recall weighs it lower
    # a new item now outranks the settled ones in the queue
    new = mem.remember("Note about the new laptop", scope=S, source="inferred", importance=0.5).id
    assert mem.dream(scope=S, dry_run=True).attention[0]["id"] == new
    no_settle = DreamConfig(settle_attended=False)
    assert mem.dream(scope=S, dry_run=True, config=no_settle).count("settle") == 0


def test_consolidated_originals_do_not_settle(mem: Memory, clock: ManualClock) -> None:
    sc = seed(mem, clock)
    report = mem.dream(scope=S)
    assert not report.ids("settle") & set(sc.tea)
    assert not report.ids("settle") & {sc.flag_on, sc.flag_off}  # a contradiction still needs attention


def test_a_hub_that_stops_matching_everything_loses_its_flag(mem: Memory, clock: ManualClock) -> None:
    hub = _hub_scope(mem)
    assert mem.dream(scope=S).ids("hub", "applied") == {hub}
    for i in range(150):  # the scope grows in unrelated directions: the hub no longer matches most queries
        mem.remember(f"Workshop ledger entry {i}: lathe spindle bearing torque reading {i * 7}", scope=S)
    flagged = clock.now()
    clock.advance(minutes=1)
    planned = mem.dream(scope=S, dry_run=True)
    (unflag,) = [a for a in planned.actions if a.step == "hub" and a.params.get("remove")]
    assert unflag.item_ids == (hub,) and "no longer a universal matcher" in unflag.reason
    report = mem.dream(scope=S)
    assert report.stats["hubs_cleared"] == 1
    assert "hub" not in mem.get(hub, scope=S).flags
    (hit,) = [h for h in mem.recall("Alice hobbies tennis chess", scope=S, k=20, record_use=False) if h.item.id == hub]
    assert hit.why["hub_penalty"] is False  # recall no longer down-weights it
    assert "hub" in mem.get(hub, scope=S, as_of=flagged).flags  # the past keeps the flag it had
    events = [e for e in mem.events(scope=S, limit=100_000) if e.type == "memory.flags_set" and e.payload["id"] == hub]
    assert events[-1].payload["remove"] == ["hub"] and "no longer a universal matcher" in events[-1].payload["reason"]
