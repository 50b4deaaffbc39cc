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

from fastapi import APIRouter, Depends, Query, Request

from reverie.errors import InvalidQueryError, ReverieError
from reverie.http import schemas as s
from reverie.http.scope_path import scope_param
from reverie.memory import Memory
from reverie.model.item import Item
from reverie.model.query import Filter, Q
from reverie.model.query_json import FILTER_DESCRIPTION, parse_filter
from reverie.model.validate import load_json
from reverie.recall.engine import Hit

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.ErrorOut} for code in (400, 401, 403, 404, 405, 409, 413, 422, 500, 501)
}
router = APIRouter(prefix="/v1/scopes/{scope}", responses=ERRORS)


class NotImplementedReverieError(ReverieError):
    """This Memory has no such capability (e.g. no dream pass yet)."""

    code = "not_implemented"


def memory(request: Request) -> Memory:
    mem: Memory = request.app.state.mem
    return mem


Mem = Annotated[Memory, Depends(memory)]
ScopeName = Annotated[str, Depends(scope_param)]
"""The ``{scope}`` path segment, percent-decoded once (see ``scope_path``)."""


def item_out(item: Item) -> s.ItemOut:
    return s.ItemOut.model_validate(item.to_dict())


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


@router.post("/items", status_code=201, response_model=s.ItemOut)
def remember(scope: ScopeName, body: s.RememberIn, mem: Mem) -> s.ItemOut:
    fields = body.model_dump(exclude_none=True)
    if body.provenance is not None:
        fields["provenance"] = body.provenance.model_dump()
    text = fields.pop("text")
    return item_out(mem.remember(text, scope=scope, **fields))


@router.get("/items", response_model=s.PageOut)
def list_items(
    scope: ScopeName,
    mem: Mem,
    kind: Annotated[list[str], Query()] = [],  # noqa: B006 - FastAPI copies defaults
    source: Annotated[list[str], Query()] = [],  # noqa: B006
    tag: Annotated[list[str], Query()] = [],  # noqa: B006
    tier: Annotated[list[s.Tier], Query()] = [],  # noqa: B006 - a closed set: a typo is refused, as by /recall
    where: Annotated[str | None, Query(description=FILTER_DESCRIPTION + " Sent as JSON text.")] = None,
    sort: Annotated[list[str], Query(description="Sort fields, '-' for descending (e.g. -importance).")] = [],  # noqa: B006
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=50))] = None,
    cursor: str | None = None,
    include_closed: bool = False,
) -> s.PageOut:
    page = mem.list(
        scope=scope,
        where=simple_filter(kind, source, tag, tier, _json_filter(where)),
        sort=sort or None,
        limit=limit,
        cursor=cursor,
        include_closed=include_closed,
    )
    return s.PageOut(items=[item_out(i) for i in page.items], next_cursor=page.next_cursor)


def _json_filter(text: str | None) -> dict[str, Any] | None:
    """The ``where`` query parameter: a JSON filter as text (a query string cannot carry an object)."""
    if text is None:
        return None
    try:
        doc = load_json(text, "where", InvalidQueryError)
    except InvalidQueryError:
        raise
    except ValueError:
        raise InvalidQueryError(f'where {text[:60]!r} is not JSON; send a filter such as {{"kind": "trait"}}') from None
    if not isinstance(doc, dict):
        raise InvalidQueryError("where must be a JSON object (a filter)")
    return doc


@router.get("/items/{item_id}", response_model=s.ItemOut)
def get_item(scope: ScopeName, item_id: str, mem: Mem, as_of: datetime | None = None) -> s.ItemOut:
    return item_out(mem.get(item_id, scope=scope, as_of=as_of))


@router.get("/items/{item_id}/history", response_model=s.HistoryOut)
def history(scope: ScopeName, item_id: str, mem: Mem) -> s.HistoryOut:
    h = mem.history(item_id, scope=scope)
    return s.HistoryOut(
        versions=[item_out(v) for v in h.versions],
        events=[s.EventOut.model_validate(e.to_dict()) for e in h.events],
    )


@router.post("/items/{item_id}/revise", response_model=s.ItemOut)
def revise(scope: ScopeName, item_id: str, body: s.ReviseIn, mem: Mem) -> s.ItemOut:
    return item_out(
        mem.revise(
            item_id,
            body.text,
            scope=scope,
            reason=body.reason,
            key=body.key,
            value=body.value,
            expected_version=body.expected_version,
        )
    )


