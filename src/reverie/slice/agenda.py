"""The ``intents`` and ``tasks`` sections of a slice: records as they stand, with the moves that led there.

Why moves and not only a status: an import replays each record through the same status machine
as a live write (``model/agenda.py``), so a record arrives with its history (each pause, each
failed attempt and its reason) and a slice cannot put a record in a state no sequence of allowed
moves reaches. ``status`` is carried too, for a reader of the JSON, and must be where ``moves``
lead. Record shapes::

    intents: {"id", "origin_id", "label", "status", "owner", "priority", "parent",
              "memory_ids", "reason", "moves": [{"move", "reason", "at"}], "created_at"}
    tasks:   {"id", "origin_id", "action", "status", "intent", "agent", "parent",
              "inputs", "outputs", "moves": [...], "created_at"}

``reason`` of an intent is the one given when it was created (each move carries its own);
``outputs`` are the claims the task completed with (only a completed task has them). A parent
must be a record of the same section and a task's intent a record of the ``intents`` section
(a reference to a record in no section is refused); memory ids may name claims outside the
slice (the import looks for them in the target scope and reports those it drops). Times
(``at``, ``created_at``) are informational: record time belongs to each store.

Pure, like ``format``: ``check_sections`` is the one place these sections from outside are checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reverie.errors import InvalidSliceError
from reverie.model.agenda import INTENT_MOVES, TASK_MOVES
from reverie.model.clock import to_iso
from reverie.slice.fields import record, reverie_id, utc_time

INTENTS, TASKS = "intents", "tasks"
_MOVE_KEYS = frozenset({"move", "reason", "at"})
_INTENT_KEYS = frozenset(
    {"id", "origin_id", "label", "status", "owner", "priority", "parent", "memory_ids", "reason", "moves", "created_at"}
)
_TASK_KEYS = frozenset(
    {"id", "origin_id", "action", "status", "intent", "agent", "parent", "inputs", "outputs", "moves", "created_at"}
)
Moves = Mapping[str, tuple[tuple[str, ...], str, str]]


@dataclass(frozen=True, slots=True)
class SliceMove:
    """One transition of a record's status machine, with the reason given for it."""

    move: str
    reason: str = ""
    at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "reason": self.reason, "at": None if self.at is None else to_iso(self.at)}


@dataclass(frozen=True, slots=True)
class SliceIntent:
    id: str
    origin_id: str
    label: str
    status: str
    created_at: datetime
    owner: str | None = None
    priority: float = 0.5
    parent: str | None = None
    memory_ids: tuple[str, ...] = ()
    reason: str = ""
    moves: tuple[SliceMove, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "origin_id": self.origin_id,
            "label": self.label,
            "status": self.status,
            "owner": self.owner,
            "priority": self.priority,
            "parent": self.parent,
            "memory_ids": list(self.memory_ids),
            "reason": self.reason,
            "moves": [m.to_dict() for m in self.moves],
            "created_at": to_iso(self.created_at),
        }


@dataclass(frozen=True, slots=True)
class SliceTask:
    id: str
    origin_id: str
    action: str
    status: str
    created_at: datetime
    intent: str | None = None
    agent: str | None = None
    parent: str | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    moves: tuple[SliceMove, ...] = ()

    @property
    def failures(self) -> tuple[str, ...]:
        """The reasons of its failed attempts, oldest first (what was tried and did not work)."""
        return tuple(m.reason for m in self.moves if m.move == "fail")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "origin_id": self.origin_id,
            "action": self.action,
            "status": self.status,
            "intent": self.intent,
            "agent": self.agent,
            "parent": self.parent,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "moves": [m.to_dict() for m in self.moves],
            "created_at": to_iso(self.created_at),
        }


def check_sections(
    raw: Mapping[str, tuple[dict[str, Any], ...]],
) -> tuple[tuple[SliceIntent, ...] | None, tuple[SliceTask, ...] | None]:
    """The ``intents`` and ``tasks`` sections of ``raw`` checked (None: the section is absent)."""
    intents = None if INTENTS not in raw else tuple(_intent(d, f"intents[{n}]") for n, d in enumerate(raw[INTENTS]))
    tasks = None if TASKS not in raw else tuple(_task(d, f"tasks[{n}]") for n, d in enumerate(raw[TASKS]))
    intent_ids = _unique([i.id for i in intents or ()], INTENTS)
    task_ids = _unique([t.id for t in tasks or ()], TASKS)
    for n, i in enumerate(intents or ()):
        if i.parent is not None and i.parent not in intent_ids:
            raise InvalidSliceError(f"intents[{n}].parent names intent {i.parent}, which is in no section of the slice")
    for n, t in enumerate(tasks or ()):
        if t.intent is not None and t.intent not in intent_ids:
            raise InvalidSliceError(
                f"tasks[{n}].intent names intent {t.intent}, which is in no section of the slice; "
                "export with include_intents=True, or leave the task out"
            )
        if t.parent is not None and t.parent not in task_ids:
            raise InvalidSliceError(f"tasks[{n}].parent names task {t.parent}, which is in no section of the slice")
    _acyclic({i.id: i.parent for i in intents or ()}, "intent")
    _acyclic({t.id: t.parent for t in tasks or ()}, "task")
    return intents, tasks


