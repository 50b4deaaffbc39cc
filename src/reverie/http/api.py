"""``/v1/scopes/{scope}/…``: the JSON API, a thin adapter from HTTP to ``Memory`` calls.

Endpoints are plain ``def`` functions so FastAPI runs them in its threadpool: ``Memory`` is
synchronous and its SQLite store serialises writers behind a lock, so the event loop never
blocks on disk or on the embedder. No validation is duplicated here — ``Memory`` checks every
argument and its ``ReverieError`` becomes the error shape (see ``errors``). A count the client
leaves out (``limit``, ``k``) reaches ``Memory`` as ``None``, never as a default of ours, so its
own default applies, clamped to ``Limits.max_k``: a default sent from here was an explicit
count to ``Memory`` and was refused under a smaller ``max_k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from reverie.errors import InvalidQueryError, ReverieError
from reverie.http import schemas as s
from reverie.http.jsonbody import StrictJSONRoute
from reverie.http.scope_path import scope_param
from reverie.http.security import bearer_principal
from reverie.memory import Memory, WriteResult
from reverie.model.item import TIERS, Item
from reverie.model.query import Filter, Q
from reverie.model.query_json import FILTER_DESCRIPTION, parse_filter
from reverie.model.validate import load_json
from reverie.recall.engine import Hit
from reverie.recall.options_json import recall_args
from reverie.recall.shortcuts import shortcut_filter

#: The error statuses every operation may answer, each in the one shape (``ErrorOut``).
ERROR_STATUSES = {
    400: "Bad input (code invalid_input, invalid_scope, invalid_query, limit_exceeded or invalid_idempotency_key).",
    401: "No valid bearer token (only when the server has one).",
    403: "A cross-origin write from a browser (forbidden_origin), or a write to a store served read-only (read_only).",
    404: "No such item, edge or route in this scope.",
    405: "The route exists but not with this method.",
    409: "The write contradicts the current state (version_conflict, dismissed_value, learning_paused, ...), or "
    "its Idempotency-Key names another request (idempotency_key_reused), its first request is still running "
    "(idempotency_in_progress, with Retry-After) or was done but its response cannot be replayed "
    "(idempotency_unavailable).",
    413: "The body is larger than Limits.max_request_bytes.",
    415: "A write whose body is not JSON: send Content-Type: application/json.",
    500: "A bug: the details are in the server log, never in the response.",
    501: "This server has no such capability.",
}
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.ErrorOut, "description": text} for code, text in ERROR_STATUSES.items()
}
router = APIRouter(prefix="/v1/scopes/{scope}", responses=ERRORS, route_class=StrictJSONRoute)
#: Routes above any one scope (``GET /v1/scopes``).
top = APIRouter(prefix="/v1", responses=ERRORS, route_class=StrictJSONRoute)
#: Where an HTTP write says it came from, unless the client names another origin.
HTTP_ORIGIN = "http"


class NotImplementedReverieError(ReverieError):
    """This Memory has no such capability (e.g. no dream pass yet)."""

    code = "not_implemented"


def memory(request: Request) -> Memory:
    """The ``Memory`` this request acts on: its principal token's view (issue #14.8), else the
    server's own (the operator's token, or no token on loopback)."""
    mem: Memory = request.app.state.mem
    views: dict[str, Memory] = getattr(request.app.state, "views", {})
    if views:
        token = bearer_principal(request.headers, views)
        if token is not None:
            return views[token]
    return mem


Mem = Annotated[Memory, Depends(memory)]
ScopeName = Annotated[str, Depends(scope_param)]
"""The ``{scope}`` path segment, percent-decoded once (see ``scope_path``)."""
ItemId = Annotated[str, Path(description="The item's id (ItemOut.id).")]
EdgeId = Annotated[str, Path(description="The contradicts edge's id (ContradictionOut.edge_id).")]
AsOf = Annotated[datetime | None, Query(description="Read the state at this time (ISO-8601 with a timezone).")]
Kinds = Annotated[list[str], Query(description="Only these kinds (repeat for OR).")]
Sources = Annotated[list[str], Query(description="Only these sources (repeat for OR).")]
Tags = Annotated[list[str], Query(description="Only items with any of these tags (repeat).")]
#: Any string, the choices listed (enum): a typo is refused by the query algebra (``Q.tier``), in the
#: words MCP and the CLI use, not pydantic's "Input should be ..." (h-faces33).
Tiers = Annotated[
    list[str],
    Query(
        description="Only these tiers (repeat for OR): active, durable, subconscious; a typo is refused.",
        json_schema_extra={"items": {"type": "string", "enum": list(TIERS)}},
    ),
]


def item_out(item: Item) -> s.ItemOut:
    return s.ItemOut.model_validate(item.to_dict())


def written_out(result: WriteResult) -> s.WrittenOut:
    """A write's item with the contradictions it created: the item's fields, then ``conflicts``."""
    doc = result.to_dict()
    item = doc.pop("item")
    return s.WrittenOut.model_validate({**item, **doc})


def hit_out(hit: Hit) -> s.HitOut:
    return s.HitOut(
        item=item_out(hit.item),
        score=hit.score,
        why=hit.why,
        contradicted_by=list(hit.contradicted_by),
        asserted=hit.asserted,
    )


def simple_filter(
    kind: list[str],
    source: list[str],
    tag: list[str],
    tier: Sequence[str] = (),
    where: dict[str, Any] | None = None,
) -> Filter | None:
    """The query-string subset of ``reverie.Q`` (each field an OR of its values, fields AND-ed),
    AND-ed with ``where``, the whole algebra as JSON (``reverie.model.query_json``)."""
    parts: list[Filter] = [parse_filter(where)] if where is not None else []
    if kind:
        parts.append(Q.kind(*kind))
    if source:
        parts.append(Q.source(*source))
    if tag:
        parts.append(Q.tags_any(*tag))
    if tier:
        parts.append(Q.tier(*tier))
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = out & p
    return out


@top.get("/scopes", response_model=s.ScopesOut, summary="List scopes")
def scopes(mem: Mem) -> s.ScopesOut:
    """Every scope that holds anything (items, intents, tasks, conversations), sorted: for operators
    and tools (an agent should know its own scope). A caller with a principal is listed the scopes
    where it sees something.

    Each scope's routes live under ``/v1/scopes/{scope}/``, with the scope percent-encoded.
    """
    return s.ScopesOut(scopes=sorted(mem.scopes()))


@router.post("/items", status_code=201, response_model=s.WrittenOut, summary="Remember a claim")
def remember(scope: ScopeName, body: s.RememberIn, mem: Mem) -> s.WrittenOut:
    """Store a new claim in the scope and return it (201).

    A claim that repeats a current one reinforces it instead of duplicating it; one that contradicts
    another is linked to it (see ``/contradictions``), and ``conflicts`` names each such link at once.
    ``provenance.origin`` is ``http`` unless given.
    """
    fields = body.model_dump(exclude_none=True)
    fields["provenance"] = provenance(body.provenance)
    text = fields.pop("text")
    return written_out(mem.remember_checked(text, scope=scope, **fields))


def provenance(given: s.ProvenanceIn | None) -> dict[str, Any]:
    """The provenance of an HTTP write: what the client said, with ``origin`` ``http`` by default.

    Set here, in the HTTP layer: ``Memory`` cannot know which face a call came through.
    """
    fields = given.model_dump(exclude_none=True) if given is not None else {}
    fields.setdefault("origin", HTTP_ORIGIN)
    return fields


@router.get("/items", response_model=s.PageOut, summary="List items")
def list_items(
    scope: ScopeName,
    mem: Mem,
    kind: Kinds = [],  # noqa: B006 - FastAPI copies defaults
    source: Sources = [],  # noqa: B006
    tag: Tags = [],  # noqa: B006
    tier: Tiers = [],  # noqa: B006 - a closed set: a typo is refused, as by /recall
    where: Annotated[str | None, Query(description=FILTER_DESCRIPTION + " Sent as JSON text.")] = None,
    sort: Annotated[list[str], Query(description="Sort fields, '-' for descending (e.g. -importance).")] = [],  # noqa: B006
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=50))] = None,
    cursor: Annotated[str | None, Query(description="The next_cursor of the previous page.")] = None,
    include_closed: Annotated[bool, Query(description="Also list forgotten, dismissed and superseded items.")] = False,
    valid_at: Annotated[datetime | None, Query(description="Only what was true in the world then.")] = None,
) -> s.PageOut:
    """A page of the scope's items, filtered and sorted; follow ``next_cursor`` for the next page.

    No ranking and no use is recorded: this is browsing, not recall.
    """
    page = mem.list(
        scope=scope,
        where=simple_filter(kind, source, tag, tier, _json_filter(where)),
        sort=sort or None,
        limit=limit,
        cursor=cursor,
        include_closed=include_closed,
        valid_at=valid_at,
    )
    return s.PageOut(items=[item_out(i) for i in page.items], next_cursor=page.next_cursor)


def _json_filter(text: str | None) -> dict[str, Any] | None:
    """The ``where`` query parameter: a JSON filter as text (a query string cannot carry an object)."""
    if text is None:
        return None
    try:
        doc = load_json(text, "where", InvalidQueryError)
    except ReverieError:  # too deep, too long a number, a repeated key: already worded
        raise
    except ValueError:
        raise InvalidQueryError(f'where {text[:60]!r} is not JSON; send a filter such as {{"kind": "trait"}}') from None
    if not isinstance(doc, dict):
        raise InvalidQueryError("where must be a JSON object (a filter)")
    return doc


@router.get("/items/{item_id}", response_model=s.ItemOut, summary="Get an item")
def get_item(
    scope: ScopeName,
    item_id: ItemId,
    mem: Mem,
    as_of: AsOf = None,
    valid_at: Annotated[
        datetime | None, Query(description="The version that was true in the world then (combines with as_of).")
    ] = None,
) -> s.ItemOut:
    """One item as it is now (closed ones too), or as it was at ``as_of`` (404 if it did not exist then);
    ``valid_at`` picks the version of the claim that was true in the world at that time."""
    return item_out(mem.get(item_id, scope=scope, as_of=as_of, valid_at=valid_at))


@router.get("/items/{item_id}/history", response_model=s.HistoryOut, summary="An item's history")
def history(scope: ScopeName, item_id: ItemId, mem: Mem) -> s.HistoryOut:
    """Every version of the claim, oldest first, and the events that made them, each with its reason."""
    h = mem.history(item_id, scope=scope)
    return s.HistoryOut(
        versions=[item_out(v) for v in h.versions],
        events=[s.EventOut.model_validate(e.to_dict()) for e in h.events],
    )


@router.post("/items/{item_id}/revise", response_model=s.WrittenOut, summary="Revise a claim")
def revise(scope: ScopeName, item_id: ItemId, body: s.ReviseIn, mem: Mem) -> s.WrittenOut:
    """Correct a claim: a new version supersedes the old one, which stays in the history.

    Returns the new version (its id differs from ``item_id``) and the contradictions it created (``conflicts``).
    """
    return written_out(
        mem.revise_checked(
            item_id,
            body.text,
            scope=scope,
            reason=body.reason,
            key=body.key,
            value=body.value,
            expected_version=body.expected_version,
            valid_from=body.valid_from,
            valid_to=body.valid_to,
        )
    )


@router.post("/items/{item_id}/forget", response_model=s.ItemOut, summary="Forget a claim")
def forget(scope: ScopeName, item_id: ItemId, body: s.ForgetIn, mem: Mem) -> s.ItemOut:
    """Close the claim's validity: it leaves current truth but stays in the history (``purge`` erases it).

    The same claim may be learned again later; to refuse that, dismiss it instead.
    """
    forgotten = mem.forget(
        item_id, scope=scope, reason=body.reason, expected_version=body.expected_version, purge=body.purge
    )
    return item_out(forgotten)


@router.post("/items/{item_id}/dismiss", response_model=s.ItemOut, summary="Dismiss a claim")
def dismiss(scope: ScopeName, item_id: ItemId, body: s.ReasonIn, mem: Mem) -> s.ItemOut:
    """Tombstone the claim's value: it leaves current truth and learning it again is refused (409
    ``dismissed_value``) until ``POST /v1/scopes/{scope}/undismiss`` lifts the tombstone."""
    return item_out(mem.dismiss(item_id, scope=scope, reason=body.reason))


@router.post("/undismiss", response_model=s.DoneOut, summary="Lift a dismissal")
def undismiss(scope: ScopeName, body: s.UndismissIn, mem: Mem) -> s.DoneOut:
    """Allow a dismissed value to be learned again: name it by its text, or by key and value.

    404 if nothing dismissed in the scope matches.
    """
    mem.undismiss(body.text, scope=scope, key=body.key, value=body.value, reason=body.reason)
    return s.DoneOut()


@router.post("/edges", status_code=201, response_model=s.EdgeOut, summary="Link two items")
def link(scope: ScopeName, body: s.LinkIn, mem: Mem) -> s.EdgeOut:
    """Record a typed edge between two items of the scope (supports, contradicts, supersedes, ...) (201)."""
    edge = mem.link(
        body.src, body.dst, body.type, scope=scope, author=body.author, authority=body.authority, meta=body.meta
    )
    return s.EdgeOut.model_validate(edge.to_dict())


@router.post("/recall", response_model=s.RecallOut, summary="Recall")
def recall(scope: ScopeName, body: s.RecallIn, mem: Mem) -> s.RecallOut:
    """The items that best answer ``query``, ranked by full-text and vector search fused, times value.

    Each hit says why it ranked and which items contradict it. Counts as a use unless ``record_use`` is
    false or ``as_of`` is given (then each hit is the item as it stood at that time).
    """
    hits = mem.recall(body.query, scope=scope, k=body.k, **_recall_args(body))
    return s.RecallOut(hits=[hit_out(h) for h in hits])


@router.post("/context", response_model=s.ContextOut, summary="A prompt block")
def context(scope: ScopeName, body: s.ContextIn, mem: Mem) -> s.ContextOut:
    """Recall for ``query`` (with any of recall's options), then pack the best memories into text of at most
    ``budget_tokens`` tokens."""
    text = mem.context(body.query, scope=scope, budget_tokens=body.budget_tokens, k=body.k, **_recall_args(body))
    return s.ContextOut(context=text)


def _recall_args(body: s.RecallOptionsIn) -> dict[str, Any]:
    """``Memory.recall`` keywords from a body: the shared conversions of the options and of the
    shortcuts (``kind`` / ``source`` / ``tag``, the names every face takes), ``where`` AND-ed with them."""
    doc = body.model_dump()
    where = parse_filter(body.where) if body.where is not None else None
    return {**recall_args(doc), "where": shortcut_filter(doc, where)}


@router.get("/summary", response_model=s.SummaryOut, summary="Counts of a scope")
def summary(scope: ScopeName, mem: Mem, request: Request) -> s.SummaryOut:
    """How many items the scope holds, by tier, kind, source and status, and whether learning is paused;
    and how many recalls' uses this server holds because another writer held the lock (``pending_uses``)."""
    return s.SummaryOut.model_validate({**mem.summary(scope=scope), "pending_uses": pending_uses(request, mem)})


def pending_uses(request: Request, mem: Memory) -> int:
    """``Memory.pending_uses`` of the ``Memory`` answering: a principal's own view counts its own
    recalls; the operator's (the server's ``Memory``) adds every view's, all the server holds.

    Why not only the answering one's: with principals each caller's recalls wait in its own view,
    so the operator watching a long import would have seen 0 while uses piled up behind it.
    """
    own = mem.pending_uses
    if mem is not request.app.state.mem:
        return own
    views: dict[str, Memory] = getattr(request.app.state, "views", {})
    return own + sum(view.pending_uses for view in views.values())


@router.post("/learning/pause", response_model=s.OkOut, summary="Pause learning")
def pause(scope: ScopeName, body: s.ReasonIn, mem: Mem) -> s.OkOut:
    """Refuse learning writes (remember, revise) in the scope with 409 ``learning_paused`` until resumed.

    Corrections (forget, dismiss, resolve) still work.
    """
    mem.pause_learning(scope, reason=body.reason)
    return s.OkOut(learning_paused=True)


@router.post("/learning/resume", response_model=s.OkOut, summary="Resume learning")
def resume(scope: ScopeName, body: s.ReasonIn, mem: Mem) -> s.OkOut:
    """Allow learning writes in the scope again after ``/learning/pause``."""
    mem.resume_learning(scope, reason=body.reason)
    return s.OkOut(learning_paused=False)


@router.get("/contradictions", response_model=s.ContradictionsOut, summary="Open contradictions")
def contradictions(
    scope: ScopeName,
    mem: Mem,
    alerts_only: Annotated[bool, Query(description="Only the ones worth a person's attention.")] = False,
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=100))] = None,
) -> s.ContradictionsOut:
    """Pairs of current items that contradict each other, with the axis, the reason and a confidence.

    Resolve one with ``/contradictions/{edge_id}/resolve``, or close a false positive with
    ``/contradictions/{edge_id}/dismiss``.
    """
    alerts = mem.contradictions(scope=scope, alerts_only=alerts_only, limit=limit)
    return s.ContradictionsOut(contradictions=[s.ContradictionOut.model_validate(a.to_dict()) for a in alerts])


