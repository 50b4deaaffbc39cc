"""Pydantic request and response models: they give the HTTP face a real OpenAPI document.

The models only describe shapes; every semantic check (score ranges, text length, scope
syntax, Limits bounds) stays in ``Memory`` so the HTTP face can never drift from the Python
one. Times go out exactly as ``Item.to_dict`` renders them (ISO-8601 UTC strings).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from reverie.model.query_json import FILTER_DESCRIPTION

Scalar = str | int | float | None
Tier = Literal["active", "durable", "subconscious"]
#: The description of a count (``{default}`` filled in). Leave it out, not a default of yours:
#: ``Memory`` clamps its own default to ``Limits.max_k`` but refuses a given count above it.
COUNT_DOC = "At most this many (default {default}, or Limits.max_k if lower; more than Limits.max_k is refused)."


class _In(BaseModel):
    """Request bodies reject unknown fields, so a typo never silently does nothing."""

    model_config = ConfigDict(extra="forbid")


class ErrorOut(BaseModel):
    """The one error shape every failure path returns."""

    code: str
    error: str
    status: int


class ProvenanceModel(BaseModel):
    origin: str = "api"
    ref: str | None = None
    locator: str | None = None
    event_id: str | None = None


class ScoresOut(BaseModel):
    authority: float
    confidence: float
    importance: float
    durability: float
    value: float


class ItemOut(BaseModel):
    id: str
    scope: str
    text: str
    kind: str
    source: str
    recorded_at: str
    updated_at: str
    key: str | None = None
    value: str | None = None
    author: str | None = None
    tags: list[str] = []
    meta: dict[str, Any] = {}
    parents: list[str] = []
    provenance: ProvenanceModel
    scores: ScoresOut
    evidence_count: int
    tier: str
    status: str
    flags: list[str] = []
    valid_from: str | None = None
    valid_to: str | None = None
    closed_at: str | None = None
    last_seen_at: str | None = None
    last_used_at: str | None = None
    last_used_query: str | None = None
    use_count: int
    version: int


class EdgeOut(BaseModel):
    id: str
    scope: str
    type: str
    src: str
    dst: str
    recorded_at: str
    author: str | None = None
    authority: float
    meta: dict[str, Any] = {}
    closed_at: str | None = None


class EventOut(BaseModel):
    seq: int
    id: str
    type: str
    scope: str
    at: str
    cause: str
    payload: dict[str, Any] = {}


class PageOut(BaseModel):
    items: list[ItemOut]
    next_cursor: str | None = None


class HistoryOut(BaseModel):
    versions: list[ItemOut]
    events: list[EventOut]


class HitOut(BaseModel):
    item: ItemOut
    score: float
    why: dict[str, Any]
    contradicted_by: list[str] = []
    asserted: bool


class RecallOut(BaseModel):
    hits: list[HitOut]


class ContextOut(BaseModel):
    context: str


class SummaryOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    scope: str
    current: int
    active: int
    subconscious: int
    by_tier: dict[str, int]
    by_kind: dict[str, int]
    by_source: dict[str, int]
    dismissed: int
    forgotten: int
    superseded: int
    tombstones: int
    learning_paused: bool


class SideOut(BaseModel):
    id: str
    text: str
    source: str
    authority: float


class ContradictionOut(BaseModel):
    edge_id: str
    a: SideOut
    b: SideOut
    axis: str
    confidence: float
    reason: str
    established: float
    alert: bool
    hypercorrection: bool
    supersession_candidate: bool


class ContradictionsOut(BaseModel):
    contradictions: list[ContradictionOut]


class OkOut(BaseModel):
    ok: bool = True
    learning_paused: bool


class DreamOut(BaseModel):
    report: Any = None


class DreamRunsOut(BaseModel):
    """Recorded passes over the scope, newest first (``Memory.dream_runs``): summaries, no action lists."""

    runs: list[dict[str, Any]]


# -- requests ------------------------------------------------------------------------------
class RememberIn(_In):
    text: str
    kind: str = "observation"
    source: Literal["user_stated", "observed", "inferred"] = "observed"
    key: str | None = None
    value: Scalar = None
    author: str | None = None
    tags: list[str] = []
    meta: dict[str, Any] | None = None
    parents: list[str] = []
    provenance: ProvenanceModel | None = None
    authority: float | None = None
    confidence: float | None = None
    importance: float | None = None
    durability: float | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


class ReviseIn(_In):
    text: str
    reason: str = ""
    key: str | None = None
    value: Scalar = None
    expected_version: int | None = None
    valid_from: datetime | None = Field(None, description="The world changed then (else: a correction).")


class ForgetIn(_In):
    reason: str = ""
    expected_version: int | None = None
    purge: StrictBool = Field(
        default=False,
        description="Erase the content from disk too (text, meta, tags, event payloads); only id and times remain.",
    )


class ReasonIn(_In):
    reason: str = ""


class LinkIn(_In):
    src: str
    dst: str
    type: Literal["supports", "contradicts", "supersedes", "alias", "derived_from", "about"]
    author: str | None = None
    authority: float = 0.5
    meta: dict[str, Any] | None = None


class RecallIn(_In):
    query: str
    k: int | None = Field(None, description=COUNT_DOC.format(default=10))
    mode: Literal["hybrid", "lexical", "dense"] = "hybrid"
    as_of: datetime | None = None
    valid_at: datetime | None = Field(None, description="Only what was true in the world then (valid time).")
    include_history: bool = False
    tiers: list[Tier] = Field(default_factory=lambda: list[Tier](["active", "durable"]))
    contradictions: Literal["surface", "filter"] = "surface"
    min_authority: float = 0.0
    record_use: bool = True
    kind: list[str] = []
    source: list[str] = []
    tag: list[str] = []
    where: dict[str, Any] | None = Field(None, description=FILTER_DESCRIPTION + " AND-ed with kind / source / tag.")


class ContextIn(_In):
    query: str
    budget_tokens: int = 800
    k: int | None = Field(None, description=COUNT_DOC.format(default=50))


class ResolveIn(_In):
    keep: str
    reason: str = ""
