"""Intents (what is wanted) and tasks (what is done) in the log: records, status machines, commands.

Pure, like the rest of ``model/``. The reducer rules live in ``model/agenda_rules.py``.

Why on the memory's own log: an intent and the tasks serving it are part of what an agent knows
("we set out to find Alice's allergy; the first lookup failed"), so they must replay, rebuild,
stay inside their scope and show in ``history`` exactly like a claim. A record's creation
carries its *whole* state (``intent`` / ``task``), so projecting it needs no reads. Its moves
carry only what the move changed (a *delta*), applied to the record as it stood: a task keeps
every failure, so a move carrying the whole task grew with the failures before it, and 1,000
fail/retry pairs of one task wrote ~110 MB of log (the sum grows with the square of the moves;
``bench/task_move_bytes.py``); an intent's move carrying the whole intent copied its label and
claim ids into every event, so its log grew with moves times the record's size
(``bench/intent_move_bytes.py``). Logs written before (moves carrying the whole record) replay
as they did: a payload without ``"delta"`` is a whole record.

Event types and payloads (stable; a slice export copies these events as they are):

- ``intent.created``: ``{"intent": Intent.to_dict()}``
- ``intent.paused`` / ``intent.resumed`` / ``intent.completed`` / ``intent.cancelled``:
  ``{"intent": {"id", "scope", "status", "reason", "version", "updated_at"}, "delta": true}``.
  Older logs hold ``{"intent": Intent.to_dict()}`` for these too.
- ``task.created``: ``{"task": Task.to_dict()}``
- ``task.started`` / ``task.completed`` / ``task.failed`` / ``task.retried``:
  ``{"task": {"id", "scope", "status", "reason", "version", "updated_at", ...}, "delta": true}``
  with, by move, ``"attempts"`` (start, retry: the attempt it begins), ``"failure"`` (fail: the
  ``Failure`` it adds) or ``"outputs"`` (complete: the claims it adds to the task's outputs).
  Older logs hold ``{"task": Task.to_dict()}`` for these too.
- Any move's delta may hold ``"unseen"``: the ids its reason quotes that its principal may not
  see (the record's ``unseen`` gains them; ``model.conceal`` never shows the list).

Payloads name memories by id only (``memory_ids``, ``inputs``, ``outputs``): a purged claim's
text is never copied into them. The free text they hold (``label``, ``action``, ``reason``,
failure reasons) is what the caller wrote; an accepted suggestion's label names its claim by id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar

from reverie.model.clock import from_iso, to_iso

INTENT_CREATED = "intent.created"
INTENT_PAUSED = "intent.paused"
INTENT_RESUMED = "intent.resumed"
INTENT_COMPLETED = "intent.completed"
INTENT_CANCELLED = "intent.cancelled"
TASK_CREATED = "task.created"
TASK_STARTED = "task.started"
TASK_COMPLETED = "task.completed"
TASK_FAILED = "task.failed"
TASK_RETRIED = "task.retried"

INTENT_EVENTS = (INTENT_CREATED, INTENT_PAUSED, INTENT_RESUMED, INTENT_COMPLETED, INTENT_CANCELLED)
TASK_EVENTS = (TASK_CREATED, TASK_STARTED, TASK_COMPLETED, TASK_FAILED, TASK_RETRIED)
AGENDA_EVENT_TYPES = (*INTENT_EVENTS, *TASK_EVENTS)

INTENT_STATUSES = ("active", "paused", "completed", "cancelled")
TASK_STATUSES = ("pending", "running", "completed", "failed")

#: move → (the statuses it may start from, the status it leads to, the event it records).
INTENT_MOVES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "pause": (("active",), "paused", INTENT_PAUSED),
    "resume": (("paused",), "active", INTENT_RESUMED),
    "complete": (("active", "paused"), "completed", INTENT_COMPLETED),
    "cancel": (("active", "paused"), "cancelled", INTENT_CANCELLED),
}
TASK_MOVES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "start": (("pending",), "running", TASK_STARTED),
    "complete": (("running",), "completed", TASK_COMPLETED),
    "fail": (("running",), "failed", TASK_FAILED),
    "retry": (("failed",), "running", TASK_RETRIED),
}
#: Where no move leads on: a completed or cancelled intent, a completed task.
FINAL_INTENT = ("completed", "cancelled")
FINAL_TASK = ("completed",)
#: Intent meta key and task meta key a claim written inside a running task carries (``Q.intent`` / ``Q.task``).
INTENT_META = "intent_id"
TASK_META = "task_id"


def allowed_moves(moves: Mapping[str, tuple[tuple[str, ...], str, str]], status: str) -> list[str]:
    """The moves possible from ``status``, in the table's order (an error message lists them)."""
    return [name for name, (starts, _, _) in moves.items() if status in starts]


