"""The reducer's rules for intents and tasks: validate against the records' state, emit events.

Split from ``reducer.py`` (which registers these handlers), as the conversation rules are. Every
check runs before any event is built, so a refused command emits nothing. Anything another
record or claim is named by (a parent, an intent, a memory id) must exist *in the command's
scope*: an id from another scope gets the same ``NotFoundError`` as an unknown one (no
existence oracle across the isolation boundary).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from reverie.errors import (
    InvalidInputError,
    InvalidTransitionError,
    LimitExceededError,
    NotFoundError,
    VersionConflictError,
)
from reverie.model import agenda as ag
from reverie.model import events as ev
from reverie.model.visibility import may_see

if TYPE_CHECKING:
    from reverie.model.reduce_kit import Context, StateView


def _event(ctx: Context, type_: str, scope: str, payload: dict[str, Any]) -> ev.Event:
    return ev.Event(id=ctx.new_id(), type=type_, scope=scope, at=ctx.now, cause=ctx.cause, payload=payload)


def require_intent(view: StateView, scope: str, intent_id: str) -> ag.Intent:
    found = view.intent(scope, intent_id)
    if found is None:
        raise NotFoundError(f"no intent {intent_id} in scope {scope!r}")
    return found


def require_task(view: StateView, scope: str, task_id: str) -> ag.Task:
    found = view.task(scope, task_id)
    if found is None:
        raise NotFoundError(f"no task {task_id} in scope {scope!r}")
    return found


def _require_memories(view: StateView, scope: str, ids: Sequence[str], what: str, principal: str | None) -> None:
    """Every id a claim of ``scope`` that ``principal`` (None: the owner) may see.

    A claim hidden from the principal fails here, in order with the other checks and with the
    message an unknown id gets: checked earlier (or worded apart) it would tell the principal
    that the id exists.
    """
    for item_id in ids:
        item = view.item(scope, item_id)
        if item is None or (principal is not None and not may_see(item.visibility, principal)):
            raise NotFoundError(f"{what} names item {item_id}, which is not in scope {scope!r}")


def _check_version(kind: str, record_id: str, version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise VersionConflictError(
            f"{kind} {record_id} is at version {version}, not {expected}: it changed since you read it; "
            "read it again and retry"
        )


def _check_moves(kind: str, record_id: str, version: int, bound: int | None) -> None:
    """Refuse a move past ``bound`` (``Limits.max_record_moves``): a record has made ``version - 1``.

    Why a bound on a live record: a task keeps every failure, and each move rewrites its row with
    them; and a slice carrying more moves than the bound is refused on import, so a record past it
    could be exported but never imported again.
    """
    if bound is not None and version - 1 >= bound:
        raise LimitExceededError(
            f"{kind} {record_id} has made {version - 1} moves; Limits.max_record_moves is {bound}, so it "
            f"makes no more: create a new {kind} for another attempt (this one keeps its history), or raise the bound"
        )


def _refuse(kind: str, record_id: str, move: str, status: str, moves: dict[str, Any]) -> InvalidTransitionError:
    allowed = ag.allowed_moves(moves, status)
    can = f"you can {', '.join(allowed)}" if allowed else "nothing moves it on (it is final)"
    return InvalidTransitionError(f"cannot {move} {kind} {record_id}: it is {status}; from {status} {can}")


def _move_target(
    kind: str, record: ag.Intent | ag.Task, cmd: ag.MoveIntent | ag.MoveTask, moves: dict[str, Any]
) -> tuple[str, str]:
    """The status ``cmd`` leads ``record`` to and the event it records, after the checks every move
    makes in this order: the caller's version, the status machine, ``Limits.max_record_moves``."""
    _check_version(kind, record.id, record.version, cmd.expected_version)
    starts, to, event_type = moves[cmd.move]
    if record.status not in starts:
        raise _refuse(kind, record.id, cmd.move, record.status, moves)
    _check_moves(kind, record.id, record.version, cmd.max_moves)
    return to, event_type


