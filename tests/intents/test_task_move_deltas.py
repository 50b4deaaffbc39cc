"""Promise: a task's moves add to the log only what each changed, and older logs replay as they did.

Every task move's event used to carry the whole task, failures included, so each event was
larger than the one before and 1,000 fail/retry pairs of one task wrote ~110 MB of log (the sum
grows with the square of the moves; ``bench/task_move_bytes.py`` measures it). A move now
carries a delta (``{"task": {...what changed...}, "delta": true}``) that the projection applies
to the task as it stood. Logs written before that (``data/old_task_log.json``: a log the earlier
code wrote, moves carrying the whole task, with the tasks it read back) must replay to the same
tasks on every backend — projected by a migration, rebuilt, and continued by new moves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agenda_kit import SCOPE, migrated

from reverie import InvalidTransitionError, LimitExceededError, Limits, Memory
from reverie.model.events import Event
from reverie.store.reference import ReferenceStore

OLD_LOG = json.loads((Path(__file__).parent / "data" / "old_task_log.json").read_text(encoding="utf-8"))


def _payload_bytes(event: Event) -> int:
    return len(json.dumps(event.payload, sort_keys=True))


def test_a_task_move_event_carries_only_what_the_move_changed(any_mem: Memory) -> None:
    claim = any_mem.remember("the answer is in the archive", scope=SCOPE)
    t = any_mem.tasks.create("look it up", scope=SCOPE, inputs=[claim], agent="agent-a")
    any_mem.tasks.start(t, scope=SCOPE)
    for i in range(30):
        any_mem.tasks.fail(t, f"timed out, try {i:02d}", scope=SCOPE)
        any_mem.tasks.retry(t, scope=SCOPE)
    done = any_mem.tasks.complete(t, scope=SCOPE, outputs=[claim])
    assert len(done.failures) == 30 and done.attempts == 31 and done.outputs == (claim.id,)
    history = any_mem.tasks.history(t, scope=SCOPE)
    failed = [e for e in history if e.type == "task.failed"]
    # the 30th failure's event is no larger than the first's (a version number may gain a digit)
    assert _payload_bytes(failed[-1]) <= _payload_bytes(failed[0]) + 4
    assert failed[-1].payload == {
        "delta": True,
        "task": {
            "id": t.id,
            "scope": SCOPE,
            "status": "failed",
            "reason": "timed out, try 29",
            "version": 61,
            "updated_at": failed[-1].payload["task"]["updated_at"],
            "failure": {"attempt": 30, "reason": "timed out, try 29", "at": failed[-1].payload["task"]["updated_at"]},
        },
    }
    completed = history[-1].payload["task"]
    assert completed["outputs"] == [claim.id] and "failures" not in completed and "action" not in completed
    before = any_mem.tasks.get(t, scope=SCOPE)
    any_mem.rebuild()
    assert any_mem.tasks.get(t, scope=SCOPE) == before == done


def _old_log_in_reference_store(mem: Memory, store: ReferenceStore) -> None:
    for d in OLD_LOG["events"]:
        store.append_event(Event.from_dict(d))
    mem.rebuild()


def _tasks(mem: Memory) -> list[dict[str, Any]]:
    return [t.to_dict() for t in mem.tasks.list(scope=SCOPE)]


def test_an_old_log_of_whole_task_events_replays_identically(memories: Any, store_url: str) -> None:
    ref = ReferenceStore()
    old = memories.open(reference=True, store=ref)
    _old_log_in_reference_store(old, ref)
    assert _tasks(old) == OLD_LOG["tasks"]
    assert old.doctor().ok

    mem = migrated(memories, ref, store_url)
    assert _tasks(mem) == OLD_LOG["tasks"]
    mem.rebuild()
    assert _tasks(mem) == OLD_LOG["tasks"]
    assert mem.doctor().ok

    # the old log goes on with new moves (deltas after whole records), and still rebuilds the same
    waiting = next(t for t in OLD_LOG["tasks"] if t["status"] == "failed")
    mem.tasks.retry(waiting["id"], scope=SCOPE, reason="consent given")
    live = mem.tasks.complete(waiting["id"], scope=SCOPE, reason="the doctor confirmed")
    assert [(f.attempt, f.reason) for f in live.failures] == [(1, "no consent yet")]
    assert (live.attempts, live.version, live.action) == (2, 5, waiting["action"])
    now = _tasks(mem)
    mem.rebuild()
    assert _tasks(mem) == now and mem.tasks.get(waiting["id"], scope=SCOPE) == live
    assert mem.doctor().ok
    types = [e.type for e in mem.tasks.history(waiting["id"], scope=SCOPE)]
    assert types == ["task.created", "task.started", "task.failed", "task.retried", "task.completed"]


def test_a_live_task_or_intent_makes_at_most_max_record_moves_moves(
    memories: Any, db_path: Path, snapshot: Any
) -> None:
    """The slice bound holds live too: the move past it is refused ``limit_exceeded`` and changes
    nothing, and a record at the bound exports and imports as a slice."""
    mem = memories.open(db_path, limits=Limits(max_record_moves=5))
    t = mem.tasks.create("look it up", scope=SCOPE)
    mem.tasks.start(t, scope=SCOPE)
    for _ in range(2):
        mem.tasks.fail(t, "timed out", scope=SCOPE)
        mem.tasks.retry(t, scope=SCOPE)
    assert mem.tasks.get(t, scope=SCOPE).version == 6  # created + 5 moves: at the bound
    goal = mem.intents.create("confirm", scope=SCOPE)
    for move in ("pause", "resume", "pause", "resume", "pause"):
        mem.intents.transition(goal, move, scope=SCOPE)
    before = snapshot(mem)
    with pytest.raises(LimitExceededError) as err:
        mem.tasks.fail(t, "timed out again", scope=SCOPE)
    assert "has made 5 moves" in err.value.message and "max_record_moves is 5" in err.value.message
    assert "create a new task" in err.value.message
    with pytest.raises(LimitExceededError, match="max_record_moves"):
        mem.intents.resume(goal, scope=SCOPE)
    with pytest.raises(InvalidTransitionError):  # a move the status forbids says so first
        mem.tasks.retry(t, scope=SCOPE)
    assert snapshot(mem) == before
    sl = mem.export_slice(scope=SCOPE, include_intents=True, include_tasks=True)
    report = mem.import_slice(sl, scope="user:copy")
    assert len(report.records_created) == 2
    assert mem.tasks.list(scope="user:copy")[0].attempts == 3