def _origin(origin: str | None) -> dict[str, str]:
    """``origin`` is written only when a slice set it, so every other record's payload is unchanged."""
    return {} if origin is None else {"origin": origin}


def _unseen(unseen: tuple[str, ...]) -> dict[str, list[str]]:
    """Written only when a principal quoted an id it may not see: every other payload is unchanged."""
    return {"unseen": list(unseen)} if unseen else {}


def unseen_union(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """A record's ``unseen`` after a move added ``new``: sorted, distinct (a record only gains them)."""
    return tuple(sorted({*old, *new}))


def _ids(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in (value or ()))  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Intent:
    """A goal: ``label`` says what is wanted; ``memory_ids`` the claims it is about.

    ``priority`` in [0, 1] (higher first); ``parent`` makes it a sub-intent; ``reason`` is the
    reason given with its last move; ``version`` counts its events (1 when created).
    """

    id: str
    scope: str
    label: str
    created_at: datetime
    updated_at: datetime
    status: str = "active"
    owner: str | None = None
    priority: float = 0.5
    parent: str | None = None
    memory_ids: tuple[str, ...] = ()
    reason: str = ""
    version: int = 1
    #: The id this intent had where it was first recorded, when a slice brought it here (else None).
    origin: str | None = None
    #: Ids a principal quoted in this record's words without being allowed to see them: its words,
    #: shown as written to every reader (``model.conceal``); never shown to a principal itself.
    unseen: tuple[str, ...] = ()

    @property
    def is_open(self) -> bool:
        return self.status not in FINAL_INTENT

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scope": self.scope,
            "label": self.label,
            "status": self.status,
            "owner": self.owner,
            "priority": self.priority,
            "parent": self.parent,
            "memory_ids": list(self.memory_ids),
            "reason": self.reason,
            "version": self.version,
            "created_at": to_iso(self.created_at),
            "updated_at": to_iso(self.updated_at),
            **_origin(self.origin),
            **_unseen(self.unseen),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Intent:
        return cls(
            id=str(d["id"]),
            scope=str(d["scope"]),
            label=str(d["label"]),
            status=str(d["status"]),
            owner=d.get("owner"),
            priority=float(d.get("priority", 0.5)),
            parent=d.get("parent"),
            memory_ids=_ids(d.get("memory_ids")),
            reason=str(d.get("reason") or ""),
            version=int(d.get("version", 1)),
            created_at=from_iso(str(d["created_at"])),
            updated_at=from_iso(str(d["updated_at"])),
            origin=d.get("origin"),
            unseen=_ids(d.get("unseen")),
        )


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed attempt of a task: kept for good, so the next agent does not retry it blindly."""

    attempt: int
    reason: str
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "reason": self.reason, "at": to_iso(self.at)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Failure:
        return cls(attempt=int(d["attempt"]), reason=str(d["reason"]), at=from_iso(str(d["at"])))


@dataclass(frozen=True, slots=True)
class Task:
    """A unit of work: ``action`` says what is done, for ``intent`` (optional), by ``agent``.

    ``inputs`` / ``outputs`` are memory ids it read and produced; ``attempts`` counts its starts
    (a retry is a new attempt); ``failures`` every failed attempt with its reason.
    """

    id: str
    scope: str
    action: str
    created_at: datetime
    updated_at: datetime
    status: str = "pending"
    intent: str | None = None
    agent: str | None = None
    parent: str | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    attempts: int = 0
    failures: tuple[Failure, ...] = field(default_factory=tuple)
    reason: str = ""
    version: int = 1
    #: The id this task had where it was first recorded, when a slice brought it here (else None).
    origin: str | None = None
    #: As ``Intent.unseen``: ids its principal-written words quote that their writer may not see.
    unseen: tuple[str, ...] = ()

    @property
    def is_open(self) -> bool:
        return self.status not in FINAL_TASK

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scope": self.scope,
            "action": self.action,
            "status": self.status,
            "intent": self.intent,
            "agent": self.agent,
            "parent": self.parent,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "attempts": self.attempts,
            "failures": [f.to_dict() for f in self.failures],
            "reason": self.reason,
            "version": self.version,
            "created_at": to_iso(self.created_at),
            "updated_at": to_iso(self.updated_at),
            **_origin(self.origin),
            **_unseen(self.unseen),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Task:
        return cls(
            id=str(d["id"]),
            scope=str(d["scope"]),
            action=str(d["action"]),
            status=str(d["status"]),
            intent=d.get("intent"),
            agent=d.get("agent"),
            parent=d.get("parent"),
            inputs=_ids(d.get("inputs")),
            outputs=_ids(d.get("outputs")),
            attempts=int(d.get("attempts", 0)),
            failures=tuple(Failure.from_dict(f) for f in d.get("failures") or ()),
            reason=str(d.get("reason") or ""),
            version=int(d.get("version", 1)),
            created_at=from_iso(str(d["created_at"])),
            updated_at=from_iso(str(d["updated_at"])),
            origin=d.get("origin"),
            unseen=_ids(d.get("unseen")),
        )


# -- queries -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IntentQuery:
    """Which intents of a scope to list; every set field must match (empty ``statuses``: any).

    Sorted by priority (highest first), then id (creation order).
    """

    statuses: tuple[str, ...] = ()
    owner: str | None = None
    parent: str | None = None
    memory: str | None = None
    min_priority: float | None = None

    def matches(self, it: Intent) -> bool:
        return (
            (not self.statuses or it.status in self.statuses)
            and (self.owner is None or it.owner == self.owner)
            and (self.parent is None or it.parent == self.parent)
            and (self.memory is None or self.memory in it.memory_ids)
            and (self.min_priority is None or it.priority >= self.min_priority)
        )


@dataclass(frozen=True, slots=True)
class TaskQuery:
    """Which tasks of a scope to list; every set field must match. ``memory``: among inputs or
    outputs; ``failed``: only tasks with a failed attempt on record (whatever their status now).

    Sorted by id (creation order).
    """

    statuses: tuple[str, ...] = ()
    intent: str | None = None
    agent: str | None = None
    parent: str | None = None
    memory: str | None = None
    failed: bool = False

    def matches(self, t: Task) -> bool:
        return (
            (not self.statuses or t.status in self.statuses)
            and (self.intent is None or t.intent == self.intent)
            and (self.agent is None or t.agent == self.agent)
            and (self.parent is None or t.parent == self.parent)
            and (self.memory is None or self.memory in t.inputs or self.memory in t.outputs)
            and (not self.failed or bool(t.failures))
        )


def intent_sort_key(it: Intent) -> tuple[float, str]:
    return (-it.priority, it.id)


# -- commands ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateIntent:
    scope: str
    label: str
    owner: str | None = None
    priority: float = 0.5
    parent: str | None = None
    memory_ids: tuple[str, ...] = ()
    reason: str = ""
    origin: str | None = None  # set by a slice import only (``reverie.memory.slice_agenda``)
    #: Who writes (set by ``VisibleStore``): a claim this principal may not see is named as one
    #: that does not exist, by the same check at the same point (no existence oracle).
    principal: str | None = None
    #: Hidden ids the principal's words quote (set by ``VisibleStore``; kept in ``Intent.unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MoveIntent:
    """``move`` is a key of ``INTENT_MOVES``; ``expected_version`` refuses a stale caller."""

    scope: str
    id: str
    move: str
    reason: str = ""
    expected_version: int | None = None
    #: The most moves the intent may make (``Limits.max_record_moves``, set by ``mem.intents``);
    #: None: unbounded (a caller building commands itself).
    max_moves: int | None = None
    #: Hidden ids the principal's reason quotes (set by ``VisibleStore``; added to ``Intent.unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CreateTask:
    scope: str
    action: str
    intent: str | None = None
    agent: str | None = None
    parent: str | None = None
    inputs: tuple[str, ...] = ()
    origin: str | None = None  # set by a slice import only (``reverie.memory.slice_agenda``)
    #: Who writes (set by ``VisibleStore``): a claim this principal may not see is named as one
    #: that does not exist, by the same check at the same point (no existence oracle).
    principal: str | None = None
    #: Hidden ids the principal's words quote (set by ``VisibleStore``; kept in ``Task.unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MoveTask:
    """``move`` is a key of ``TASK_MOVES``; ``outputs`` only with ``complete``, ``reason`` required by ``fail``."""

    scope: str
    id: str
    move: str
    reason: str = ""
    outputs: tuple[str, ...] = ()
    expected_version: int | None = None
    #: Who writes (set by ``VisibleStore``): a claim this principal may not see is named as one
    #: that does not exist, by the same check at the same point (no existence oracle).
    principal: str | None = None
    #: The most moves the task may make (``Limits.max_record_moves``, set by ``mem.tasks``);
    #: None: unbounded (a caller building commands itself).
    max_moves: int | None = None
    #: Hidden ids the principal's reason quotes (set by ``VisibleStore``; added to ``Task.unseen``).
    unseen: tuple[str, ...] = ()


AGENDA_COMMANDS = (CreateIntent, MoveIntent, CreateTask, MoveTask)


# -- projection changes --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PutIntent:
    intent: Intent


@dataclass(frozen=True, slots=True)
class PutTask:
    task: Task


AgendaChange = PutIntent | PutTask
#: An intent or a task: what a move's shared steps take and give back (``moved``, ``_applied``).
RecordT = TypeVar("RecordT", Intent, Task)


def is_agenda_event(event_type: str) -> bool:
    return event_type.startswith(("intent.", "task."))


#: Reads a record as it stands before an event is applied: ``(scope, id) -> record | None``.
TaskReader = Callable[[str, str], "Task | None"]
IntentReader = Callable[[str, str], "Intent | None"]
#: The fields every move's delta sets (a task's moves add their own: attempts, failure, outputs).
_DELTA_SET = ("status", "reason", "version", "updated_at")


def is_move_delta(payload: Mapping[str, Any]) -> bool:
    """Whether an ``intent.*`` / ``task.*`` payload carries a move's delta (else the whole record, as
    creations and older logs' moves do)."""
    return payload.get("delta") is True


def _delta(after: Intent | Task) -> dict[str, Any]:
    """What every move changes: status, reason, version, time (with the record's id and scope)."""
    whole = after.to_dict()
    return {"id": after.id, "scope": after.scope, **{k: whole[k] for k in _DELTA_SET}}


def _payload(key: str, delta: dict[str, Any], unseen: Sequence[str]) -> dict[str, Any]:
    if unseen:  # the blind quotes of this move's reason (the record's ``unseen`` gains them)
        delta["unseen"] = sorted(set(unseen))
    return {key: delta, "delta": True}


def _applied(before: RecordT, delta: Mapping[str, Any]) -> RecordT:
    """``before`` with the fields every move's delta sets (``_delta``) applied."""
    return replace(
        before,
        status=str(delta["status"]),
        reason=str(delta.get("reason") or ""),
        version=int(delta["version"]),
        updated_at=from_iso(str(delta["updated_at"])),
        unseen=unseen_union(before.unseen, _ids(delta.get("unseen"))),
    )


def moved(record: RecordT, status: str, reason: str, at: datetime, unseen: Sequence[str]) -> RecordT:
    """``record`` after a move to ``status``: what every intent or task move changes (a task's move
    then adds its own: an attempt, a failure, outputs). The delta ``_delta`` writes is exactly this."""
    return replace(
        record,
        status=status,
        reason=reason,
        updated_at=at,
        version=record.version + 1,
        unseen=unseen_union(record.unseen, tuple(unseen)),
    )


def intent_move_payload(after: Intent, unseen: Sequence[str] = ()) -> dict[str, Any]:
    """The payload of an intent's move that led to ``after``: only what it changed (no label,
    owner, priority or claim ids, which no move changes), so its size does not grow with them."""
    return _payload("intent", _delta(after), unseen)


def apply_intent_delta(before: Intent, delta: Mapping[str, Any]) -> Intent:
    """``before`` with a move's ``delta`` (``intent_move_payload``'s ``"intent"``) applied."""
    return _applied(before, delta)


def task_move_payload(before: Task, after: Task, unseen: Sequence[str] = ()) -> dict[str, Any]:
    """The payload of the move that took ``before`` to ``after``: only what it changed.

    Its size does not depend on how many moves the task made before (see the module docstring).
    """
    delta = _delta(after)
    if after.attempts != before.attempts:
        delta["attempts"] = after.attempts
    if len(after.failures) > len(before.failures):
        delta["failure"] = after.failures[-1].to_dict()
    added = [o for o in after.outputs if o not in before.outputs]
    if added:
        delta["outputs"] = added
    return _payload("task", delta, unseen)


def apply_task_delta(before: Task, delta: Mapping[str, Any]) -> Task:
    """``before`` with a move's ``delta`` (``task_move_payload``'s ``"task"``) applied."""
    failure = delta.get("failure")
    return replace(
        _applied(before, delta),
        attempts=int(delta.get("attempts", before.attempts)),
        failures=before.failures if failure is None else (*before.failures, Failure.from_dict(failure)),
        outputs=tuple(dict.fromkeys((*before.outputs, *_ids(delta.get("outputs"))))),
    )


def _before(event_type: str, delta: Mapping[str, Any], read: Callable[[str, str], RecordT | None] | None) -> RecordT:
    before = None if read is None else read(str(delta["scope"]), str(delta["id"]))
    if before is None:  # pragma: no cover - the reducer moves only a record that exists
        raise LookupError(f"a {event_type} event moves {delta['id']}, which is not recorded before it")
    return before


def project_agenda(
    event_type: str,
    payload: Mapping[str, Any],
    task: TaskReader | None = None,
    intent: IntentReader | None = None,
) -> list[AgendaChange]:
    """The change an intent or task event makes: its record, whole.

    A whole-record event needs no reads; a move's delta is applied to the record as ``intent`` /
    ``task`` reads it (the row as the store holds it, inside the write or the rebuild).
    """
    if event_type in INTENT_EVENTS:
        if not is_move_delta(payload):
            return [PutIntent(Intent.from_dict(payload["intent"]))]
        delta = payload["intent"]
        return [PutIntent(apply_intent_delta(_before(event_type, delta, intent), delta))]
    if event_type in TASK_EVENTS:
        if not is_move_delta(payload):
            return [PutTask(Task.from_dict(payload["task"]))]
        delta = payload["task"]
        return [PutTask(apply_task_delta(_before(event_type, delta, task), delta))]
    return []  # a future agenda event type: skipped, never fatal for replay


def agenda_record_id(payload: Mapping[str, Any]) -> str | None:
    """The intent or task id an agenda event is about (``history`` finds its events by it)."""
    for key in ("intent", "task"):
        rec = payload.get(key)
        if isinstance(rec, Mapping) and "id" in rec:
            return str(rec["id"])
    return None


def agenda_problems(
    events: Iterable[tuple[str, Mapping[str, Any]]],
    intents: Mapping[tuple[str, str], Intent],
    tasks: Mapping[tuple[str, str], Task],
) -> list[str]:
    """How the intent and task rows differ from what the log says (``doctor``): empty if they agree.

    ``events`` are the (type, payload) of every agenda event in log order; the last one about a
    record is what its row must hold.
    """
    want_i: dict[tuple[str, str], Intent] = {}
    want_t: dict[tuple[str, str], Task] = {}

    def task(scope: str, task_id: str) -> Task | None:
        return want_t.get((scope, task_id))

    def intent(scope: str, intent_id: str) -> Intent | None:
        return want_i.get((scope, intent_id))

    for event_type, payload in events:
        for change in project_agenda(event_type, payload, task, intent):
            if isinstance(change, PutIntent):
                want_i[(change.intent.scope, change.intent.id)] = change.intent
            else:
                want_t[(change.task.scope, change.task.id)] = change.task
    problems: list[str] = []
    for what, want, have in (("intent", want_i, intents), ("task", want_t, tasks)):
        wrong = sorted(k[1] for k in set(want) | set(have) if want.get(k) != have.get(k))
        if wrong:
            problems.append(f"{len(wrong)} {what} rows disagree with the log (first: {wrong[0]}); run rebuild")
    return problems