def replay_status(moves: tuple[SliceMove, ...], table: Moves, start: str, where: str) -> str:
    """Where ``moves`` lead from ``start``; a move the machine does not allow is a malformed slice."""
    status = start
    for n, m in enumerate(moves):
        starts, to, _ = table[m.move]
        if status not in starts:
            final = not any(status in s for s, _, _ in table.values())
            why = "a final status: nothing moves it on" if final else f"{m.move} starts from {', '.join(starts)}"
            raise InvalidSliceError(f"{where}.moves[{n}] is {m.move!r} from {status!r}, which is {why}")
        status = to
    return status


# -- one record ----------------------------------------------------------------------------------
def _intent(d: object, where: str) -> SliceIntent:
    d = record(d, _INTENT_KEYS, where)
    moves = _moves(d.get("moves", []), INTENT_MOVES, where)
    status = _status(d, moves, INTENT_MOVES, "active", where)
    return SliceIntent(
        id=reverie_id(d.get("id"), f"{where}.id"),
        origin_id=reverie_id(d.get("origin_id", d.get("id")), f"{where}.origin_id"),
        label=_str(d.get("label"), f"{where}.label"),
        status=status,
        created_at=utc_time(d.get("created_at"), f"{where}.created_at"),
        owner=_opt(d.get("owner"), f"{where}.owner", _str),
        priority=_priority(d.get("priority", 0.5), f"{where}.priority"),
        parent=_opt(d.get("parent"), f"{where}.parent", reverie_id),
        memory_ids=_ids(d.get("memory_ids", []), f"{where}.memory_ids"),
        reason=_text(d.get("reason", ""), f"{where}.reason"),
        moves=moves,
    )


def _task(d: object, where: str) -> SliceTask:
    d = record(d, _TASK_KEYS, where)
    moves = _moves(d.get("moves", []), TASK_MOVES, where)
    status = _status(d, moves, TASK_MOVES, "pending", where)
    outputs = _ids(d.get("outputs", []), f"{where}.outputs")
    if outputs and status != "completed":
        raise InvalidSliceError(f"{where}.outputs: only a completed task has outputs; this one is {status}")
    for n, m in enumerate(moves):
        if m.move == "fail" and not m.reason.strip():
            raise InvalidSliceError(f"{where}.moves[{n}]: a failed attempt carries its reason")
    return SliceTask(
        id=reverie_id(d.get("id"), f"{where}.id"),
        origin_id=reverie_id(d.get("origin_id", d.get("id")), f"{where}.origin_id"),
        action=_str(d.get("action"), f"{where}.action"),
        status=status,
        created_at=utc_time(d.get("created_at"), f"{where}.created_at"),
        intent=_opt(d.get("intent"), f"{where}.intent", reverie_id),
        agent=_opt(d.get("agent"), f"{where}.agent", _str),
        parent=_opt(d.get("parent"), f"{where}.parent", reverie_id),
        inputs=_ids(d.get("inputs", []), f"{where}.inputs"),
        outputs=outputs,
        moves=moves,
    )


def _status(d: Mapping[str, Any], moves: tuple[SliceMove, ...], table: Moves, start: str, where: str) -> str:
    reached = replay_status(moves, table, start, where)
    status = d.get("status")
    if status != reached:
        raise InvalidSliceError(f"{where}.status is {status!r}, but its moves lead to {reached!r}")
    return reached


def _moves(value: object, table: Moves, where: str) -> tuple[SliceMove, ...]:
    if not isinstance(value, list):
        raise InvalidSliceError(f"{where}.moves must be a list")
    out = []
    for n, m in enumerate(value):
        at = f"{where}.moves[{n}]"
        m = record(m, _MOVE_KEYS, at)
        if m.get("move") not in table:
            raise InvalidSliceError(f"{at}.move must be one of {', '.join(table)}, got {m.get('move')!r}")
        when = None if m.get("at") is None else utc_time(m["at"], f"{at}.at")
        out.append(SliceMove(str(m["move"]), _text(m.get("reason", ""), f"{at}.reason"), when))
    return tuple(out)


# -- checks --------------------------------------------------------------------------------------
def _unique(ids: list[str], section: str) -> set[str]:
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InvalidSliceError(f"{section}: id {dup} appears twice; each record once")
    return set(ids)


def _acyclic(parents: Mapping[str, str | None], what: str) -> None:
    for start in parents:
        seen, at = {start}, parents[start]
        while at is not None:
            if at in seen:
                raise InvalidSliceError(f"{what} {start} is its own ancestor through parent; a slice is acyclic")
            seen.add(at)
            at = parents.get(at)


def _ids(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidSliceError(f"{where} must be a list of ids")
    return tuple(dict.fromkeys(reverie_id(v, where) for v in value))


def _str(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidSliceError(f"{where} must be a non-empty string, got {value!r:.60}")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidSliceError(f"{where} must be a string, got {value!r:.60}")
    return value


def _opt(value: object, where: str, check: Callable[[object, str], str]) -> str | None:
    return None if value is None else check(value, where)


def _priority(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise InvalidSliceError(f"{where} must be a number in [0, 1], got {value!r:.60}")
    return float(value)
