"""The item page: one claim in words, its neighbourhood as a picture, the forms that correct
it, its versions, provenance and links.

Everything is said the way a person reads it — relative times with the exact time on hover,
validity in words, labelled score bars, other items by their text — never a Python repr or a
bare id. Each action is a small form with its own reason field, because the reason is what the
event log keeps to explain later why a person changed the agent's belief. The version shown is
the item's place in the versions listed ("version 2 of 3"): ``Item.version`` counts every
change to one row (an optimistic-concurrency counter), which is not what a person means.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from reverie.http import agendapanel, graph, rows
from reverie.http import humane as h
from reverie.http import render as r
from reverie.http.page import _csrf_or_new, _mem, _needs_login, _page, _shown, flash, html_errors
from reverie.memory import Memory
from reverie.model.item import Edge, Item
from reverie.model.query import Q

router = APIRouter(include_in_schema=False)
#: Items derived from this one that the page lists (``Limits.max_k`` if lower).
DERIVED_ROWS = 100
#: The event that closed a version, and how the page says it.
CLOSERS = {"memory.forgotten": "forgotten", "memory.dismissed": "dismissed"}
#: Where a claim came from, in words (``Provenance.origin``); another origin reads "from <origin>".
ORIGINS = {
    "api": "through the Python API",
    "http": "over HTTP",
    "mcp": "by an MCP client",
    "cli": "from the command line",
    "conversation": "from a conversation",
    "document": "from a document",
    "tool": "from a tool",
    "import": "by an import",
    "dream": "by a dream pass",
}


@router.get("/items/{item_id}")
def item_page(request: Request, item_id: str, scope: str, done: str | None = None) -> Response:
    if _needs_login(request):
        return RedirectResponse("/login", status_code=303)
    return html_errors(request, scope, lambda: _item_page(request, item_id, scope, done))


def _item_page(request: Request, item_id: str, scope: str, done: str | None) -> Response:
    mem = _mem(request)
    csrf = _csrf_or_new(request)
    item = mem.get(item_id, scope=scope)
    now = mem.clock.now()
    history = mem.history(item.id, scope=scope)
    edges = mem.edges(item.id, scope=scope, include_closed=True)
    parents = _by_ids(mem, scope, item.parents)
    derived = mem.list(scope=scope, where=Q.parent(item.id), include_closed=True, limit=_shown(mem, DERIVED_ROWS)).items
    others = {**parents, **_by_ids(mem, scope, {x for e in edges for x in (e.src, e.dst)} - {item.id})}
    position = next((n for n, v in enumerate(history.versions, 1) if v.id == item.id), 1)
    body = r.join(
        [
            flash(done),
            r.fmt("<h2>{text}</h2>", text=item.text),
            r.fmt(
                '<p class="lede">{status} · version {k} of {n}</p>',
                status=h.status(item),
                k=position,
                n=len(history.versions),
            ),
            _about(item, now),
            agendapanel.produced_by(mem, scope, item.meta, item.id),
            r.fmt(
                '<section class="neighbourhood"><h3>Neighbourhood</h3>{g}</section>',
                g=graph.svg(item, graph.neighbours(item, edges, others, derived), scope),
            ),
            _actions(item, scope, csrf),
            _versions(history.versions, history.events, item, scope, now),
            _provenance(item, list(parents.values()), derived, scope, now),
            _edges(edges, item, others, scope, now),
        ]
    )
    return _page(request, r.layout(f"reverie — {h.truncate(item.text, 60)}", scope, mem.scopes(), body), csrf)


def _by_ids(mem: Memory, scope: str, ids: Sequence[str] | set[str]) -> dict[str, Item]:
    """The items with these ids (closed ones too), at most ``Limits.max_k`` of them: ``Memory``
    refuses a larger page (this page once asked for 1000, and broke under a smaller ``max_k``)."""
    if not ids:
        return {}
    wanted = sorted(ids)
    found = mem.list(scope=scope, where=Q.ids(*wanted), include_closed=True, limit=_shown(mem, len(wanted)))
    return {i.id: i for i in found.items}


def _about(item: Item, now: datetime) -> r.Safe:
    """The claim's facts as a short description list, then its five grades as bars."""
    used = h.time(item.last_used_at, now)
    if item.last_used_query:
        used = r.fmt("{t} (for “{q}”)", t=used, q=item.last_used_query)
    value = f"{item.key} = {item.value}" if item.key else "none"
    facts = [
        ("valid", r.fmt("{v}", v=h.validity(item, now))),
        ("kind", r.fmt("{v}", v=item.kind)),
        ("source", r.fmt("{v}", v=item.source.replace("_", " "))),
        ("tier", r.fmt('<span class="tier tier-{t}">{t}</span>', t=item.tier)),
        ("structured value", r.fmt("{v}", v=value)),
        ("tags", r.fmt("{v}", v=h.words(item.tags))),
        ("author", r.fmt("{v}", v=item.author or "unknown")),
        ("recorded", h.time(item.recorded_at, now)),
        ("last changed", h.time(item.updated_at, now)),
        ("last used", used),
        ("used", r.fmt("{n} time{s}", n=item.use_count, s="" if item.use_count == 1 else "s")),
        ("evidence", r.fmt("seen {n} time{s}", n=item.evidence_count, s="" if item.evidence_count == 1 else "s")),
        ("flags", r.fmt("{v}", v=h.words(f.replace("_", " ") for f in item.flags))),
    ]
    if not item.is_current and item.closed_at is not None:
        facts.insert(0, (h.status(item), h.time(item.closed_at, now)))
    dl = r.join(r.fmt("<dt>{k}</dt><dd>{v}</dd>", k=k, v=v) for k, v in facts)
    return r.fmt(
        '<section class="about"><dl class="fields">{dl}</dl><div class="grades"><h4>Scores</h4>{bars}</div></section>',
        dl=dl,
        bars=h.score_bars(item),
    )


