"""Promise: a ``TaskRun`` handle never writes over a move another agent made to its task meanwhile.

``mem.tasks.running(task)`` hands out a handle for the task as it started (or retried) it. Another
agent (here a second ``Memory`` on the same real SQLite file, and on one real PostgreSQL
database) may fail, retry or complete the task while the handle is held. The handle used to
write anyway: its completion completed the other agent's new attempt, its failure failed it,
and ``run.remember`` kept tagging claims with a task already completed without them. Each of the
handle's writes now checks, under the store's write lock, that the task is still at the version
the handle last saw, and refuses with ``VersionConflictError`` ("moved by another agent")
otherwise; the other agent's moves stand.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reverie import Memory, Q
from reverie.errors import VersionConflictError
from reverie.memory.tasks import TaskRun
from reverie.model.agenda import Task

SCOPE = "user:alice"
MOVED = "moved by another agent"


@pytest.fixture
def two(memories: Any, store_url: str) -> tuple[Memory, Memory]:
    """Two agents: two ``Memory`` instances on one store."""
    return memories.open(store_url), memories.open(store_url, seed=1)


def _failed_and_retried_by(other: Memory, run: TaskRun) -> Task:
    other.tasks.fail(run.task.id, "agent A timed out", scope=SCOPE)
    return other.tasks.retry(run.task.id, scope=SCOPE, reason="agent B takes it over")


def test_a_run_does_not_complete_the_attempt_another_agent_started(two: tuple[Memory, Memory]) -> None:
    a, b = two
    t = a.tasks.create("look it up", scope=SCOPE)
    with pytest.raises(VersionConflictError, match=MOVED) as err, a.tasks.running(t, scope=SCOPE) as run:
        theirs = _failed_and_retried_by(b, run)
    assert "it is now running" in err.value.message and "attempt 2" in err.value.message
    assert a.tasks.get(t, scope=SCOPE) == theirs  # still B's running attempt 2, not completed by A
    assert run.closed


def test_a_run_whose_block_raises_does_not_fail_another_agents_attempt(
    two: tuple[Memory, Memory], caplog: pytest.LogCaptureFixture
) -> None:
    a, b = two
    t = a.tasks.create("look it up", scope=SCOPE)
    caplog.set_level(logging.WARNING, "reverie")
    with pytest.raises(RuntimeError, match="boom"), a.tasks.running(t, scope=SCOPE) as run:
        theirs = _failed_and_retried_by(b, run)
        raise RuntimeError("boom")
    now = a.tasks.get(t, scope=SCOPE)
    assert now == theirs and [f.reason for f in now.failures] == ["agent A timed out"]
    assert MOVED in caplog.text


def test_a_run_refuses_to_remember_once_another_agent_completed_the_task(two: tuple[Memory, Memory]) -> None:
    a, b = two
    t = a.tasks.create("look it up", scope=SCOPE)
    with pytest.raises(VersionConflictError, match=MOVED), a.tasks.running(t, scope=SCOPE) as run:
        run.remember("found on the wiki", source="observed")
        done = b.tasks.complete(t, scope=SCOPE, reason="B found it first")
        run.remember("found it in the archive too", source="observed")
    assert a.tasks.get(t, scope=SCOPE) == done
    tagged = [i.text for i in a.list(scope=SCOPE, where=Q.task(t.id)).items]
    assert tagged == ["found on the wiki"]


def test_explicit_complete_and_fail_of_a_stale_run_are_refused_and_change_nothing(two: tuple[Memory, Memory]) -> None:
    a, b = two
    t = a.tasks.create("look it up", scope=SCOPE)
    with pytest.raises(VersionConflictError, match=MOVED), a.tasks.running(t, scope=SCOPE) as run:
        theirs = _failed_and_retried_by(b, run)
        before = [e.seq for e in a.events(scope=SCOPE, limit=1000)]
        with pytest.raises(VersionConflictError, match=MOVED):
            run.complete()
        with pytest.raises(VersionConflictError, match=MOVED):
            run.fail("A gives up")
        assert [e.seq for e in a.events(scope=SCOPE, limit=1000)] == before
    # ... and so is the completion the block's exit tries: B's attempt stands
    assert a.tasks.get(t, scope=SCOPE) == theirs


def test_an_undisturbed_run_completes_and_holds_the_version_it_wrote(two: tuple[Memory, Memory]) -> None:
    a, _ = two
    t = a.tasks.create("look it up", scope=SCOPE)
    with a.tasks.running(t, scope=SCOPE) as run:
        run.remember("first try", source="observed")
    assert a.tasks.get(t, scope=SCOPE).status == "completed"
    assert run.task.version == a.tasks.get(t, scope=SCOPE).version
