"""Patterns as a dream-pass product, read into recall — on a real SQLite file, through ``Memory``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from pattern_streams import SPAN_DAYS, START, stream

from reverie import ManualClock, Memory, Q
from reverie.dream import DreamConfig
from reverie.dream.patterns import Event
from reverie.model.item import Item

S = "team:ops"


@pytest.fixture()
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "p.db", embedder="hash", clock=ManualClock(START), seed=0, durability="fast") as m:
        yield m


def _write(mem: Memory, events: list[Event]) -> dict[str, Item]:
    """Each event remembered at its own time (``recorded_at``), as an agent would log it."""
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    out = {}
    for e in sorted(events, key=lambda e: (e.at, e.id)):
        clock.set(e.at)
        out[e.id] = mem.remember(e.text, scope=S, kind="episodic", source="observed")
    clock.set(START + timedelta(days=SPAN_DAYS + 1))
    return out


def _patterns(mem: Memory) -> list[Item]:
    """The scope's current pattern items."""
    return [p for p in mem.list(scope=S, where=Q.kind("pattern") & Q.status("live"), limit=100).items if p.is_current]


def _members(mem: Memory, pattern: Item) -> set[str]:
    return {e.dst for e in mem.edges(pattern.id, scope=S) if e.type == "derived_from" and e.src == pattern.id}


def test_dream_writes_each_pattern_with_derived_from_edges_to_its_support_set(mem: Memory) -> None:
    events, planted = stream(3, ("weekday", "interval"), noise_kinds=6)
    ids = _write(mem, events)
    report = mem.dream(scope=S)
    assert report.stats["patterns"] == 2
    pats = _patterns(mem)
    assert sorted((p.meta["pattern"]["rule"], p.meta["pattern"]["value"]) for p in pats) == sorted(
        (x.rule, x.value) for x in planted
    )
    for p in pats:
        meta = p.meta["pattern"]
        assert p.source == "system" and p.meta["dream"] == "pattern" and p.kind == "pattern"
        assert len(_members(mem, p)) == meta["support"] >= 4
        assert meta["strength"] == round(meta["support"] / meta["expected"], 3) > 1
        assert _members(mem, p) <= {it.id for it in ids.values()}


def test_second_pass_over_an_unchanged_scope_plans_no_pattern_action(mem: Memory) -> None:
    events, _ = stream(5, ("hour",), noise_kinds=4)
    _write(mem, events)
    mem.dream(scope=S)
    before = [(p.id, p.version) for p in _patterns(mem)]
    again = mem.dream(scope=S)
    assert again.count(step="pattern") == 0 and again.stats["patterns_unchanged"] == 1
    assert [(p.id, p.version) for p in _patterns(mem)] == before


def test_a_new_member_supersedes_the_pattern_instead_of_adding_a_second(mem: Memory) -> None:
    events, _ = stream(7, ("weekday",), noise_kinds=0)
    _write(mem, events)
    mem.dream(scope=S)
    (old,) = _patterns(mem)
    last = max(e.at for e in events)
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    weekday = old.meta["pattern"]["value"]
    # The next pattern weekday after the pass just run: record time never goes backwards (a clock
    # set before the last recorded event is clamped to it), so the new member is logged after it.
    at = max(last, clock.now()) + timedelta(days=1)
    while at.strftime("%A").lower() != weekday:
        at += timedelta(days=1)
    clock.set(at)
    text = events[0].text.split(" (run")[0]
    fresh = mem.remember(f"{text} (run 99999)", scope=S, kind="episodic", source="observed")
    clock.advance(days=1)
    mem.dream(scope=S)
    (new,) = _patterns(mem)
    assert new.id != old.id and new.meta["pattern"]["key"] == old.meta["pattern"]["key"]
    assert fresh.id in _members(mem, new)
    gone = mem.get(old.id, scope=S)
    assert gone is not None and gone.status == "superseded"


def test_a_pattern_that_no_longer_holds_is_forgotten(mem: Memory) -> None:
    events, _ = stream(9, ("month_end",), noise_kinds=0)
    ids = _write(mem, events)
    mem.dream(scope=S)
    (p,) = _patterns(mem)
    for item in list(ids.values())[:4]:
        mem.forget(item.id, scope=S, reason="logged by mistake")
    report = mem.dream(scope=S)
    assert report.ids("pattern", status="applied") == {p.id}
    assert _patterns(mem) == []


