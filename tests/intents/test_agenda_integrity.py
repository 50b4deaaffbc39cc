"""The agenda stays true to its claims and its runs (outside probe 2: findings 14, 8, 16, 20).

- a ``running`` block that ends by any exception (Ctrl-C included, or one whose message the store
  would refuse) records the failure; a finished run refuses further writes;
- ``intents.accept`` refuses a suggestion that no longer holds (already accepted, claim gone);
- an intent or task about a claim follows the claim's versions (``revise``);
- the dream pass's keep budget spares the claims an open intent or task is about.
"""

from __future__ import annotations

import pytest
from agenda_kit import SCOPE

from reverie import Memory, NotFoundError, Q
from reverie.dream import DreamConfig
from reverie.errors import InvalidTransitionError
from reverie.model.clock import ManualClock


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (KeyboardInterrupt(), "KeyboardInterrupt"),
        (SystemExit(3), "SystemExit: 3"),
        (RuntimeError("bad byte \x00 in a log line"), "RuntimeError: bad byte \\x00 in a log line"),
        (RuntimeError("lone \udc80 surrogate"), "RuntimeError: lone \\udc80 surrogate"),
    ],
)
def test_any_exception_ending_a_run_is_recorded_as_its_failure(
    any_mem: Memory, exc: BaseException, reason: str
) -> None:
    t = any_mem.tasks.create("call the API", scope=SCOPE)
    with pytest.raises(type(exc)), any_mem.tasks.running(t, scope=SCOPE) as run:
        run.remember("partial result")
        raise exc
    failed = any_mem.tasks.get(t, scope=SCOPE)
    assert (failed.status, [f.reason for f in failed.failures]) == ("failed", [reason])
    with any_mem.tasks.running(t, scope=SCOPE):  # the next agent can retry it
        pass
    assert any_mem.tasks.get(t, scope=SCOPE).status == "completed"


def test_a_huge_or_unprintable_exception_still_fails_the_task(any_mem: Memory) -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise ValueError("no")

    for exc in (RuntimeError("x" * 50_000), Unprintable()):
        t = any_mem.tasks.create("call the API", scope=SCOPE)
        with pytest.raises(type(exc)), any_mem.tasks.running(t, scope=SCOPE):
            raise exc
        failed = any_mem.tasks.get(t, scope=SCOPE)
        assert failed.status == "failed"
        assert failed.failures[0].reason.startswith(type(exc).__name__)
        assert len(failed.failures[0].reason) <= 2000


def test_a_finished_run_refuses_to_write(any_mem: Memory) -> None:
    t = any_mem.tasks.create("t", scope=SCOPE)
    with any_mem.tasks.running(t, scope=SCOPE) as run:
        run.remember("written inside", source="user_stated")
    with pytest.raises(InvalidTransitionError, match="completed"):
        run.remember("written after the task completed", source="user_stated")
    tagged = [i.text for i in any_mem.list(scope=SCOPE, where=Q.task(t.id)).items]
    assert tagged == ["written inside"]
    failed = any_mem.tasks.create("t2", scope=SCOPE)
    with pytest.raises(RuntimeError), any_mem.tasks.running(failed, scope=SCOPE) as run2:
        raise RuntimeError("boom")
    with pytest.raises(InvalidTransitionError, match="failed"):
        run2.remember("late")
    assert any_mem.list(scope=SCOPE, where=Q.task(failed.id)).items == []


def test_accepting_a_suggestion_twice_is_refused(any_mem: Memory) -> None:
    any_mem.remember("Alice may be allergic", scope=SCOPE, importance=0.9, authority=0.2)
    sg = any_mem.intents.suggest(scope=SCOPE)[0]
    made = any_mem.intents.accept(sg)
    with pytest.raises(NotFoundError, match=rf"no intent is suggested for claim .*open intent {made.id}"):
        any_mem.intents.accept(sg)
    assert [i.id for i in any_mem.intents.list(scope=SCOPE)] == [made.id]


