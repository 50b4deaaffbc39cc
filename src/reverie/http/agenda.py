"""``/v1/scopes/{scope}/intents`` and ``…/tasks``: intents and tasks over HTTP, one ``Memory`` call each.

No rule of its own: ``mem.intents`` / ``mem.tasks`` check every argument, and their
``ReverieError`` becomes the one error shape (an invalid move is 409 ``invalid_transition``, an
intent of another scope 404 ``not_found``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from reverie.errors import NotFoundError
from reverie.http.api import ERRORS, Mem, ScopeName
from reverie.http.jsonbody import StrictJSONRoute
from reverie.http.schemas import IN_CONFIG
from reverie.model.agenda import Intent, Task

router = APIRouter(
    prefix="/v1/scopes/{scope}", responses=ERRORS, tags=["intents and tasks"], route_class=StrictJSONRoute
)

IntentId = Annotated[str, Path(description="The intent's id (IntentOut.id).")]
TaskId = Annotated[str, Path(description="The task's id (TaskOut.id).")]
Owner = Annotated[str | None, Query(description="Only intents this owner pursues.")]
Agent = Annotated[str | None, Query(description="Only tasks this agent does.")]
ParentIntent = Annotated[str | None, Query(description="Only sub-intents of this intent (its id).")]
ParentTask = Annotated[str | None, Query(description="Only subtasks of this task (its id).")]
OfIntent = Annotated[str | None, Query(description="Only tasks serving this intent (its id).")]
MinPriority = Annotated[float | None, Query(description="Only intents with priority >= this, in [0, 1].")]
Limit = Annotated[int | None, Query(description="At most this many (default 100, at most Limits.max_k).")]
K = Annotated[int | None, Query(description="At most this many suggestions (default 10).")]
IntentMove = Annotated[
    Literal["pause", "resume", "complete", "cancel"],
    Path(description="pause (active → paused), resume (paused → active), complete or cancel (final)."),
]
TaskMove = Annotated[
    Literal["start", "complete", "fail", "retry"],
    Path(description="start (pending → running), complete, fail (reason required) or retry (failed → running)."),
]
_REASON = "Why (kept in its history)."
_VERSION = "Refuse (409 version_conflict) unless the record is at this version."


class _In(BaseModel):
    model_config = IN_CONFIG  # no unknown field, no coercion (see reverie.http.schemas)


class IntentIn(_In):
    label: str = Field(description="What is wanted.")
    owner: str | None = Field(None, description="Who pursues it.")
    priority: float = Field(0.5, description="In [0, 1]; higher first.")
    parent: str | None = Field(None, description="Make it a sub-intent of this open intent.")
    memory_ids: list[str] = Field(default_factory=list, description="Claims of the scope it is about.")
    reason: str = Field("", description=_REASON)


class TaskIn(_In):
    action: str = Field(description="What is done.")
    intent: str | None = Field(None, description="The open intent of this scope it serves.")
    agent: str | None = Field(None, description="Who does it.")
    inputs: list[str] = Field(default_factory=list, description="Claims of the scope it works from.")
    parent: str | None = Field(None, description="Make it a subtask of this task.")


class MoveIn(_In):
    reason: str = Field("", description=_REASON + " Required by fail.")
    expected_version: int | None = Field(None, description=_VERSION)


class TaskMoveIn(MoveIn):
    outputs: list[str] = Field(default_factory=list, description="With complete: claims of the scope it produced.")


class IntentOut(BaseModel):
    id: str
    scope: str
    label: str
    status: Literal["active", "paused", "completed", "cancelled"]
    owner: str | None
    priority: float
    parent: str | None
    memory_ids: list[str]
    reason: str
    version: int
    created_at: str
    updated_at: str


class FailureOut(BaseModel):
    attempt: int
    reason: str
    at: str


class TaskOut(BaseModel):
    id: str
    scope: str
    action: str
    status: Literal["pending", "running", "completed", "failed"]
    intent: str | None
    agent: str | None
    parent: str | None
    inputs: list[str]
    outputs: list[str]
    attempts: int
    failures: list[FailureOut]
    reason: str
    version: int
    created_at: str
    updated_at: str


class IntentsOut(BaseModel):
    intents: list[IntentOut]


class TasksOut(BaseModel):
    tasks: list[TaskOut]


class EventOut(BaseModel):
    seq: int
    id: str
    type: str
    at: str
    cause: str
    payload: dict[str, Any]


class IntentDetailOut(BaseModel):
    intent: IntentOut
    children: list[IntentOut]
    tasks: list[TaskOut]
    history: list[EventOut]


class TaskDetailOut(BaseModel):
    task: TaskOut
    subtasks: list[TaskOut]
    history: list[EventOut]


class SuggestionOut(BaseModel):
    label: str
    priority: float
    reason: str
    memory_ids: list[str]
    text: str = Field(description="The claim's text, for display (the intent names it by id only).")


class SuggestionsOut(BaseModel):
    suggestions: list[SuggestionOut]


class AcceptIn(_In):
    memory_id: str = Field(description="The claim of a suggestion (SuggestionOut.memory_ids[0]).")
    owner: str | None = Field(None, description="Owner of the intent created.")


def _intent(it: Intent) -> IntentOut:
    return IntentOut.model_validate(it.to_dict())


def _task(t: Task) -> TaskOut:
    return TaskOut.model_validate(t.to_dict())


def _event(e: Any) -> EventOut:
    return EventOut.model_validate(e.to_dict())


# -- intents --------------------------------------------------------------------------------------
@router.post("/intents", status_code=201, response_model=IntentOut, summary="Create an intent")
def create_intent(scope: ScopeName, body: IntentIn, mem: Mem) -> IntentOut:
    """A new active intent (201); a parent or claim not in the scope is 404."""
    return _intent(mem.intents.create(body.label, scope=scope, **body.model_dump(exclude={"label"})))


@router.get("/intents", response_model=IntentsOut, summary="List intents")
def list_intents(
    scope: ScopeName,
    mem: Mem,
    status: Annotated[list[str], Query(description="active, paused, completed, cancelled (repeat)")] = [],  # noqa: B006
    owner: Owner = None,
    parent: ParentIntent = None,
    memory: Annotated[str | None, Query(description="Only intents about this claim.")] = None,
    min_priority: MinPriority = None,
    limit: Limit = None,
) -> IntentsOut:
    """The scope's intents matching every given filter, highest priority first."""
    found = mem.intents.list(
        scope=scope,
        status=status or None,
        owner=owner,
        parent=parent,
        memory=memory,
        min_priority=min_priority,
        limit=limit,
    )
    return IntentsOut(intents=[_intent(i) for i in found])