@router.post("/items/{item_id}/forget", response_model=s.ItemOut)
def forget(scope: ScopeName, item_id: str, body: s.ForgetIn, mem: Mem) -> s.ItemOut:
    forgotten = mem.forget(
        item_id, scope=scope, reason=body.reason, expected_version=body.expected_version, purge=body.purge
    )
    return item_out(forgotten)


@router.post("/items/{item_id}/dismiss", response_model=s.ItemOut)
def dismiss(scope: ScopeName, item_id: str, body: s.ReasonIn, mem: Mem) -> s.ItemOut:
    return item_out(mem.dismiss(item_id, scope=scope, reason=body.reason))


@router.post("/edges", status_code=201, response_model=s.EdgeOut)
def link(scope: ScopeName, body: s.LinkIn, mem: Mem) -> s.EdgeOut:
    edge = mem.link(
        body.src, body.dst, body.type, scope=scope, author=body.author, authority=body.authority, meta=body.meta
    )
    return s.EdgeOut.model_validate(edge.to_dict())


@router.post("/recall", response_model=s.RecallOut)
def recall(scope: ScopeName, body: s.RecallIn, mem: Mem) -> s.RecallOut:
    hits = mem.recall(
        body.query,
        scope=scope,
        k=body.k,
        mode=body.mode,
        where=simple_filter(body.kind, body.source, body.tag, where=body.where),
        as_of=body.as_of,
        include_history=body.include_history,
        tiers=list(body.tiers),
        contradictions=body.contradictions,
        min_authority=body.min_authority,
        record_use=body.record_use,
    )
    return s.RecallOut(hits=[hit_out(h) for h in hits])


@router.post("/context", response_model=s.ContextOut)
def context(scope: ScopeName, body: s.ContextIn, mem: Mem) -> s.ContextOut:
    return s.ContextOut(context=mem.context(body.query, scope=scope, budget_tokens=body.budget_tokens, k=body.k))


@router.get("/summary", response_model=s.SummaryOut)
def summary(scope: ScopeName, mem: Mem) -> s.SummaryOut:
    return s.SummaryOut.model_validate(mem.summary(scope=scope))


@router.post("/learning/pause", response_model=s.OkOut)
def pause(scope: ScopeName, body: s.ReasonIn, mem: Mem) -> s.OkOut:
    mem.pause_learning(scope, reason=body.reason)
    return s.OkOut(learning_paused=True)


@router.post("/learning/resume", response_model=s.OkOut)
def resume(scope: ScopeName, body: s.ReasonIn, mem: Mem) -> s.OkOut:
    mem.resume_learning(scope, reason=body.reason)
    return s.OkOut(learning_paused=False)


@router.get("/contradictions", response_model=s.ContradictionsOut)
def contradictions(
    scope: ScopeName,
    mem: Mem,
    alerts_only: bool = False,
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=100))] = None,
) -> s.ContradictionsOut:
    alerts = mem.contradictions(scope=scope, alerts_only=alerts_only, limit=limit)
    return s.ContradictionsOut(contradictions=[s.ContradictionOut.model_validate(a.to_dict()) for a in alerts])


@router.post("/contradictions/{edge_id}/resolve", response_model=s.ItemOut)
def resolve(scope: ScopeName, edge_id: str, body: s.ResolveIn, mem: Mem) -> s.ItemOut:
    return item_out(mem.resolve(edge_id, keep=body.keep, scope=scope, reason=body.reason))


@router.post("/dream", response_model=s.DreamOut)
def dream(scope: ScopeName, mem: Mem, dry_run: bool = False) -> s.DreamOut:
    run = getattr(mem, "dream", None)
    if run is None:
        raise NotImplementedReverieError("this reverie has no dream pass yet")
    return s.DreamOut(report=jsonable(run(scope=scope, dry_run=True) if dry_run else run(scope=scope)))


@router.get("/dream/runs", response_model=s.DreamRunsOut)
def dream_runs(
    scope: ScopeName,
    mem: Mem,
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=20))] = None,
) -> s.DreamRunsOut:
    """The scope's recorded dream passes, newest first, whichever process ran them."""
    return s.DreamRunsOut(runs=mem.dream_runs(scope=scope, limit=limit))


def jsonable(value: Any) -> Any:
    """A dream report as JSON: its ``to_dict()`` if it has one, else the value itself."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        return value
    return str(value)
