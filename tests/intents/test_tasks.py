"""``mem.tasks``: the status machine, subtasks, failures kept, claims tagged by ``running``, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from agenda_kit import OTHER, SCOPE

from reverie import InvalidInputError, Memory, NotFoundError, Q
from reverie.errors import InvalidTransitionError


def test_start_complete_records_inputs_outputs_and_one_attempt(any_mem: Memory) -> None:
    seen = any_mem.remember("Alice may be allergic to peanuts", scope=SCOPE)
    goal = any_mem.intents.create("confirm the allergy", scope=SCOPE)
    t = any_mem.tasks.create("ask Alice", scope=SCOPE, intent=goal, agent="agent-a", inputs=[seen])
    assert (t.status, t.intent, t.agent, t.inputs, t.attempts) == ("pending", goal.id, "agent-a", (seen.id,), 0)
    assert any_mem.tasks.start(t, scope=SCOPE).status == "running"
    answer = any_mem.remember("Alice is allergic to peanuts", scope=SCOPE, source="user_stated")
    done = any_mem.tasks.complete(t, scope=SCOPE, outputs=[answer.id])
    assert (done.status, done.outputs, done.attempts) == ("completed", (answer.id,), 1)


def test_a_failed_approach_stays_recorded_through_a_retry(any_mem: Memory) -> None:
    t = any_mem.tasks.create("look it up", scope=SCOPE)
    any_mem.tasks.start(t, scope=SCOPE)
    any_mem.tasks.fail(t, "the wiki page was empty", scope=SCOPE)
    again = any_mem.tasks.retry(t, scope=SCOPE)
    assert (again.status, again.attempts) == ("running", 2)
    done = any_mem.tasks.complete(t, scope=SCOPE)
    assert [(f.attempt, f.reason) for f in done.failures] == [(1, "the wiki page was empty")]
    assert [x.id for x in any_mem.tasks.list(scope=SCOPE, failed=True)] == [t.id]
    types = [e.type for e in any_mem.tasks.history(t, scope=SCOPE)]
    assert types == ["task.created", "task.started", "task.failed", "task.retried", "task.completed"]


@pytest.mark.parametrize(
    ("moves", "refused", "status", "allowed"),
    [
        ([], "complete", "pending", "you can start"),
        ([], "retry", "pending", "you can start"),
        (["start"], "start", "running", "you can complete, fail"),
        (["start", "complete"], "retry", "completed", "nothing moves it on"),
        (["start", "complete"], "fail", "completed", "nothing moves it on"),
    ],
)
def test_an_invalid_task_move_names_the_status_and_allowed_moves_and_changes_nothing(
    any_mem: Memory, snapshot: Any, moves: list[str], refused: str, status: str, allowed: str
) -> None:
    t = any_mem.tasks.create("do it", scope=SCOPE)
    for move in moves:
        any_mem.tasks.transition(t, move, scope=SCOPE)
    before = snapshot(any_mem)
    with pytest.raises(InvalidTransitionError) as err:
        any_mem.tasks.transition(t, refused, scope=SCOPE, reason="why not")
    assert f"it is {status}" in err.value.message and allowed in err.value.message
    assert snapshot(any_mem) == before


def test_fail_without_a_reason_is_refused(any_mem: Memory, snapshot: Any) -> None:
    t = any_mem.tasks.create("do it", scope=SCOPE)
    any_mem.tasks.start(t, scope=SCOPE)
    before = snapshot(any_mem)
    with pytest.raises(InvalidInputError, match="needs a reason"):
        any_mem.tasks.fail(t, "  ", scope=SCOPE)
    assert snapshot(any_mem) == before


def test_a_task_for_an_intent_in_another_scope_is_refused(any_mem: Memory, snapshot: Any) -> None:
    theirs = any_mem.intents.create("Bob's goal", scope=OTHER)
    before = snapshot(any_mem)
    with pytest.raises(NotFoundError, match=f"no intent {theirs.id} in scope 'user:alice'"):
        any_mem.tasks.create("help Bob", scope=SCOPE, intent=theirs)
    assert snapshot(any_mem) == before
    assert any_mem.tasks.list(scope=OTHER) == []


def test_a_task_for_a_finished_intent_is_refused(any_mem: Memory, snapshot: Any) -> None:
    goal = any_mem.intents.create("goal", scope=SCOPE)
    any_mem.intents.complete(goal, scope=SCOPE)
    before = snapshot(any_mem)
    with pytest.raises(InvalidTransitionError, match="completed"):
        any_mem.tasks.create("more work", scope=SCOPE, intent=goal)
    assert snapshot(any_mem) == before


def test_outputs_from_another_scope_are_refused(any_mem: Memory, snapshot: Any) -> None:
    theirs = any_mem.remember("Bob's claim", scope=OTHER)
    t = any_mem.tasks.create("do it", scope=SCOPE)
    any_mem.tasks.start(t, scope=SCOPE)
    before = snapshot(any_mem)
    with pytest.raises(NotFoundError, match="outputs"):
        any_mem.tasks.complete(t, scope=SCOPE, outputs=[theirs])
    assert snapshot(any_mem) == before


def test_subtasks_inherit_their_parents_intent(any_mem: Memory) -> None:
    goal = any_mem.intents.create("goal", scope=SCOPE)
    top = any_mem.tasks.create("research", scope=SCOPE, intent=goal)
    sub = any_mem.tasks.create("read the paper", scope=SCOPE, parent=top)
    assert sub.intent == goal.id and sub.parent == top.id
    assert [t.id for t in any_mem.tasks.subtasks(top, scope=SCOPE)] == [sub.id]


def test_list_filters_by_intent_agent_status_and_memory(any_mem: Memory) -> None:
    claim = any_mem.remember("Alice likes tea", scope=SCOPE)
    goal = any_mem.intents.create("goal", scope=SCOPE)
    a = any_mem.tasks.create("a", scope=SCOPE, intent=goal, agent="ann", inputs=[claim])
    b = any_mem.tasks.create("b", scope=SCOPE, agent="bo")
    any_mem.tasks.start(b, scope=SCOPE)
    ids = lambda found: [t.id for t in found]  # noqa: E731
    assert ids(any_mem.tasks.list(scope=SCOPE)) == [a.id, b.id]
    assert ids(any_mem.tasks.list(scope=SCOPE, intent=goal)) == [a.id]
    assert ids(any_mem.tasks.list(scope=SCOPE, agent="bo")) == [b.id]
    assert ids(any_mem.tasks.list(scope=SCOPE, status="running")) == [b.id]
    assert ids(any_mem.tasks.list(scope=SCOPE, memory=claim.id)) == [a.id]


def test_claims_written_while_a_task_runs_carry_its_intent_and_task(any_mem: Memory) -> None:
    goal = any_mem.intents.create("confirm the allergy", scope=SCOPE)
    t = any_mem.tasks.create("ask Alice", scope=SCOPE, intent=goal)
    any_mem.remember("unrelated", scope=SCOPE)
    with any_mem.tasks.running(t, scope=SCOPE) as run:
        made = run.remember("Alice is allergic to peanuts", source="user_stated", meta={"turn": 3})
    assert made.meta == {"turn": 3, "intent_id": goal.id, "task_id": t.id}
    assert [i.id for i in any_mem.list(scope=SCOPE, where=Q.task(t.id)).items] == [made.id]
    assert [i.id for i in any_mem.list(scope=SCOPE, where=Q.intent(goal.id)).items] == [made.id]
    done = any_mem.tasks.get(t, scope=SCOPE)
    assert (done.status, done.outputs) == ("completed", (made.id,))


def test_a_block_that_raises_fails_the_task_with_the_exception_and_a_rerun_retries(any_mem: Memory) -> None:
    t = any_mem.tasks.create("call the API", scope=SCOPE)
    with pytest.raises(RuntimeError), any_mem.tasks.running(t, scope=SCOPE) as run:
        run.remember("the API answered 500")
        raise RuntimeError("HTTP 500")
    failed = any_mem.tasks.get(t, scope=SCOPE)
    assert (failed.status, [f.reason for f in failed.failures]) == ("failed", ["RuntimeError: HTTP 500"])
    with any_mem.tasks.running(t, scope=SCOPE):
        pass
    assert any_mem.tasks.get(t, scope=SCOPE).attempts == 2
    # the failed attempt's claim stays findable by its task: what was tried is not lost
    assert [i.text for i in any_mem.list(scope=SCOPE, where=Q.task(t.id)).items] == ["the API answered 500"]


def test_running_a_completed_task_is_refused(any_mem: Memory) -> None:
    t = any_mem.tasks.create("once", scope=SCOPE)
    with any_mem.tasks.running(t, scope=SCOPE):
        pass
    with pytest.raises(InvalidTransitionError, match="it is completed"), any_mem.tasks.running(t, scope=SCOPE):
        pass


def test_a_run_refuses_another_scope(any_mem: Memory) -> None:
    t = any_mem.tasks.create("once", scope=SCOPE)
    with any_mem.tasks.running(t, scope=SCOPE) as run, pytest.raises(InvalidInputError, match="scope"):
        run.remember("x", scope=OTHER)


def test_a_block_whose_failure_cannot_be_recorded_still_raises_its_own_exception(any_mem: Memory) -> None:
    """Regression: recording the failure raised ClosedError, which replaced the caller's exception."""
    t = any_mem.tasks.create("call the API", scope=SCOPE)
    with pytest.raises(RuntimeError, match="boom"), any_mem.tasks.running(t, scope=SCOPE):
        any_mem.close()
        raise RuntimeError("boom")