def _create_intent(cmd: ag.CreateIntent, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.parent is not None:
        parent = require_intent(view, cmd.scope, cmd.parent)
        if not parent.is_open:
            raise InvalidTransitionError(
                f"cannot add a sub-intent to intent {parent.id}: it is {parent.status}; "
                "sub-intents go under an active or paused intent"
            )
    _require_memories(view, cmd.scope, cmd.memory_ids, "the intent", cmd.principal)
    intent = ag.Intent(
        id=ctx.new_id(),
        scope=cmd.scope,
        label=cmd.label,
        created_at=ctx.now,
        updated_at=ctx.now,
        owner=cmd.owner,
        priority=cmd.priority,
        parent=cmd.parent,
        memory_ids=cmd.memory_ids,
        reason=cmd.reason,
        origin=cmd.origin,
        unseen=ag.unseen_union((), cmd.unseen),
    )
    return [_event(ctx, ag.INTENT_CREATED, cmd.scope, {"intent": intent.to_dict()})]


def _move_intent(cmd: ag.MoveIntent, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.move not in ag.INTENT_MOVES:
        raise InvalidInputError(f"intent move {cmd.move!r} is unknown; use one of {', '.join(ag.INTENT_MOVES)}")
    intent = require_intent(view, cmd.scope, cmd.id)
    to, event_type = _move_target("intent", intent, cmd, ag.INTENT_MOVES)
    moved = ag.moved(intent, to, cmd.reason, ctx.now, cmd.unseen)
    # Only what the move changed (``model/agenda.py``): no move changes the label or claim ids,
    # which an event carrying the whole intent copied each time; the projection applies it.
    return [_event(ctx, event_type, cmd.scope, ag.intent_move_payload(moved, cmd.unseen))]


def _create_task(cmd: ag.CreateTask, view: StateView, ctx: Context) -> list[ev.Event]:
    intent_id = cmd.intent
    if cmd.parent is not None:
        parent = require_task(view, cmd.scope, cmd.parent)
        if intent_id is None:
            intent_id = parent.intent  # a subtask serves its parent's intent unless told otherwise
    if intent_id is not None:
        intent = require_intent(view, cmd.scope, intent_id)
        if not intent.is_open:
            raise InvalidTransitionError(
                f"cannot add a task to intent {intent.id}: it is {intent.status}; "
                "tasks serve an active or paused intent"
            )
    _require_memories(view, cmd.scope, cmd.inputs, "the task's inputs", cmd.principal)
    task = ag.Task(
        id=ctx.new_id(),
        scope=cmd.scope,
        action=cmd.action,
        created_at=ctx.now,
        updated_at=ctx.now,
        intent=intent_id,
        agent=cmd.agent,
        parent=cmd.parent,
        inputs=cmd.inputs,
        origin=cmd.origin,
        unseen=ag.unseen_union((), cmd.unseen),
    )
    return [_event(ctx, ag.TASK_CREATED, cmd.scope, {"task": task.to_dict()})]


def _move_task(cmd: ag.MoveTask, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.move not in ag.TASK_MOVES:
        raise InvalidInputError(f"task move {cmd.move!r} is unknown; use one of {', '.join(ag.TASK_MOVES)}")
    if cmd.outputs and cmd.move != "complete":
        raise InvalidInputError(f"outputs are given when a task completes, not on {cmd.move}")
    if cmd.move == "fail" and not cmd.reason.strip():
        raise InvalidInputError(
            "a failed task needs a reason (what went wrong), so the next agent does not retry blindly"
        )
    task = require_task(view, cmd.scope, cmd.id)
    to, event_type = _move_target("task", task, cmd, ag.TASK_MOVES)
    _require_memories(view, cmd.scope, cmd.outputs, "the task's outputs", cmd.principal)
    moved = ag.moved(task, to, cmd.reason, ctx.now, cmd.unseen)
    if cmd.move in ("start", "retry"):
        moved = replace(moved, attempts=task.attempts + 1)
    elif cmd.move == "fail":
        moved = replace(moved, failures=(*task.failures, ag.Failure(task.attempts, cmd.reason, ctx.now)))
    else:
        moved = replace(moved, outputs=tuple(dict.fromkeys((*task.outputs, *cmd.outputs))))
    # Only what the move changed: a task keeps every failure, so the whole task grew each event
    # with the moves before it (``model/agenda.py``); the projection applies it to the row.
    return [_event(ctx, event_type, cmd.scope, ag.task_move_payload(task, moved, cmd.unseen))]


HANDLERS: dict[type, Callable[[Any, StateView, Context], list[ev.Event]]] = {
    ag.CreateIntent: _create_intent,
    ag.MoveIntent: _move_intent,
    ag.CreateTask: _create_task,
    ag.MoveTask: _move_task,
}