@router.get("/intents/suggestions", response_model=SuggestionsOut, summary="Suggested intents")
def suggest_intents(scope: ScopeName, mem: Mem, k: K = None) -> SuggestionsOut:
    """Important-but-uncertain claims (the thinking queue) as intents; nothing is written."""
    found = mem.intents.suggest(scope=scope, k=k)
    return SuggestionsOut(suggestions=[SuggestionOut.model_validate(s.to_dict()) for s in found])


@router.post("/intents/suggestions/accept", status_code=201, response_model=IntentOut, summary="Accept a suggestion")
def accept_suggestion(scope: ScopeName, body: AcceptIn, mem: Mem) -> IntentOut:
    """Create the intent suggested for ``memory_id`` (404 if it is not suggested now)."""
    for s in mem.intents.suggest(scope=scope, k=mem.limits.max_k):
        if s.memory_ids == (body.memory_id,):
            return _intent(mem.intents.accept(s, owner=body.owner))
    raise NotFoundError(f"no intent is suggested for claim {body.memory_id} in scope {scope!r}")


@router.get("/intents/{intent_id}", response_model=IntentDetailOut, summary="An intent")
def get_intent(scope: ScopeName, intent_id: IntentId, mem: Mem) -> IntentDetailOut:
    """The intent, its sub-intents, its tasks and its history."""
    it = mem.intents.get(intent_id, scope=scope)
    return IntentDetailOut(
        intent=_intent(it),
        children=[_intent(c) for c in mem.intents.children(it, scope=scope)],
        tasks=[_task(t) for t in mem.tasks.list(scope=scope, intent=it.id, limit=mem.limits.max_k)],
        history=[_event(e) for e in mem.intents.history(it, scope=scope)],
    )


@router.post("/intents/{intent_id}/{move}", response_model=IntentOut, summary="Move an intent")
def move_intent(
    scope: ScopeName,
    intent_id: IntentId,
    move: IntentMove,
    body: MoveIn,
    mem: Mem,
) -> IntentOut:
    """pause (active → paused), resume (paused → active), complete / cancel (→ final); 409 otherwise."""
    moved = mem.intents.transition(
        intent_id, move, scope=scope, reason=body.reason, expected_version=body.expected_version
    )
    return _intent(moved)


# -- tasks ----------------------------------------------------------------------------------------
@router.post("/tasks", status_code=201, response_model=TaskOut, summary="Create a task")
def create_task(scope: ScopeName, body: TaskIn, mem: Mem) -> TaskOut:
    """A new pending task (201); an intent, parent or claim not in the scope is 404."""
    return _task(mem.tasks.create(body.action, scope=scope, **body.model_dump(exclude={"action"})))


@router.get("/tasks", response_model=TasksOut, summary="List tasks")
def list_tasks(
    scope: ScopeName,
    mem: Mem,
    intent: OfIntent = None,
    agent: Agent = None,
    status: Annotated[list[str], Query(description="pending, running, completed, failed (repeat)")] = [],  # noqa: B006
    parent: ParentTask = None,
    memory: Annotated[str | None, Query(description="Only tasks that took or produced this claim.")] = None,
    failed: Annotated[bool, Query(description="Only tasks with a failed attempt on record.")] = False,
    limit: Limit = None,
) -> TasksOut:
    """The scope's tasks matching every given filter, oldest first."""
    found = mem.tasks.list(
        scope=scope,
        intent=intent,
        agent=agent,
        status=status or None,
        parent=parent,
        memory=memory,
        failed=failed,
        limit=limit,
    )
    return TasksOut(tasks=[_task(t) for t in found])


@router.get("/tasks/{task_id}", response_model=TaskDetailOut, summary="A task")
def get_task(scope: ScopeName, task_id: TaskId, mem: Mem) -> TaskDetailOut:
    """The task, its subtasks and its history (every attempt and failure)."""
    t = mem.tasks.get(task_id, scope=scope)
    return TaskDetailOut(
        task=_task(t),
        subtasks=[_task(x) for x in mem.tasks.subtasks(t, scope=scope)],
        history=[_event(e) for e in mem.tasks.history(t, scope=scope)],
    )


@router.post("/tasks/{task_id}/{move}", response_model=TaskOut, summary="Move a task")
def move_task(
    scope: ScopeName,
    task_id: TaskId,
    move: TaskMove,
    body: TaskMoveIn,
    mem: Mem,
) -> TaskOut:
    """start (pending → running), complete (with outputs) / fail (with a reason), retry (failed → running)."""
    moved = mem.tasks.transition(
        task_id,
        move,
        scope=scope,
        reason=body.reason,
        outputs=body.outputs,
        expected_version=body.expected_version,
    )
    return _task(moved)