@router.post("/contradictions/{edge_id}/resolve", response_model=s.ItemOut, summary="Resolve a contradiction")
def resolve(scope: ScopeName, edge_id: EdgeId, body: s.ResolveIn, mem: Mem) -> s.ItemOut:
    """Keep one side of a contradiction; the other is superseded by it. Returns the side kept."""
    return item_out(mem.resolve(edge_id, keep=body.keep, scope=scope, reason=body.reason))


@router.post("/contradictions/{edge_id}/dismiss", response_model=s.EdgeOut, summary="Not a conflict")
def dismiss_contradiction(scope: ScopeName, edge_id: EdgeId, body: s.ReasonIn, mem: Mem) -> s.EdgeOut:
    """Close a contradiction as a false positive: both sides stay believed, and neither write-time
    detection nor a dream pass links the same two claims again. Returns the closed edge."""
    return s.EdgeOut.model_validate(mem.dismiss_contradiction(edge_id, scope=scope, reason=body.reason).to_dict())


@router.post("/dream", response_model=s.DreamOut, summary="Run a dream pass")
def dream(
    scope: ScopeName,
    mem: Mem,
    dry_run: Annotated[bool, Query(description="Plan and report, change nothing.")] = False,
) -> s.DreamOut:
    """Consolidate the scope now: merge duplicates, fade and demote cold items, detect contradictions.

    The report lists every action with its reason (each is in the event log too). No body is needed.
    """
    run = getattr(mem, "dream", None)
    if run is None:
        raise NotImplementedReverieError("this reverie has no dream pass yet")
    return s.DreamOut(report=jsonable(run(scope=scope, dry_run=True) if dry_run else run(scope=scope)))


@router.get("/dream/runs", response_model=s.DreamRunsOut, summary="Past dream passes")
def dream_runs(
    scope: ScopeName,
    mem: Mem,
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=20))] = None,
) -> s.DreamRunsOut:
    """The scope's recorded dream passes, newest first, whichever process ran them (summaries only)."""
    return s.DreamRunsOut(runs=mem.dream_runs(scope=scope, limit=limit))


def jsonable(value: Any) -> Any:
    """A dream report as JSON: its ``to_dict()`` if it has one, else the value itself."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        return value
    return str(value)
