"""Items that missed write-time conflict detection are marked, checked by the pass, unmarked;
and a gist is a new item even when it quotes a member word for word."""

from __future__ import annotations

from collections.abc import Callable

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig
from reverie.dream.plan import UNCHECKED
from reverie.memory import CONFLICTS_UNCHECKED
from reverie.model import commands as cmd
from reverie.testing import dream_host

from .kit import FLAG_OFF, FLAG_ON, TEA, S, ids


def test_the_marker_names_are_one(mem: Memory) -> None:
    assert CONFLICTS_UNCHECKED == UNCHECKED


def test_items_written_without_detection_are_checked_by_the_pass_and_unmarked(
    open_db: Callable[..., Memory], clock: ManualClock
) -> None:
    mem = open_db("off", detect_conflicts=False, clock=clock)
    on = mem.remember(FLAG_ON, scope=S).id
    off = mem.remember(FLAG_OFF, scope=S).id
    assert all(UNCHECKED in mem.get(i, scope=S).flags for i in (on, off))
    assert mem.contradictions(scope=S) == []  # detection did not run at write time
    before = clock.now()
    clock.advance(minutes=1)
    planned = mem.dream(scope=S, dry_run=True)
    rechecks = [a for a in planned.actions if a.step == "recheck"]
    assert {a.item_ids[0] for a in rechecks} == {on, off}
    assert all(UNCHECKED in a.reason and "detect_conflicts off" in a.reason for a in rechecks)
    report = mem.dream(scope=S)
    assert report.count("recheck", "applied") == 2
    assert all(UNCHECKED not in mem.get(i, scope=S).flags for i in (on, off))
    (alert,) = mem.contradictions(scope=S)
    assert {alert.a.id, alert.b.id} == {on, off}
    hits = mem.recall("feature flag dark_mode", scope=S, k=5, record_use=False)
    assert {on, off} <= set(ids(hits))  # both sides stay in recall, now as a surfaced conflict
    assert UNCHECKED in mem.get(on, scope=S, as_of=before).flags  # the past still shows the marker
    assert mem.dream(scope=S, dry_run=True).count("recheck") == 0  # done once, not every pass


def test_the_recheck_cap_leaves_the_rest_marked_for_the_next_pass(open_db: Callable[..., Memory]) -> None:
    mem = open_db("cap", detect_conflicts=False)
    made = [mem.remember(f"Note number {i} about topic {i}", scope=S).id for i in range(5)]
    first = mem.dream(scope=S, config=DreamConfig(recheck_max=3))
    assert first.count("recheck", "applied") == 3 and first.stats["unchecked"] == 5
    assert any("keep their flag for the next pass" in n for n in first.notes)
    second = mem.dream(scope=S, config=DreamConfig(recheck_max=3))
    assert second.count("recheck", "applied") == 2
    assert all(UNCHECKED not in mem.get(i, scope=S).flags for i in made)


def test_written_with_detection_on_carries_no_marker(mem: Memory) -> None:
    assert UNCHECKED not in mem.remember(FLAG_ON, scope=S).flags


def test_remember_without_corroboration_makes_a_new_item(mem: Memory, clock: ManualClock) -> None:
    first = mem.remember(TEA[0], scope=S)
    again = mem.remember(TEA[0], scope=S)
    assert again.id == first.id and again.evidence_count == 2  # the default corroborates
    command = cmd.Remember(scope=S, text=TEA[0], kind="semantic", source="system", corroborate=False)
    (out,) = mem.store.execute(
        [command], now=clock.now(), new_id=dream_host(mem).new_id, vectors=dream_host(mem).embed_texts([TEA[0]])
    )
    assert out.item_id != first.id
    assert mem.get(first.id, scope=S).evidence_count == 2  # the original was not touched
    assert mem.remember(TEA[0], scope=S).id == first.id  # later corroboration still finds the oldest


def test_a_revision_written_without_detection_is_marked_and_checked(
    open_db: Callable[..., Memory], clock: ManualClock
) -> None:
    mem = open_db("revise", detect_conflicts=False, clock=clock)
    on = mem.remember(FLAG_ON, scope=S).id
    other = mem.remember("The office printer is on the third floor", scope=S).id
    mem.dream(scope=S)  # both checked, unmarked, no conflict
    assert mem.contradictions(scope=S) == []
    old = mem.get(other, scope=S)
    assert UNCHECKED not in old.flags
    revised = mem.revise(other, FLAG_OFF, scope=S, reason="moved")
    assert UNCHECKED in revised.flags and revised.version == old.version + 1  # in the revise itself
    report = mem.dream(scope=S)
    assert report.ids("recheck", "applied") == {revised.id}
    (alert,) = mem.contradictions(scope=S)
    assert {alert.a.id, alert.b.id} == {on, revised.id}


def test_a_revision_with_detection_on_carries_no_marker(mem: Memory) -> None:
    item = mem.remember("The office printer is on the third floor", scope=S)
    assert UNCHECKED not in mem.revise(item.id, "The office printer is on the fourth floor", scope=S).flags
