"""Pydantic request and response models: they give the HTTP face a real OpenAPI document.

The models only describe shapes; every semantic check (score ranges, text length, scope
syntax, Limits bounds) stays in ``Memory`` so the HTTP face can never drift from the Python
one. Times go out exactly as ``Item.to_dict`` renders them (ISO-8601 UTC strings).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, StrictBool

from reverie.model.item import TIERS
from reverie.model.query_json import FILTER_DESCRIPTION
from reverie.recall.engine import CONTRADICTION_MODES, MODES
from reverie.recall.options_json import DESCRIPTIONS as RECALL_DOCS
from reverie.recall.shortcuts import SHORTCUT_DOCS

#: Request bodies reject unknown fields (a typo must never silently do nothing) and coerce no
#: value: lax pydantic read ``"0.5"`` as a score, ``true`` as the value ``1`` and ``2.0`` as a
#: count of 2 — input ``Memory`` refuses from Python and MCP — so a JSON body now reaches
#: ``Memory``'s own checks as the number, bool or string it was.
IN_CONFIG = ConfigDict(extra="forbid", strict=True)
#: A time in a body: JSON has no time type, so an ISO-8601 string is the one lax field (parsed
#: here; ``Memory`` still refuses a naive one where it must be aware).
Time = Annotated[datetime, Strict(False)]
Scalar = str | int | float | None
Tier = Literal["active", "durable", "subconscious"]
#: The description of a count (``{default}`` filled in). Leave it out, not a default of yours:
#: ``Memory`` clamps its own default to ``Limits.max_k`` but refuses a given count above it.
COUNT_DOC = "At most this many (default {default}, or Limits.max_k if lower; more than Limits.max_k is refused)."


class _In(BaseModel):
    """Request bodies: no unknown field, no coercion (``IN_CONFIG``)."""

    model_config = IN_CONFIG


class ErrorOut(BaseModel):
    """The one error shape every failure path returns."""

    code: str = Field(description="Stable machine-readable code (e.g. invalid_input, not_found): switch on this.")
    error: str = Field(description="What was wrong and how to fix it, for people.")
    status: int = Field(description="The HTTP status, repeated.")


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
    value: str | int | float | None = None  # as given: a number stays a number (reverie.model.values)
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
    visibility: list[str] | None = Field(
        None, description="Only these principals may see it; null: everyone in the scope (what a write takes)."
    )


class WriteConflictOut(BaseModel):
    """One contradiction a write created: a ``contradicts`` link from the new claim to ``other_id``."""

    edge_id: str = Field(description="The contradicts edge (resolve it at /contradictions/{edge_id}/resolve).")
    other_id: str = Field(description="The current claim the new one contradicts.")
    axis: str = Field(description="What disagrees: polarity, numeric, entity, temporal, ...")
    reason: str
    confidence: float


class WrittenOut(ItemOut):
    """The item a remember / revise stored, plus the contradictions that write created (additive fields)."""

    conflicts: list[WriteConflictOut] = Field(
        default=[], description="Current claims the new one contradicts, found as it was written."
    )
    conflicts_checked: bool = Field(
        default=True, description="False when detection did not run yet (the next dream pass runs it)."
    )


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
    not_yet_valid: int = Field(
        description="Believed claims whose validity starts after now (left out of list and recall)."
    )
    ended: int = Field(description="Believed claims whose validity has ended (left out of list and recall).")
    tombstones: int
    learning_paused: bool
    pending_uses: int = Field(
        description="Recalls whose use (which items they returned) waits to be written because another writer "
        "held the store's lock (Memory.pending_uses): of this server, or with principals of the caller's own "
        "view (the operator's token: all of them). Written by the next recall or write that gets the lock."
    )


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


class DoneOut(BaseModel):
    ok: bool = True


class DreamOut(BaseModel):
    report: Any = None


class ScopesOut(BaseModel):
    scopes: list[str] = Field(
        description="Every scope that holds anything (items, intents, tasks, conversations), sorted."
    )


class DreamRunsOut(BaseModel):
    """Recorded passes over the scope, newest first (``Memory.dream_runs``): summaries, no action lists."""

    runs: list[dict[str, Any]]


# -- requests ------------------------------------------------------------------------------
# Every field carries a description: /openapi.json and the /docs page are generated from them.
SCORE_DOC = "In [0, 1]; leave it out for the default of this kind and source."
REASON_DOC = "Why (kept in the event log and shown in the item's history)."
VERSION_DOC = (
    "The version you read (ItemOut.version): refused with 409 version_conflict if the item changed since. "
    "Leave it out to skip the check."
)


class ProvenanceIn(_In):
    """Where the claim came from. ``origin`` defaults to ``http`` for writes made through this API."""

    origin: str | None = Field(
        None,
        description="The kind of source, e.g. conversation, document, tool, import; default 'http' (this API).",
    )
    ref: str | None = Field(None, description="Which one: a conversation id, a URL, a file name.")
    locator: str | None = Field(None, description="A place inside it: a turn id, a line, a page.")


class RememberIn(_In):
    text: str = Field(description="The claim, in words (what recall searches).")
    kind: str = Field("observation", description="What sort of claim: observation, preference, trait, event, ...")
    source: Literal["user_stated", "observed", "inferred"] = Field(
        "observed",
        description="How it was learned: the person said it, the agent saw it, or the agent inferred it "
        "('manual' comes only from a person's promotion on the review page).",
    )
    key: str | None = Field(None, description="A slot such as 'alice.drink': one key with two values conflicts.")
    value: Scalar = Field(None, description="The value for key (string, number or null).")
    author: str | None = Field(None, description="Who made the claim (a person or agent name).")
    tags: list[str] = Field([], description="Free labels, filterable with tag=.")
    meta: dict[str, Any] | None = Field(None, description="Any JSON object kept with the claim (not searched).")
    parents: list[str] = Field([], description="Ids of the items this one was derived from.")
    provenance: ProvenanceIn | None = Field(None, description="Where it came from (origin defaults to 'http').")
    authority: float | None = Field(None, description="How much to trust the source. " + SCORE_DOC)
    confidence: float | None = Field(None, description="How sure the claim is. " + SCORE_DOC)
    importance: float | None = Field(None, description="How much it matters. " + SCORE_DOC)
    durability: float | None = Field(None, description="How slowly it should fade. " + SCORE_DOC)
    valid_from: Time | None = Field(None, description="When it became true (ISO-8601 with a timezone).")
    valid_to: Time | None = Field(None, description="When it stops being true (ISO-8601 with a timezone).")
    visibility: list[str] | None = Field(
        None, description="Only these principals may see it (e.g. ['agent:ops']); leave out for everyone in the scope."
    )


class ReviseIn(_In):
    text: str = Field(description="The corrected claim; the old version is kept in the history.")
    reason: str = Field("", description=REASON_DOC)
    key: str | None = Field(None, description="A new key (leave out to keep the old one).")
    value: Scalar = Field(None, description="A new value for the key (leave out to keep the old one).")
    expected_version: int | None = Field(None, description=VERSION_DOC)
    valid_from: Time | None = Field(
        None,
        description="The world changed then: the old version stays true until this time (leave out for a correction).",
    )
    valid_to: Time | None = Field(
        None, description="When the new version stops being true (ISO-8601 with a timezone; leave out: open-ended)."
    )


class ForgetIn(_In):
    reason: str = Field("", description=REASON_DOC)
    expected_version: int | None = Field(None, description=VERSION_DOC)
    purge: StrictBool = Field(
        default=False,
        description="Erase the content from disk too (text, meta, tags, event payloads); only id and times remain.",
    )


class ReasonIn(_In):
    reason: str = Field("", description=REASON_DOC)


class UndismissIn(_In):
    text: str | None = Field(None, description="The dismissed text, exactly as it was remembered.")
    key: str | None = Field(None, description="Or the dismissed key (with value).")
    value: Scalar = Field(None, description="The dismissed value of key.")
    reason: str = Field("", description=REASON_DOC)


class LinkIn(_In):
    src: str = Field(description="The id of the item the edge starts from.")
    dst: str = Field(description="The id of the item it points to.")
    type: Literal["supports", "contradicts", "supersedes", "alias", "derived_from", "about"] = Field(
        description="What src says about dst."
    )
    author: str | None = Field(None, description="Who asserts the link.")
    authority: float = Field(0.5, description="How much to trust the link, in [0, 1].")
    meta: dict[str, Any] | None = Field(None, description="Any JSON object kept with the edge.")


class RecallOptionsIn(_In):
    """Recall's options, shared by ``RecallIn`` and ``ContextIn`` as ``Memory.context`` takes recall's.

    The names and words are ``reverie.recall.options_json``'s, which MCP and the CLI use too;
    ``tests/test_face_options.py`` compares them to ``Memory.recall``'s signature.
    """

    # mode, contradictions and tiers list their choices (enum) but take any string: ``Memory`` refuses a
    # bad one, in the words Python, the CLI and MCP use (pydantic's "Input should be ..." was this face's own).
    mode: str = Field("hybrid", description=RECALL_DOCS["mode"], json_schema_extra={"enum": list(MODES)})
    as_of: Time | None = Field(None, description=RECALL_DOCS["as_of"])
    valid_at: Time | None = Field(None, description=RECALL_DOCS["valid_at"])
    include_history: bool = Field(False, description=RECALL_DOCS["include_history"])
    tiers: list[str] = Field(
        default_factory=lambda: ["active", "durable"],
        description=RECALL_DOCS["tiers"],
        json_schema_extra={"items": {"type": "string", "enum": list(TIERS)}},
    )
    contradictions: str = Field(
        "surface", description=RECALL_DOCS["contradictions"], json_schema_extra={"enum": list(CONTRADICTION_MODES)}
    )
    weights: dict[str, Any] | None = Field(None, description=RECALL_DOCS["weights"])
    diversity: dict[str, Any] | None = Field(None, description=RECALL_DOCS["diversity"])
    min_authority: float = Field(0.0, description=RECALL_DOCS["min_authority"])
    record_use: bool = Field(True, description=RECALL_DOCS["record_use"])
    kind: str | list[str] = Field([], description=SHORTCUT_DOCS["kind"])
    source: str | list[str] = Field([], description=SHORTCUT_DOCS["source"])
    tag: str | list[str] = Field([], description=SHORTCUT_DOCS["tag"])
    where: dict[str, Any] | None = Field(None, description=FILTER_DESCRIPTION + " AND-ed with kind / source / tag.")


class RecallIn(RecallOptionsIn):
    """A recall: the query, how many hits, and recall's options."""

    query: str = Field(description="What to recall, in words.")
    k: int | None = Field(None, description=COUNT_DOC.format(default=10))


class ContextIn(RecallOptionsIn):
    """A prompt block: the query, the token budget, how many candidates, and recall's options."""

    query: str = Field(description="What the prompt is about, in words.")
    budget_tokens: int = Field(800, description="The most tokens the packed block may use.")
    k: int | None = Field(None, description="Memories considered before packing. " + COUNT_DOC.format(default=50))


class ResolveIn(_In):
    keep: str = Field(description="The id of the side that stays true; the other is superseded.")
    reason: str = Field("", description=REASON_DOC)
