"""The item page: one claim with its versions, provenance, edges and the correcting actions.

Each action is a separate small form with its own reason field, because the reason is what
the event log keeps to explain later why a person changed the agent's belief.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from reverie.http import render as r
from reverie.http.page import _csrf_or_new, _mem, _needs_login, _page, _shown
from reverie.memory import Memory
from reverie.model.item import Item
from reverie.model.query import Q

router = APIRouter(include_in_schema=False)
#: Items derived from this one that the page lists (``Limits.max_k`` if lower).
DERIVED_ROWS = 100


@router.get("/items/{item_id}")
def item_page(request: Request, item_id: str, scope: str) -> Response:
    if _needs_login(request):
        return RedirectResponse("/login", status_code=303)
    mem = _mem(request)
    csrf = _csrf_or_new(request)
    item = mem.get(item_id, scope=scope)
    body = r.join(
        [
            r.fmt("<h2>{text}</h2>", text=item.text),
            r.fields_list({k: v for k, v in item.to_dict().items() if k not in ("text", "meta", "provenance")}),
            _actions(item, scope, csrf),
            _history(mem, item, scope),
            _provenance(mem, item, scope),
            _edges(mem, item, scope),
        ]
    )
    return _page(request, r.layout(f"reverie — {item.id}", scope, mem.scopes(), body), csrf)


def _actions(item: Item, scope: str, csrf: str) -> r.Safe:
    if not item.is_current:
        return r.fmt('<p class="closed">This version is {status}; it can no longer be changed.</p>', status=item.status)
    sc = item.scores
    score_inputs = r.join(
        r.fmt(
            '<label>{n} <input name="{n}" type="number" min="0" max="1" step="0.01" value="{v}"></label> ',
            n=name,
            v=f"{getattr(sc, name):.2f}",
        )
        for name in ("authority", "confidence", "importance", "durability", "value")
    )
    revise = r.fmt('<textarea name="text" rows="2" required>{t}</textarea>', t=item.text)
    forms = [
        r.action_form("revise", "revise", csrf, extra=revise, scope=scope, id=item.id),
        r.action_form("scores", "set scores", csrf, extra=score_inputs, scope=scope, id=item.id),
        r.action_form("promote", "promote to manual", csrf, scope=scope, id=item.id, to="manual"),
        r.action_form("promote", "pin as durable", csrf, scope=scope, id=item.id, to="durable"),
        r.action_form("forget", "forget", csrf, danger=True, scope=scope, id=item.id),
        r.action_form("dismiss", "dismiss", csrf, danger=True, scope=scope, id=item.id),
    ]
    return r.fmt('<section class="actions"><h3>Correct it</h3>{forms}</section>', forms=r.join(forms))


def _history(mem: Memory, item: Item, scope: str) -> r.Safe:
    versions = mem.history(item.id, scope=scope).versions
    return r.fmt(
        '<section class="history"><h3>Versions</h3>{t}</section>',
        t=r.item_table(r.item_row(v, scope) for v in versions),
    )


def _provenance(mem: Memory, item: Item, scope: str) -> r.Safe:
    """The parents and the first derived items, at most ``Limits.max_k`` of each: ``Memory`` refuses
    a larger page (this page asked for 1000 and 100, so under a smaller ``max_k`` it broke)."""
    parents = []
    if item.parents:
        where = Q.ids(*item.parents)
        parents = mem.list(scope=scope, where=where, include_closed=True, limit=_shown(mem, len(item.parents))).items
    derived = mem.list(scope=scope, where=Q.parent(item.id), include_closed=True, limit=_shown(mem, DERIVED_ROWS)).items
    return r.fmt(
        '<section class="provenance"><h3>Provenance</h3>{p}<h4>Derived from</h4>{parents}'
        "<h4>Derived from this</h4>{derived}</section>",
        p=r.fields_list(item.provenance.to_dict()),
        parents=r.item_table(r.item_row(i, scope) for i in parents),
        derived=r.item_table(r.item_row(i, scope) for i in derived),
    )


def _edges(mem: Memory, item: Item, scope: str) -> r.Safe:
    rows = r.join(
        r.fmt(
            '<tr><td>{type}</td><td><a href="{src_href}">{src}</a></td><td><a href="{dst_href}">{dst}</a></td>'
            "<td>{auth}</td><td>{closed}</td></tr>",
            type=e.type,
            src_href=r.url(f"/items/{e.src}", scope=scope),
            src=e.src,
            dst_href=r.url(f"/items/{e.dst}", scope=scope),
            dst=e.dst,
            auth=f"{e.authority:.2f}",
            closed=r.when(e.to_dict()["closed_at"]),
        )
        for e in mem.edges(item.id, scope=scope, include_closed=True)
    )
    table = (
        r.fmt(
            '<table class="edges"><tr><th>type</th><th>src</th><th>dst</th><th>authority</th><th>closed</th></tr>'
            "{rows}</table>",
            rows=rows,
        )
        if rows
        else r.Safe('<p class="empty">no edges</p>')
    )
    return r.fmt('<section class="edges"><h3>Edges</h3>{t}</section>', t=table)