def test_dry_run_plans_patterns_and_writes_none(mem: Memory) -> None:
    events, _ = stream(11, ("drift",), noise_kinds=3)
    _write(mem, events)
    plan = mem.dream(scope=S, dry_run=True)
    assert [a.op for a in plan.actions if a.step == "pattern"] == ["remember_pattern"]
    assert _patterns(mem) == []


def test_patterns_off_in_the_config_plans_none(mem: Memory) -> None:
    events, _ = stream(11, ("weekday",), noise_kinds=3)
    _write(mem, events)
    assert mem.dream(scope=S, config=DreamConfig(patterns=False)).count(step="pattern") == 0
    assert _patterns(mem) == []


def test_a_when_question_surfaces_the_pattern_first_and_its_members_follow(mem: Memory) -> None:
    events, planted = stream(13, ("weekday",), noise_kinds=8)
    _write(mem, events)
    mem.dream(scope=S)
    (p,) = _patterns(mem)
    subject = planted[0].kind  # e.g. ("fail", "deploy", "job")
    words = " ".join(w for w in subject if w != "job")
    hits = mem.recall(f"When does the {words} job usually happen?", scope=S, k=5)
    assert hits[0].item.id == p.id
    members = _members(mem, p)
    assert [h.item.id in members for h in hits[1:4]] == [True, True, True]
    assert all(h.why.get("pattern_member_of") == p.id for h in hits[1:4] if "pattern_member_of" in h.why)


def test_a_question_not_about_time_does_not_put_the_pattern_first(mem: Memory) -> None:
    events, _ = stream(13, ("weekday",), noise_kinds=8)
    _write(mem, events)
    mem.dream(scope=S)
    (p,) = _patterns(mem)
    hits = mem.recall("lunch went fine", scope=S, k=5)
    assert hits and hits[0].item.id != p.id
    assert all("pattern" not in h.why for h in hits)


def test_recall_before_any_pass_is_unchanged_by_the_hook(mem: Memory) -> None:
    events, _ = stream(13, ("weekday",), noise_kinds=2)
    _write(mem, events)
    hits = mem.recall("When does it usually happen?", scope=S, k=5, record_use=False)
    assert all("pattern" not in h.why and "pattern_member_of" not in h.why for h in hits)


def test_pattern_members_are_evidence_not_load_bearing_for_the_keep_budget(mem: Memory) -> None:
    """Regression: a pattern's derived_from edges counted as dependents, so every event of a
    support set was protected from the keep budget (gists were already excluded)."""
    events, _ = stream(17, ("weekday",), noise_kinds=0)
    _write(mem, events)
    mem.dream(scope=S)
    (p,) = _patterns(mem)
    members = _members(mem, p)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=3, protect_salience=1.0))
    spared = {s["id"] for s in report.spared if "load-bearing" in s["reason"]}
    assert spared & members == set()
    assert report.ids("keep_budget") & members


def test_a_back_filled_log_recalls_its_pattern_with_the_events_the_same_pass_demoted(mem: Memory) -> None:
    """Outside probe 2, finding 2: twelve Monday failures logged at once (``valid_from`` each Monday),
    then one pass twelve weeks on. The pass finds the pattern and also folds the look-alike events
    into a gist, demoting them to the subconscious tier; "when does the deploy fail?" then got the
    pattern and none of the failures behind it. A pattern's members follow it from that tier."""
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    monday = START + timedelta(days=(7 - START.weekday()) % 7)
    for w in range(12):
        mem.remember(
            f"The deploy failed at 09:0{w % 10}, build {4400 + w}",
            scope=S,
            kind="observation",
            valid_from=monday + timedelta(weeks=w),
        )
    clock.set(monday + timedelta(weeks=12))
    mem.dream(scope=S)
    hits = mem.recall("when does the deploy fail?", scope=S, k=8)
    assert any(h.item.kind == "pattern" for h in hits)
    members = [h for h in hits if h.why.get("pattern_member_of")]
    assert members, [(h.item.kind, h.item.tier, h.item.text) for h in hits]
    assert all("deploy failed" in h.item.text and h.item.is_current for h in members)
