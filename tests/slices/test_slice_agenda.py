"""Intents and tasks in slices: what an export carries, how an import replays them (one transaction,
statuses by allowed moves, references remapped or reported), the sandbox pattern with a task run
in the sandbox coming home, and bad sections refused with nothing written."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory
from reverie.errors import InvalidInputError, InvalidTransitionError, SliceConflictError
from reverie.slice import VERSION

MAIN, TASK, COPY = "team:acme", "task:rate-limit", "team:copy"


def _state(mem: Memory, scope: str) -> list[dict[str, Any]]:
    return [e.to_dict() for e in mem.events(scope=scope)]


def _agenda(mem: Memory) -> tuple[Any, Any, Any, Any]:
    """An intent with a sub-intent (paused), tasks: one completed, one failed twice then running, a subtask."""
    a = mem.remember("The API rate limit is 100 requests per minute", scope=MAIN)
    b = mem.remember("Clients retry on HTTP 429", scope=MAIN)
    goal = mem.intents.create("Find the real rate limit", scope=MAIN, owner="lead", priority=0.8, memory_ids=[a.id])
    sub = mem.intents.create("Ask the vendor", scope=MAIN, parent=goal, reason="docs are old")
    mem.intents.pause(sub, scope=MAIN, reason="vendor on holiday")
    probe = mem.tasks.create("Probe the API", scope=MAIN, intent=goal, agent="sub-1", inputs=[a.id])
    mem.tasks.start(probe, scope=MAIN)
    mem.tasks.fail(probe, "timeout", scope=MAIN)
    mem.tasks.retry(probe, scope=MAIN)
    mem.tasks.fail(probe, "blocked by WAF", scope=MAIN)
    mem.tasks.retry(probe, scope=MAIN)
    read = mem.tasks.create("Read the client logs", scope=MAIN, intent=goal, parent=probe, inputs=[b.id])
    mem.tasks.start(read, scope=MAIN)
    mem.tasks.complete(read, scope=MAIN, outputs=[b.id])
    return a, b, goal, probe


def test_an_export_carries_the_records_about_its_claims_with_sub_records_moves_and_failures(mem: Memory) -> None:
    a, b, _, _ = _agenda(mem)
    sl = mem.export_slice(scope=MAIN, memory_ids=[a.id], include_intents=True, include_tasks=True)
    assert sl.intents is not None and sl.tasks is not None
    assert [i.label for i in sl.intents] == ["Find the real rate limit", "Ask the vendor"]
    assert [i.status for i in sl.intents] == ["active", "paused"]
    assert [(m.move, m.reason) for m in sl.intents[1].moves] == [("pause", "vendor on holiday")]
    assert sl.intents[1].reason == "docs are old"
    by_action = {t.action: t for t in sl.tasks}
    assert by_action["Probe the API"].failures == ("timeout", "blocked by WAF")
    assert by_action["Probe the API"].status == "running"
    assert by_action["Read the client logs"].status == "completed"  # a subtask, and a task of the intent
    assert by_action["Read the client logs"].outputs == (b.id,)  # outside the slice: named by origin
    only_intents = mem.export_slice(scope=MAIN, memory_ids=[a.id], include_intents=True)
    assert only_intents.tasks is None and only_intents.intents is not None and len(only_intents.intents) == 2
    assert mem.export_slice(scope=MAIN, memory_ids=[a.id]).to_dict()["sections"] == {}


def test_the_whole_scope_carries_every_open_record_and_what_it_needs(mem: Memory) -> None:
    _agenda(mem)
    done = mem.intents.create("Old goal", scope=MAIN)
    mem.intents.complete(done, scope=MAIN)
    sl = mem.export_slice(scope=MAIN, include_intents=True, include_tasks=True)
    assert sl.intents is not None and sl.tasks is not None
    assert "Old goal" not in [i.label for i in sl.intents]
    assert {t.action for t in sl.tasks} == {"Probe the API", "Read the client logs"}  # completed subtask too


def test_an_import_replays_statuses_remaps_ids_and_writes_in_one_transaction(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    src = open_mem(tmp_path / "a.db")
    a, b, goal, probe = _agenda(src)
    sl = src.export_slice(scope=MAIN, memory_ids=[a.id, b.id], include_intents=True, include_tasks=True)
    dst = open_mem(tmp_path / "b.db")
    report = dst.import_slice(sl.to_json(), scope=COPY)
    assert len(report.records_created) == 4 and not report.dropped_refs
    new_goal = dst.intents.get(report.intents[goal.id], scope=COPY)
    assert new_goal.memory_ids == (report.ids[a.id],) and new_goal.origin == goal.id
    (sub,) = dst.intents.children(new_goal, scope=COPY)
    assert sub.status == "paused" and sub.reason == "vendor on holiday"
    new_probe = dst.tasks.get(report.tasks[probe.id], scope=COPY)
    assert new_probe.status == "running" and new_probe.attempts == 3
    assert [f.reason for f in new_probe.failures] == ["timeout", "blocked by WAF"]
    assert new_probe.intent == new_goal.id and new_probe.inputs == (report.ids[a.id],)
    (read,) = dst.tasks.subtasks(new_probe, scope=COPY)
    assert read.status == "completed" and read.outputs == (report.ids[b.id],)
    assert [e.type for e in dst.tasks.history(new_probe, scope=COPY)] == [
        "task.created", "task.started", "task.failed", "task.retried", "task.failed", "task.retried",
    ]  # fmt: skip
    # Importing again: every record is already here, nothing is written.
    before = _state(dst, COPY)
    again = dst.import_slice(sl.to_json(), scope=COPY)
    assert not again.records_created and len(again.records_skipped) == 4
    assert _state(dst, COPY) == before
    assert dst.doctor().ok


def test_a_reference_to_a_claim_in_neither_the_slice_nor_the_scope_is_dropped_and_reported(mem: Memory) -> None:
    a, b, _, _ = _agenda(mem)
    sl = mem.export_slice(scope=MAIN, memory_ids=[a.id], include_intents=True, include_tasks=True)
    report = mem.import_slice(sl, scope=COPY)  # b is not in the slice and COPY holds no copy of it
    dropped = {(d["field"], d["memory"]) for d in report.dropped_refs}
    assert dropped == {("inputs", b.id), ("outputs", b.id)}
    read = next(t for t in mem.tasks.list(scope=COPY) if t.action == "Read the client logs")
    assert read.inputs == () and read.outputs == () and read.status == "completed"


def test_sandbox_a_task_run_in_the_sandbox_comes_home_completed_with_its_outputs(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    main = open_mem(tmp_path / "main.db")
    limit = main.remember_manual("The API rate limit is 100 requests per minute", scope=MAIN)
    goal = main.intents.create("Find the real rate limit", scope=MAIN, memory_ids=[limit.id])
    job = main.tasks.create("Measure the limit", scope=MAIN, intent=goal, inputs=[limit.id])
    handed = main.export_slice(scope=MAIN, memory_ids=[limit.id], include_intents=True, include_tasks=True)

    with Memory(tmp_path / "sandbox.db", embedder="hash", clock=main.clock, seed=7) as sandbox:
        got = sandbox.import_slice(handed.to_json(), scope=TASK)
        with sandbox.tasks.running(got.tasks[job.id], scope=TASK) as run:
            run.remember("The first probe was throttled at 80 requests", source="observed")
            run.fail("throttled by the WAF before the limit")
        with sandbox.tasks.running(got.tasks[job.id], scope=TASK) as run:
            found = run.remember("The API rate limit is 150 requests per minute", source="observed")
        back = sandbox.export_slice(scope=TASK, memory_ids=[found.id], include_intents=True, include_tasks=True)

    report = main.import_slice(back.to_json(), scope=MAIN)
    there = got.tasks[job.id]
    assert report.tasks[there] == job.id and report.intents[got.intents[goal.id]] == goal.id  # recognised
    assert report.records_advanced == [{"id": there, "target": job.id, "moves": 4}]
    assert report.records_skipped == [{"id": got.intents[goal.id], "target": goal.id, "reason": "already here"}]
    home = main.tasks.get(job, scope=MAIN)
    assert home.status == "completed" and home.outputs == (report.ids[found.id],)
    assert [f.reason for f in home.failures] == ["throttled by the WAF before the limit"]
    assert main.get(home.outputs[0], scope=MAIN).text == "The API rate limit is 150 requests per minute"
    assert len(main.tasks.list(scope=MAIN)) == 1 and len(main.intents.list(scope=MAIN)) == 1
    assert main.doctor().ok


def test_a_record_held_here_with_another_history_is_a_conflict_decided_by_on_conflict(mem: Memory) -> None:
    goal = mem.intents.create("Ship it", scope=MAIN)
    sl = mem.export_slice(scope=MAIN, include_intents=True).to_dict()
    mem.intents.pause(goal, scope=MAIN)
    mem.intents.resume(goal, scope=MAIN)
    sl["sections"]["intents"][0].update(status="cancelled", moves=[{"move": "cancel", "reason": "", "at": None}])
    before = _state(mem, MAIN)
    with pytest.raises(SliceConflictError):
        mem.import_slice(sl, scope=MAIN)
    assert _state(mem, MAIN) == before
    kept = mem.import_slice(sl, scope=MAIN, on_conflict="skip")
    assert kept.intents == {goal.id: goal.id} and _state(mem, MAIN) == before
    reid = mem.import_slice(sl, scope=MAIN, on_conflict="reid")
    theirs = mem.intents.get(reid.intents[goal.id], scope=MAIN)
    assert theirs.id != goal.id and theirs.status == "cancelled" and theirs.origin is None
    assert mem.intents.get(goal, scope=MAIN).status == "active"


def _good(mem: Memory) -> dict[str, Any]:
    a, _, _, _ = _agenda(mem)
    return mem.export_slice(scope=MAIN, memory_ids=[a.id], include_intents=True, include_tasks=True).to_dict()


def _orphan_task(d: dict[str, Any]) -> None:
    d["sections"]["intents"] = [i for i in d["sections"]["intents"] if i["parent"] is not None]
    for i in d["sections"]["intents"]:
        i["parent"] = None


def _from_final(d: dict[str, Any]) -> None:
    done = next(t for t in d["sections"]["tasks"] if t["status"] == "completed")
    done["moves"].append({"move": "retry", "reason": "again", "at": None})


def _wrong_status(d: dict[str, Any]) -> None:
    d["sections"]["intents"][0]["status"] = "completed"


def _future(d: dict[str, Any]) -> None:
    d["version"] = VERSION + 1


def _reason_less_failure(d: dict[str, Any]) -> None:
    probe = next(t for t in d["sections"]["tasks"] if t["moves"])
    probe["moves"][1]["reason"] = " "


def _twice(d: dict[str, Any]) -> None:
    d["sections"]["tasks"].append(copy.deepcopy(d["sections"]["tasks"][0]))


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (_orphan_task, "which is in no section of the slice"),
        (_from_final, "a final status: nothing moves it on"),
        (_wrong_status, "but its moves lead to 'active'"),
        (_future, "newer than this reverie reads"),
        (_reason_less_failure, "a failed attempt carries its reason"),
        (_twice, "appears twice"),
    ],
)
def test_a_bad_agenda_section_gets_a_clear_error_and_writes_nothing(
    mem: Memory, spoil: Callable[[dict[str, Any]], None], words: str
) -> None:
    data = _good(mem)
    spoil(data)
    before = _state(mem, COPY)
    for given in (data, json.dumps(data)):
        with pytest.raises(InvalidInputError) as info:
            mem.import_slice(given, scope=COPY)
        assert info.value.code == "invalid_slice" and words in info.value.message, info.value.message
    assert _state(mem, COPY) == before


def test_a_refusal_while_replaying_rolls_back_the_claims_too(mem: Memory) -> None:
    """A sub-intent under an intent already final here: the reducer refuses inside the transaction."""
    goal = mem.intents.create("Ship it", scope=MAIN)
    sub = mem.intents.create("Write the notes", scope=MAIN, parent=goal)
    claim = mem.remember("The notes are half done", scope=MAIN)
    sl = mem.export_slice(scope=MAIN, memory_ids=[claim.id], include_intents=True).to_dict()
    assert sl["sections"]["intents"] == []
    full = mem.export_slice(scope=MAIN, include_intents=True).to_dict()
    mem.intents.complete(goal, scope=MAIN)
    # A new sub-intent under the (now completed) goal, about a claim new to the target.
    extra = copy.deepcopy(next(i for i in full["sections"]["intents"] if i["id"] == sub.id))
    extra.update(id="01900000-0000-7000-8000-0000000000ab", origin_id="01900000-0000-7000-8000-0000000000ab")
    full["sections"]["intents"].append(extra)
    full["items"] = [dict(full["items"][0], id="01900000-0000-7000-8000-0000000000ac", text="A new claim")]
    full["items"][0]["origin_id"] = full["items"][0]["id"]
    before = _state(mem, MAIN)
    with pytest.raises(InvalidTransitionError, match=r"slice intent .* cannot add a sub-intent"):
        mem.import_slice(full, scope=MAIN)
    assert _state(mem, MAIN) == before