def _actions(item: Item, scope: str, csrf: str) -> r.Safe:
    """The correcting forms; for a dismissed item, the form that lifts its tombstone (offered
    every time: ``Memory`` has no per-value read of tombstones, and lifting twice is harmless)."""
    if not item.is_current:
        closed = r.fmt(
            '<p class="closed">This version is {status}; it can no longer be changed.</p>', status=item.status
        )
        if item.status == "dismissed":
            undo = r.action_form("undismiss", "undismiss", csrf, scope=scope, id=item.id)
            return r.fmt(
                '<section class="actions"><h3>Correct it</h3>{c}<p>Its value is refused if the agent learns it '
                "again, until you undismiss it:</p>{u}</section>",
                c=closed,
                u=undo,
            )
        return r.fmt('<section class="actions"><h3>Correct it</h3>{c}</section>', c=closed)
    sc = item.scores
    # Each pre-filled field carries what it showed (``shown_NAME``): the server sends on only the
    # fields the person changed, as a call to the API would (findings 6 and 10: the forms re-sent
    # every field, so a text-only correction kept a stale value and a trust edit rewrote the
    # other scores, rounded).
    shown_scores = {name: f"{getattr(sc, name):.2f}" for name, _ in h.SCORE_LABELS}
    score_inputs = r.join(
        r.fmt(
            '<label>{label} <input name="{n}" type="number" min="0" max="1" step="0.01" value="{v}"></label> ',
            n=name,
            label=label,
            v=shown_scores[name],
        )
        for name, label in h.SCORE_LABELS
    )
    shown = {"key": item.key or "", "value": "" if item.value is None else str(item.value)}
    revise = r.fmt(
        '<label class="wide">what is true <textarea name="text" rows="2" required>{t}</textarea></label>'
        '<span class="kv"><label>key <input name="key" value="{k}" placeholder="e.g. alice.city"></label> '
        '<label>value <input name="value" value="{v}" placeholder="e.g. Lyon"></label></span>',
        t=item.text,
        k=shown["key"],
        v=shown["value"],
    )
    forms = [
        r.action_form("revise", "revise", csrf, extra=r.join([_as_shown(shown), revise]), scope=scope, id=item.id),
        r.action_form(
            "scores", "set scores", csrf, extra=r.join([_as_shown(shown_scores), score_inputs]), scope=scope, id=item.id
        ),
        r.fmt(
            '<div class="row">{a}{b}</div><div class="row">{c}{d}</div>',
            a=r.action_form("promote", "promote to manual", csrf, scope=scope, id=item.id, to="manual"),
            b=r.action_form("promote", "pin as durable", csrf, scope=scope, id=item.id, to="durable"),
            c=r.action_form("forget", "forget", csrf, danger=True, scope=scope, id=item.id),
            d=r.action_form("dismiss", "dismiss", csrf, danger=True, scope=scope, id=item.id),
        ),
    ]
    return r.fmt('<section class="actions"><h3>Correct it</h3>{forms}</section>', forms=r.join(forms))


def _as_shown(values: dict[str, str]) -> r.Safe:
    """The hidden ``shown_NAME`` fields that tell the action what each pre-filled field showed."""
    return r.join(r.fmt('<input type="hidden" name="shown_{n}" value="{v}">', n=n, v=v) for n, v in values.items())


