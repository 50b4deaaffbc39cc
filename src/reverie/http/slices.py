"""``/v1/scopes/{scope}/slices/…``: export a slice of a scope and import one (issue #18, transplant).

Thin over ``Memory.export_slice`` / ``Memory.import_slice``, like every route in ``api``: the
slice is checked by ``reverie.slice.format`` (one set of refusals for every face), and every
``ReverieError`` becomes the one error shape (400 ``invalid_slice``, 409 ``slice_conflict``).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from reverie.http.api import ERRORS, Mem, ScopeName
from reverie.http.jsonbody import StrictJSONRoute
from reverie.http.schemas import IN_CONFIG
from reverie.limits import CLOCK_SKEW_HELP

router = APIRouter(prefix="/v1/scopes/{scope}", responses=ERRORS, route_class=StrictJSONRoute)


class SliceExportIn(BaseModel):
    model_config = IN_CONFIG

    memory_ids: list[str] | None = Field(None, description="The items to export (default: every current item).")
    include_parents: bool = Field(True, description="Add the items' parents, transitively.")
    include_aliases: bool = Field(True, description="Add the items' aliases, transitively.")
    include_contradictions: bool = Field(True, description="Add the claims that contradict them (one hop).")
    include_intents: bool = Field(
        False, description="Add the intents about the items (every open one when memory_ids is omitted)."
    )
    include_tasks: bool = Field(
        False, description="Add the tasks that took or produced the items (every open one), with their intents."
    )
    include_conversations: bool = Field(
        False,
        description="Add the conversations of the items (every one when memory_ids is omitted), whole: entries, "
        "tool calls, summaries, recaps (format version 2).",
    )


class SliceImportIn(BaseModel):
    model_config = IN_CONFIG

    slice: dict[str, Any] = Field(description="A slice, as POST …/slices/export returns it.")
    on_conflict: Literal["report", "skip", "reid"] = Field(
        "report",
        description="A claim held here in other words: report (refuse, 409, write nothing), skip (keep ours), "
        "reid (import theirs as a new claim).",
    )
    allow_future: bool = Field(
        False,
        description="Import conversation messages dated later than the server's clock plus "
        f"{CLOCK_SKEW_HELP} as they are dated (default: refused with invalid_input, nothing written; such a "
        "conversation takes new messages once the clock passes them or they are purged).",
    )


@router.post("/slices/export", response_model=dict[str, Any], summary="Export a slice")
def export_slice(scope: ScopeName, body: SliceExportIn, mem: Mem) -> dict[str, Any]:
    """A versioned slice of the scope: the items, their parents, aliases and contradictions, the
    edges between them and, on request, the intents and tasks about them, as the receiving store
    will keep them. Reads only."""
    sl = mem.export_slice(
        scope=scope,
        memory_ids=body.memory_ids,
        include_parents=body.include_parents,
        include_aliases=body.include_aliases,
        include_contradictions=body.include_contradictions,
        include_intents=body.include_intents,
        include_tasks=body.include_tasks,
        include_conversations=body.include_conversations,
    )
    return sl.to_dict()


@router.post("/slices/import", response_model=dict[str, Any], summary="Import a slice")
def import_slice(scope: ScopeName, body: SliceImportIn, mem: Mem) -> dict[str, Any]:
    """Replay a slice into the scope in one transaction (all or nothing): claims arrive as source
    ``imported``; the report lists what was created, corroborated, skipped and in conflict."""
    report = mem.import_slice(body.slice, scope=scope, on_conflict=body.on_conflict, allow_future=body.allow_future)
    return report.to_dict()
