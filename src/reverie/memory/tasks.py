"""``mem.tasks``: what is done — units of work for an intent, by an agent, with inputs and outputs.

Status machine (``model/agenda.py``): pending → running → completed / failed, and failed →
running (``retry``, a new attempt). Every failure stays on the task with its reason
(``Task.failures``; ``list(failed=True)``), so the next agent sees what was tried.

Claims written while a task runs carry ``meta.intent_id`` / ``meta.task_id`` (``Q.intent``,
``Q.task``). How: ``with mem.tasks.running(task, scope=...) as run: run.remember(...)``. Why an
explicit handle rather than ambient "current task" state picked up by every ``mem.remember``:
a claim is attributed to a task only by code that holds the task's handle, never by whatever
happens to be on the stack in another thread or coroutine; the remember path of every face stays
as it is; and the run knows what it wrote, so it completes with those claims as outputs. Any
face can still tag a claim itself with ``meta={"task_id": ..., "intent_id": ...}``.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from reverie.errors import (
    InvalidInputError,
    InvalidTransitionError,
    NotFoundError,
    ReverieError,
    VersionConflictError,
)
from reverie.memory import agenda_common as chk
from reverie.memory.core import Core
from reverie.model import agenda as ag
from reverie.model.events import Event
from reverie.model.item import Item
from reverie.model.validate import check_count, check_reason, check_text

#: How many tasks ``list`` returns when no ``limit`` is given.
DEFAULT_LIST = 100
#: Longest failure reason kept from an exception that ended a ``running`` block.
MAX_FAILURE_CHARS = 2000

Remember = Callable[..., Item]
_log = logging.getLogger("reverie")


def failure_reason(exc: BaseException) -> str:
    """``"<type>: <message>"`` made storable whatever the exception holds.

    Why: the reason goes through ``check_reason`` like any other; an exception quoting a log line
    with a NUL, a lone surrogate, a 50 KB message or a ``__str__`` that raises would otherwise make
    recording the failure fail, leaving the task ``running`` with nothing said (outside probe 2,
    finding 14). NUL and lone surrogates become backslash escapes; the whole is cut to
    ``MAX_FAILURE_CHARS``.
    """
    name = type(exc).__name__
    try:
        message = str(exc)
    except Exception:  # a broken __str__ must not cost the failure record
        message = "<the exception's message could not be read>"
    text = f"{name}: {message}" if message else name
    text = text.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
    return text[:MAX_FAILURE_CHARS]


class TaskRun:
    """A running task's handle (``mem.tasks.running``): its claims carry the task and its intent.

    The handle holds the task at the version its own last move left it (``task.version``). Every
    write through it (``remember``, ``complete``, ``fail``) first checks, under the store's write
    lock and in the same transaction as the write, that the task is still at that version. Why:
    another agent may fail, retry or complete the task meanwhile (a supervisor taking over a
    stalled run); a handle writing anyway completed or failed the other agent's new attempt, or
    tagged claims with a task already completed without them. Such a write is refused with
    ``VersionConflictError`` ("moved by another agent"), naming where the task is now, and
    writes nothing; the other agent's moves stand.
    """

    def __init__(self, tasks: Tasks, remember: Remember, task: ag.Task) -> None:
        self._tasks = tasks
        self._remember = remember
        self.task = task
        #: Ids of the claims ``remember`` stored or corroborated in this run, in order.
        self.written: builtins.list[str] = []
        self.finished = False
        #: True once the ``running`` block has exited: the run then writes nothing more.
        self.closed = False

    @property
    def meta(self) -> dict[str, str]:
        """What every claim of this run carries in ``meta``."""
        out = {ag.TASK_META: self.task.id}
        if self.task.intent is not None:
            out[ag.INTENT_META] = self.task.intent
        return out

    def remember(self, text: str, **fields: Any) -> Item:
        """``mem.remember(text, scope=<the task's>, ...)`` with ``meta`` carrying the task and intent.

        A claim equal to a current one corroborates it (and keeps that claim's meta): it is
        still listed among the run's outputs. Refused (``InvalidTransitionError``) once the run has
        completed or failed, or its block has exited: a claim tagged with a finished task would
        be found by ``Q.task`` without being among its outputs. Refused (``VersionConflictError``)
        once another agent has moved the task, for the same reason.
        """
        if self.finished or self.closed:
            raise InvalidTransitionError(
                f"task {self.task.id} is {self.task.status}: this run has ended, so it writes nothing more; "
                "remember through mem.remember, or start a new run of an open task"
            )
        if "scope" in fields:
            raise InvalidInputError("a task run writes to its task's scope; do not pass scope=")
        if "guard" in fields:
            raise InvalidInputError("unknown field guard; a claim is remembered with the fields of mem.remember")
        meta = dict(fields.pop("meta", None) or {})
        meta.update(self.meta)
        item = self._remember(text, scope=self.task.scope, meta=meta, guard=lambda: self.check_held("claim"), **fields)
        self.written.append(item.id)
        return item

    def complete(
        self, *, outputs: Sequence[Item | str] = (), reason: str = "", expected_version: int | None = None
    ) -> ag.Task:
        """Complete now with the claims written so far plus ``outputs``."""
        self.task = self._tasks.held_move(
            self,
            "complete",
            reason=reason,
            outputs=[*self.written, *outputs],
            expected_version=expected_version,
        )
        self.finished = True
        return self.task

    def fail(self, reason: str, *, expected_version: int | None = None) -> ag.Task:
        """Fail now with ``reason`` (kept on the task for the next attempt or agent)."""
        self.task = self._tasks.held_move(self, "fail", reason=reason, expected_version=expected_version)
        self.finished = True
        return self.task

    def check_held(self, what: str) -> None:
        """Raise ``VersionConflictError`` unless the task is still where this handle left it (``what``:
        the write refused, for the message).

        Run under the write lock by each of the handle's writes (see the class docstring)."""
        now = self._tasks.get(self.task, scope=self.task.scope)
        if now.version == self.task.version:
            return
        mine = self.task
        raise VersionConflictError(
            f"task {mine.id} was moved by another agent while this run held it: it is now {now.status} "
            f"(version {now.version}, attempt {now.attempts}); this run holds version {mine.version} "
            f"(attempt {mine.attempts}), so its {what} is refused and nothing is written; read the task again "
            "(tasks.get) and start a new run if it is still open"
        )


class Tasks:
    """create, start / complete / fail / retry, running, get, list, subtasks, history."""

    def __init__(self, core: Core, remember: Remember) -> None:
        self._core = core
        self._remember = remember

    # -- writes ---------------------------------------------------------------------------
    def create(
        self,
        action: str,
        *,
        scope: str,
        intent: ag.Intent | str | None = None,
        agent: str | None = None,
        inputs: Sequence[Item | str] = (),
        parent: ag.Task | str | None = None,
    ) -> ag.Task:
        """A new pending task. ``intent`` must be an open intent of ``scope`` (a subtask defaults to
        its parent's); ``inputs`` are claims of ``scope``. ``NotFoundError`` for anything not in
        ``scope`` — an intent of another scope is refused like an unknown one."""
        core = self._core
        command = ag.CreateTask(
            scope=core.scope(scope),
            action=check_text(action, core.limits, "action"),
            intent=chk.maybe_id(intent, "intent"),
            agent=chk.name(agent, "agent"),
            parent=chk.maybe_id(parent, "parent"),
            inputs=chk.memory_ids(inputs, "inputs"),
        )
        return self._written(core.run([command]))

    def transition(
        self,
        task: ag.Task | str,
        move: str,
        *,
        scope: str,
        reason: str = "",
        outputs: Sequence[Item | str] = (),
        expected_version: int | None = None,
    ) -> ag.Task:
        """Apply ``move`` (``start``, ``complete``, ``fail`` or ``retry``) and return the task after it.

        ``expected_version`` (here and on every named verb) refuses the move with
        ``VersionConflictError`` unless the task is at that version."""
        core = self._core
        command = ag.MoveTask(
            scope=core.scope(scope),
            id=chk.record_id(task, "task"),
            move=chk.check_move(move, tuple(ag.TASK_MOVES), "task"),
            reason=check_reason(reason),
            outputs=chk.memory_ids(outputs, "outputs"),
            expected_version=chk.check_version(expected_version),
            max_moves=core.limits.max_record_moves,
        )
        # A move's event carries only what it changed (``model/agenda.py``): the task after it is
        # read back in the same transaction, so it is this move's result, not a later one's.
        with core.store.atomic(command.scope):
            core.run([command])
            return self.get(command.id, scope=command.scope)

    def start(
        self, task: ag.Task | str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> ag.Task:
        """pending → running (attempt 1)."""
        return self.transition(task, "start", scope=scope, reason=reason, expected_version=expected_version)

    def complete(
        self,
        task: ag.Task | str,
        *,
        scope: str,
        outputs: Sequence[Item | str] = (),
        reason: str = "",
        expected_version: int | None = None,
    ) -> ag.Task:
        """running → completed, recording ``outputs`` (claims of ``scope`` it produced)."""
        return self.transition(
            task, "complete", scope=scope, reason=reason, outputs=outputs, expected_version=expected_version
        )

    def fail(self, task: ag.Task | str, reason: str, *, scope: str, expected_version: int | None = None) -> ag.Task:
        """running → failed; ``reason`` (required) is kept in ``Task.failures`` for good."""
        return self.transition(task, "fail", scope=scope, reason=reason, expected_version=expected_version)

    def retry(
        self, task: ag.Task | str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> ag.Task:
        """failed → running: a new attempt; the earlier failures stay listed."""
        return self.transition(task, "retry", scope=scope, reason=reason, expected_version=expected_version)

    def held_move(
        self,
        run: TaskRun,
        move: str,
        *,
        reason: str = "",
        outputs: Sequence[Item | str] = (),
        expected_version: int | None = None,
    ) -> ag.Task:
        """``move`` for ``run``: its check that no other agent moved the task, then the move, as one
        step under the write lock. The move also carries the version the handle holds (or the
        caller's ``expected_version``), so the store refuses it too if anything moved first."""
        task = run.task
        with self._core.store.atomic(task.scope):
            run.check_held("completion" if move == "complete" else "failure")
            return self.transition(
                task,
                move,
                scope=task.scope,
                reason=reason,
                outputs=outputs,
                expected_version=task.version if expected_version is None else expected_version,
            )

    @contextmanager
    def running(self, task: ag.Task | str, *, scope: str) -> Iterator[TaskRun]:
        """Run ``task`` inside the block: started (or retried, if it failed) on entry.

        On a normal exit a still-running task completes with the claims ``run.remember`` wrote as
        its outputs; if the block raises, the task fails with the exception as its reason and the
        exception propagates. "An exception" is any ``BaseException``: a Ctrl-C
        (``KeyboardInterrupt``) or ``SystemExit`` fails the task too, so it is never left ``running``
        with nothing recorded. The reason is made storable (``failure_reason``). A task already
        running is joined as it is. After the block the handle refuses writes.
        """
        current = self.get(task, scope=scope)
        if current.status == "pending":
            current = self.start(current, scope=scope)
        elif current.status == "failed":
            current = self.retry(current, scope=scope)
        elif current.status != "running":
            self.transition(current, "start", scope=scope)  # raises: names the status and the moves
        run = TaskRun(self, self._remember, current)
        try:
            yield run
        except BaseException as exc:
            if not run.finished:
                self._record_failure(run, exc)
            run.closed = True
            raise
        try:
            if not run.finished:
                run.complete()
        finally:
            run.closed = True

    @staticmethod
    def _record_failure(run: TaskRun, exc: BaseException) -> None:
        """Fail the run with ``exc`` as its reason; if even that cannot be written (the store is
        closed, the disk full), log it and let the caller's exception propagate, not this one."""
        try:
            run.fail(failure_reason(exc))
        except ReverieError as err:
            _log.warning("task %s: recording its failure failed (%s); it stays running", run.task.id, err)

    # -- reads ----------------------------------------------------------------------------
    def get(self, task: ag.Task | str, *, scope: str) -> ag.Task:
        """The task as it stands now, or ``NotFoundError`` (also for another scope's task)."""
        s = self._core.scope(scope)
        task_id = chk.record_id(task, "task")
        found = chk.agenda_store(self._core.store).task(s, task_id)
        if found is None:
            raise NotFoundError(f"no task {task_id} in scope {s!r}")
        return found

    def list(
        self,
        *,
        scope: str,
        intent: ag.Intent | str | None = None,
        agent: str | None = None,
        status: str | Sequence[str] | None = None,
        parent: ag.Task | str | None = None,
        memory: Item | str | None = None,
        failed: bool = False,
        limit: int | None = None,
    ) -> builtins.list[ag.Task]:
        """The scope's tasks matching every given filter, oldest first.

        ``memory``: tasks that took or produced that claim (any version of it, as ``history`` lists
        them: a task keeps the version it was given, and still lists under a revision);
        ``failed=True``: tasks with a failed attempt on record, whatever their status now (what was
        tried and did not work).
        """
        core = self._core
        s = core.scope(scope)
        if not isinstance(failed, bool):
            raise InvalidInputError(f"failed must be True or False, got {type(failed).__name__}")
        query = ag.TaskQuery(
            statuses=chk.statuses(status, ag.TASK_STATUSES, "task"),
            intent=chk.maybe_id(intent, "intent"),
            agent=chk.name(agent, "agent"),
            parent=chk.maybe_id(parent, "parent"),
            failed=failed,
        )
        n = check_count(limit, "limit", default=DEFAULT_LIST, limits=core.limits)
        claim = None if memory is None else chk.memory_ids([memory], "memory")[0]
        store = chk.agenda_store(core.store)
        return chk.about_claim(
            core.store,
            s,
            claim,
            lambda one: store.tasks(s, replace(query, memory=one), limit=n),
            lambda t: t.id,
            n,
        )

    def subtasks(self, task: ag.Task | str, *, scope: str) -> builtins.list[ag.Task]:
        """The subtasks of ``task`` (which must exist in ``scope``)."""
        parent = self.get(task, scope=scope)
        return self.list(scope=scope, parent=parent.id, limit=self._core.limits.max_k)

    def history(self, task: ag.Task | str, *, scope: str) -> builtins.list[Event]:
        """Every event of the task, oldest first: creation, each attempt, each failure, completion."""
        found = self.get(task, scope=scope)
        return self._core.store.events(found.scope, item_id=found.id, limit=self._core.limits.max_events)

    @staticmethod
    def _written(outcomes: builtins.list[Any]) -> ag.Task:
        return ag.Task.from_dict(outcomes[0].events[-1].payload["task"])
