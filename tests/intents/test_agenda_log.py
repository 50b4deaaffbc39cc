"""Intents and tasks are events of the one log: rebuild equals live, doctor sees damage, purge leaves no
copy of a claim's text, the schema step upgrades an older file, and suggestions come from the thinking queue."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from agenda_kit import SCOPE

from reverie import ClosedError, Memory, ReadOnlyError
from reverie.errors import InvalidTransitionError
from reverie.model.agenda import AGENDA_EVENT_TYPES
from reverie.model.events import EVENT_TYPES


def _work(mem: Memory) -> tuple[str, str]:
    claim = mem.remember("Alice may be allergic to peanuts", scope=SCOPE, importance=0.9, authority=0.2)
    goal = mem.intents.create("confirm the allergy", scope=SCOPE, memory_ids=[claim])
    sub = mem.intents.create("ask her doctor", scope=SCOPE, parent=goal, owner="ann")
    mem.intents.pause(sub, scope=SCOPE)
    t = mem.tasks.create("ask Alice", scope=SCOPE, intent=goal, inputs=[claim])
    mem.tasks.start(t, scope=SCOPE)
    mem.tasks.fail(t, "no answer", scope=SCOPE)
    with mem.tasks.running(t, scope=SCOPE) as run:
        run.remember("Alice is allergic to peanuts", source="user_stated")
    return goal.id, t.id


def _agenda(mem: Memory) -> tuple[Any, ...]:
    return (
        [i.to_dict() for i in mem.intents.list(scope=SCOPE)],
        [t.to_dict() for t in mem.tasks.list(scope=SCOPE)],
    )


def test_every_agenda_event_type_is_a_known_event_type() -> None:
    assert set(AGENDA_EVENT_TYPES) <= set(EVENT_TYPES)


def test_rebuild_from_the_log_gives_the_live_intents_and_tasks(any_mem: Memory) -> None:
    _work(any_mem)
    live = _agenda(any_mem)
    any_mem.rebuild()
    assert _agenda(any_mem) == live
    assert any_mem.doctor().ok


def test_a_reopened_file_keeps_its_intents_and_tasks(open_mem: Any) -> None:
    mem = open_mem()
    _work(mem)
    live = _agenda(mem)
    mem.close()
    assert _agenda(open_mem()) == live


def test_doctor_reports_an_intent_row_that_disagrees_with_the_log(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    with Memory(path, embedder="hash") as mem:
        goal_id, _ = _work(mem)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE intents SET status = 'cancelled' WHERE id = ?", (goal_id,))
    conn.commit()
    conn.close()
    with Memory(path, embedder="hash") as mem:
        report = mem.doctor()
        assert not report.ok and any("intent rows disagree" in p for p in report.problems)
        mem.rebuild()
        assert mem.doctor().ok and mem.intents.get(goal_id, scope=SCOPE).status == "active"


def test_a_file_without_agenda_tables_gains_them_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("an old claim", scope=SCOPE)
    conn = sqlite3.connect(path)  # make it look like a file written before the agenda schema step
    conn.execute("DROP TABLE intents")
    conn.execute("DROP TABLE tasks")
    conn.execute("DELETE FROM settings WHERE k = 'agenda_schema'")
    conn.commit()
    conn.close()
    with Memory(path, embedder="hash") as mem:
        assert mem.intents.create("new goal", scope=SCOPE).status == "active"
        assert mem.doctor().ok


def test_a_purged_claim_leaves_no_copy_of_its_text_in_intents_or_tasks(open_mem: Any, db_path: Path) -> None:
    mem = open_mem()
    secret = "Alice's PIN is 4711"
    claim = mem.remember(secret, scope=SCOPE, importance=0.9, authority=0.1)
    accepted = mem.intents.accept(mem.intents.suggest(scope=SCOPE)[0])
    t = mem.tasks.create("check the PIN", scope=SCOPE, intent=accepted, inputs=[claim])
    mem.tasks.start(t, scope=SCOPE)
    mem.tasks.complete(t, scope=SCOPE, outputs=[claim])
    mem.forget(claim.id, scope=SCOPE, purge=True)
    # the records still name the claim by id (provenance survives), never by its words
    assert mem.intents.get(accepted, scope=SCOPE).memory_ids == (claim.id,)
    for e in mem.events(scope=SCOPE, limit=10_000):
        if e.type in AGENDA_EVENT_TYPES:
            assert "4711" not in json.dumps(e.payload)
    mem.close()
    assert b"4711" not in db_path.read_bytes()


def test_suggest_turns_important_uncertain_claims_into_intents_and_skips_covered_ones(any_mem: Memory) -> None:
    shaky = any_mem.remember("the meeting may be on Friday", scope=SCOPE, importance=0.9, authority=0.2)
    any_mem.remember("the sky is blue", scope=SCOPE, importance=0.1, authority=0.9)
    before = any_mem.events(scope=SCOPE, limit=1000)
    found = any_mem.intents.suggest(scope=SCOPE, k=1)
    assert any_mem.events(scope=SCOPE, limit=1000) == before  # a suggestion writes nothing
    assert [s.memory_ids for s in found] == [(shaky.id,)]
    assert "important (0.90) but uncertain (authority 0.20)" in found[0].reason
    assert found[0].priority == 0.72
    made = any_mem.intents.accept(found[0], owner="agent-a")
    assert (made.memory_ids, made.owner, made.priority) == ((shaky.id,), "agent-a", 0.72)
    assert all(shaky.id not in s.memory_ids for s in any_mem.intents.suggest(scope=SCOPE))


def test_two_writers_racing_the_same_move_leave_exactly_one_applied(open_mem: Any, db_path: Path) -> None:
    """The reducer reads the task inside the write transaction: a stale reader is refused, never doubled."""
    a = open_mem()
    t = a.tasks.create("only once", scope=SCOPE)
    b = open_mem(db_path)
    seen_by_a = a.tasks.get(t, scope=SCOPE)  # pending, as both read it
    b.tasks.start(t, scope=SCOPE)
    with pytest.raises(InvalidTransitionError, match="it is running"):
        a.tasks.start(seen_by_a, scope=SCOPE)
    assert a.tasks.get(t, scope=SCOPE).attempts == 1
    assert [e.type for e in a.tasks.history(t, scope=SCOPE)] == ["task.created", "task.started"]


def test_a_read_only_store_lists_intents_and_refuses_writes(open_mem: Any, db_path: Path) -> None:
    mem = open_mem()
    goal = mem.intents.create("goal", scope=SCOPE)
    mem.close()
    with Memory(db_path, embedder="hash", read_only=True) as ro:
        assert [i.id for i in ro.intents.list(scope=SCOPE)] == [goal.id]
        with pytest.raises(ReadOnlyError):
            ro.intents.pause(goal, scope=SCOPE)


def test_a_closed_memory_refuses_agenda_calls(any_mem: Memory) -> None:
    any_mem.close()
    with pytest.raises(ClosedError):
        any_mem.intents.list(scope=SCOPE)
    with pytest.raises(ClosedError):
        any_mem.intents.create("x", scope=SCOPE)
    with pytest.raises(ClosedError):
        any_mem.tasks.list(scope=SCOPE)


def test_listing_by_intent_agent_parent_or_owner_seeks_an_index_not_the_scope(tmp_path: Path) -> None:
    """Regression: without ANALYZE statistics SQLite scanned the scope's primary key for
    ``tasks WHERE intent = ?``, reading every task of the scope on each list."""
    from reverie.model.agenda import IntentQuery, TaskQuery
    from reverie.store.sqlite import agenda

    path = tmp_path / "plans.db"
    with Memory(path, embedder="hash") as mem:
        mem.intents.create("g", scope=SCOPE)
    conn = sqlite3.connect(path)
    traced: list[str] = []
    conn.set_trace_callback(traced.append)
    agenda.tasks(conn, SCOPE, TaskQuery(intent="i"), 10)
    agenda.tasks(conn, SCOPE, TaskQuery(agent="a"), 10)
    agenda.tasks(conn, SCOPE, TaskQuery(parent="p", statuses=("failed",)), 10)
    agenda.intents(conn, SCOPE, IntentQuery(owner="o"), 10)
    conn.set_trace_callback(None)
    plans = [" ".join(str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql)) for sql in traced]
    conn.close()
    assert len(plans) == 4
    assert all("USING INDEX" in p and "_by_" in p for p in plans), plans