def _closing(version: Item, following: Item | None, events: Sequence[object]) -> tuple[str, str]:
    """How a closed version was closed (words) and the reason the log kept ("" if none)."""
    for e in events:
        payload = getattr(e, "payload", {})
        kind = getattr(e, "type", "")
        if kind == "memory.revised" and payload.get("old_id") == version.id:
            return "replaced by the next version", str(payload.get("reason") or "")
        if kind in CLOSERS and payload.get("id") == version.id:
            return CLOSERS[kind], str(payload.get("reason") or "")
    if version.status == "superseded" and following is not None:
        return "replaced by the next version", ""
    return h.status(version), ""


def _versions(versions: Sequence[Item], events: Sequence[object], item: Item, scope: str, now: datetime) -> r.Safe:
    """Every version, oldest first, marked current or closed (when, how and why)."""
    out = []
    for n, v in enumerate(versions, 1):
        following = versions[n] if n < len(versions) else None
        if v.is_current:
            state = r.Safe('<span class="badge current">current</span>')
        else:
            how, why = _closing(v, following, events)
            state = r.fmt(
                '<span class="badge ended">closed</span> {when}, {how}{why}',
                when=h.time(v.closed_at, now),
                how=how,
                why=r.fmt(": “{w}”", w=why) if why else r.EMPTY,
            )
        out.append(
            r.fmt(
                '<tr class="{cls}"><td data-label="version">{n}{here}</td><td data-label="text">{text}</td>'
                '<td data-label="state">{state}</td><td data-label="recorded">{rec}</td></tr>',
                cls=r.Safe("this" if v.id == item.id else ""),
                n=n,
                here=r.Safe(" <small>(this page)</small>") if v.id == item.id else r.EMPTY,
                text=r.fmt('<a href="{href}">{t}</a>', href=r.url(f"/items/{v.id}", scope=scope), t=v.text)
                if v.id != item.id
                else v.text,
                state=state,
                rec=h.time(v.recorded_at, now),
            )
        )
    return r.fmt(
        '<section class="history"><h3>Versions</h3><table class="versions"><thead><tr><th>#</th><th>text</th>'
        "<th>state</th><th>recorded</th></tr></thead><tbody>{rows}</tbody></table></section>",
        rows=r.join(out),
    )


def _provenance(item: Item, parents: Sequence[Item], derived: Sequence[Item], scope: str, now: datetime) -> r.Safe:
    p = item.provenance
    where = [ORIGINS.get(p.origin, f"from {p.origin}")]
    if p.ref:
        where.append(f"“{p.ref}”")
    if p.locator:
        where.append(f"at {p.locator}")
    if p.source:
        where.append(f"(it was {p.source.replace('_', ' ')} there)")
    return r.fmt(
        '<section class="provenance"><h3>Provenance</h3><p>Recorded {where}.</p><h4>Derived from</h4>{parents}'
        "<h4>Derived from this</h4>{derived}</section>",
        where=" ".join(where),
        parents=rows.item_table(rows.item_row(i, scope, now) for i in parents),
        derived=rows.item_table(rows.item_row(i, scope, now) for i in derived),
    )


def _edges(edges: Sequence[Edge], item: Item, others: dict[str, Item], scope: str, now: datetime) -> r.Safe:
    """Each link in words from this item's side, the other item by its text."""
    out = []
    for e in edges:
        other_id = e.dst if e.src == item.id else e.src
        other = others.get(other_id)
        relation = _relation(e, item.id)
        out.append(
            r.fmt(
                '<tr class="{cls}"><td data-label="link">{rel}</td><td data-label="other memory">'
                '<a href="{href}">{text}</a></td><td data-label="trust">{auth}</td>'
                '<td data-label="since">{since}</td><td data-label="state">{state}</td></tr>',
                cls=r.Safe("current" if e.is_current else "closed"),
                rel=relation,
                href=r.url(f"/items/{other_id}", scope=scope),
                text=other.text if other else f"memory {other_id[:8]}",
                auth=h.bar("trust", e.authority, labelled=False),
                since=h.time(e.recorded_at, now),
                state=r.Safe('<span class="badge current">linked</span>')
                if e.is_current
                else r.fmt('<span class="badge ended">unlinked</span> {t}', t=h.time(e.closed_at, now)),
            )
        )
    if not out:
        return r.Safe('<section class="edges"><h3>Links</h3><p class="empty">no links</p></section>')
    return r.fmt(
        '<section class="edges"><h3>Links</h3><table class="edges"><thead><tr><th>link</th><th>other memory</th>'
        "<th>trust</th><th>since</th><th>state</th></tr></thead><tbody>{rows}</tbody></table></section>",
        rows=r.join(out),
    )


def _relation(e: Edge, item_id: str) -> str:
    """``this supports …`` / ``supported by …`` in the graph's words."""
    out, back = graph.EDGE_RELATIONS.get(e.type, (e.type, e.type))
    return graph.WORDS.get(out if e.src == item_id else back, e.type.replace("_", " "))