def test_a_suggestion_whose_claim_was_forgotten_is_refused(any_mem: Memory) -> None:
    c = any_mem.remember("Bob may be allergic", scope=SCOPE, importance=0.9, authority=0.2)
    sg = next(x for x in any_mem.intents.suggest(scope=SCOPE) if c.id in x.memory_ids)
    any_mem.forget(c.id, scope=SCOPE)
    with pytest.raises(NotFoundError, match="no longer current"):
        any_mem.intents.accept(sg)
    assert any_mem.intents.list(scope=SCOPE) == []


def test_an_intent_and_a_task_follow_their_claim_through_a_revision(any_mem: Memory) -> None:
    a = any_mem.remember("Alice may be allergic to peanuts", scope=SCOPE, importance=0.9, authority=0.2)
    goal = any_mem.intents.create("Confirm allergy", scope=SCOPE, memory_ids=[a])
    task = any_mem.tasks.create("ask Alice", scope=SCOPE, intent=goal, inputs=[a])
    b = any_mem.revise(a.id, "Alice may be allergic to tree nuts", scope=SCOPE)
    c = any_mem.revise(b.id, "Alice may be allergic to cashews", scope=SCOPE)
    for version in (a, b, c):
        assert [i.id for i in any_mem.intents.list(scope=SCOPE, memory=version.id)] == [goal.id]
        assert [t.id for t in any_mem.tasks.list(scope=SCOPE, memory=version.id)] == [task.id]
    assert any_mem.intents.suggest(scope=SCOPE) == []
    # the records keep the version they were given (what the intent was about when it was made)
    assert any_mem.intents.get(goal, scope=SCOPE).memory_ids == (a.id,)


def test_the_keep_budget_spares_the_claims_of_the_open_agenda(any_mem: Memory, clock: ManualClock) -> None:
    target = any_mem.remember(
        "The vendor contract renewal date is unclear", scope=SCOPE, importance=0.2, authority=0.3, source="inferred"
    )
    # authority 0.3: below the routine observations, which (consolidated into a gist) now go first at a tie
    task_input = any_mem.remember(
        "The vendor's email is on the old invoice", scope=SCOPE, importance=0.2, authority=0.3
    )
    done_goal = any_mem.remember("The printer toner was ordered", scope=SCOPE, importance=0.2, source="inferred")
    old = any_mem.remember("The vendor may be Acme", scope=SCOPE, importance=0.2, source="inferred")
    for i in range(20):
        any_mem.remember(f"Routine observation number {i} about the lobby lights", scope=SCOPE, importance=0.2)
    g = any_mem.intents.create("Find the renewal date", scope=SCOPE, memory_ids=[target, old], priority=0.9)
    task = any_mem.tasks.create("Email vendor", scope=SCOPE, intent=g, inputs=[task_input])
    revised = any_mem.revise(old.id, "The vendor may be Acme Ltd", scope=SCOPE)
    closed = any_mem.intents.create("Order toner", scope=SCOPE, memory_ids=[done_goal])
    any_mem.intents.complete(closed, scope=SCOPE)
    clock.advance(days=120)
    report = any_mem.dream(scope=SCOPE, config=DreamConfig(keep_budget=5))
    assert any_mem.get(target.id, scope=SCOPE).status == "live"
    assert any_mem.get(task_input.id, scope=SCOPE).status == "live"
    assert any_mem.get(done_goal.id, scope=SCOPE).status != "live"  # a finished intent protects nothing
    spared = {s["id"]: s["reason"] for s in report.spared if s["step"] == "keep_budget"}
    assert any_mem.get(revised.id, scope=SCOPE).status == "live"  # the intent follows its claim's revision
    assert spared[target.id].startswith(f"the open agenda: active intent {g.id} is about it")
    assert spared[task_input.id].startswith(f"the open agenda: pending task {task.id} takes it as an input")
    assert f"a revision of {old.id}" in spared[revised.id]
