"""The review page: a person looks at what the agent believes and corrects it.

Server-rendered (``render``), no build step; every change is an HTML form POST carrying a
double-submit CSRF token: a ``SameSite=Strict`` cookie echoed in a hidden field, and more than
a random value — an HMAC under the server's secret, bound to the sign-in session
(``security.issue_csrf``). A bare random value could be chosen by any page on another port of
``localhost``, which may set cookies for this host. Browsing never records use: looking at memories is not
the agent using them, so ``recall`` runs with ``record_use=False`` here.

The filters are checked like the JSON API's: a tier is one of three words, so an unknown one is
a typo and refused (400 ``invalid_input``), by the list and by the search alike — the list used to
show an empty table for it while the search refused it.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Query, Request
from pydantic import BeforeValidator
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, RedirectResponse, Response

from reverie.errors import InvalidInputError
from reverie.http import render as r
from reverie.http.schemas import Tier
from reverie.http.security import AUTH_COOKIE, auth_cookie_value, authorised, csrf_valid, issue_csrf
from reverie.memory import Memory
from reverie.model.query import Filter, Q

router = APIRouter(include_in_schema=False)
CSRF_COOKIE = "reverie_csrf"
STATIC = {
    "review.js": "text/javascript; charset=utf-8",
    "review.css": "text/css; charset=utf-8",
    "docs.js": "text/javascript; charset=utf-8",
    "docs.css": "text/css; charset=utf-8",
}
#: Rows the list shows per page and the search at most: never more than ``Limits.max_k``, which
#: ``Memory`` would refuse (see ``_shown``).
PAGE_ROWS = 50
#: The tier select: "any" sends an empty value, which means no tier filter; any other value must
#: be a tier, checked by FastAPI exactly as the JSON API checks ``tier`` and ``tiers``.
TierChoice = Annotated[Tier | None, BeforeValidator(lambda v: v or None), Query()]


def _mem(request: Request) -> Memory:
    mem: Memory = request.app.state.mem
    return mem


def _secret(request: Request) -> bytes:
    secret: bytes = request.app.state.secret
    return secret


def _session(request: Request) -> str:
    """The sign-in cookie as sent ("" if none): a CSRF token is valid only for the session it was issued to."""
    return request.cookies.get(AUTH_COOKIE, "")


def _csrf(request: Request) -> str:
    """The request's CSRF cookie if this server issued it for this session, else ""."""
    token = request.cookies.get(CSRF_COOKIE, "")
    return token if csrf_valid(_secret(request), token, _session(request)) else ""


def _csrf_or_new(request: Request) -> str:
    return _csrf(request) or issue_csrf(_secret(request), _session(request))


def _page(request: Request, html: str, csrf: str) -> HTMLResponse:
    response = HTMLResponse(html)
    response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict", path="/")
    return response


def _needs_login(request: Request) -> bool:
    token: str | None = request.app.state.token
    headers = {k.lower(): v for k, v in request.headers.items()}
    return token is not None and not authorised(headers, token, _secret(request))


async def _form(request: Request) -> dict[str, str]:
    """The urlencoded body (size already bounded by the guard), after the CSRF check."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        raise HTTPException(415, "expected an HTML form (application/x-www-form-urlencoded)")
    raw = await request.body()
    try:
        parsed = parse_qs(raw.decode("utf-8"), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError("the form body is not valid urlencoded UTF-8") from exc
    form = {k: v[-1] for k, v in parsed.items()}
    cookie = _csrf(request)
    if not cookie or not hmac.compare_digest(cookie.encode(), form.get("csrf", "").encode()):
        raise HTTPException(403, "missing or wrong CSRF token; reload the page and try again")
    return form


def _field(form: dict[str, str], name: str) -> str:
    value = form.get(name, "")
    if not value:
        raise InvalidInputError(f"the form field {name!r} is required")
    return value


@router.get("/static/{name}")
def static(name: str) -> Response:
    if name not in STATIC:
        raise HTTPException(404, "no such file")
    body = resources.files("reverie.http").joinpath("static", name).read_bytes()
    return Response(body, media_type=STATIC[name], headers={"Cache-Control": "no-cache"})


@router.get("/favicon.ico")
def favicon() -> Response:
    """No icon: an empty 204, so a browser does not log a 404 error on every page it opens."""
    return Response(status_code=204, headers={"Cache-Control": "max-age=86400"})


@router.get("/login")
def login_page(request: Request) -> Response:
    csrf = _csrf_or_new(request)
    body = r.fmt(
        '<h2>Sign in</h2><form method="post" action="/login">{hidden}'
        '<input type="password" name="token" placeholder="token" autocomplete="current-password"> '
        "<button>sign in</button></form>",
        hidden=r.hidden(csrf),
    )
    return _page(request, r.layout("reverie — sign in", None, [], body), csrf)


@router.post("/login")
async def login(request: Request) -> Response:
    form = await _form(request)
    token: str | None = request.app.state.token
    if token is None or not hmac.compare_digest(form.get("token", "").encode(), token.encode()):
        raise HTTPException(401, "wrong token")
    response = RedirectResponse("/", status_code=303)
    cookie = auth_cookie_value(_secret(request), token)
    response.set_cookie(AUTH_COOKIE, cookie, httponly=True, samesite="strict", path="/")
    return response


@router.get("/")
def index(
    request: Request,
    scope: str | None = None,
    q: str | None = None,
    cursor: str | None = None,
    kind: str | None = None,
    source: str | None = None,
    tier: TierChoice = None,
) -> Response:
    if _needs_login(request):
        return RedirectResponse("/login", status_code=303)
    mem = _mem(request)
    csrf = _csrf_or_new(request)
    scopes = mem.scopes()
    scope = scope or (scopes[0] if scopes else None)
    if scope is None:
        body = r.Safe('<p class="empty">No scopes yet: nothing has been remembered.</p>')
        return _page(request, r.layout("reverie", None, scopes, body), csrf)
    summary = mem.summary(scope=scope)
    body = r.join(
        [
            r.fmt("<h2>{scope}</h2>", scope=scope),
            _summary(summary),
            _learning(scope, summary["learning_paused"], csrf),
            _items(mem, scope, q, cursor, Filters(kind or None, source or None, tier), summary),
            _contradictions(mem, scope, csrf),
            _dream(mem, scope),
        ]
    )
    return _page(request, r.layout(f"reverie — {scope}", scope, scopes, body), csrf)


def _summary(summary: dict[str, Any]) -> r.Safe:
    tiers = {k: v for k, v in summary["by_tier"].items() if k != "subconscious"}
    status = {k: summary[k] for k in ("current", "dismissed", "forgotten", "superseded", "tombstones")}
    return r.fmt(
        '<section class="summary">{a}{sub}{b}{c}{d}</section>',
        a=r.counts("by tier", tiers),
        sub=r.counts("subconscious", {"subconscious": summary["subconscious"]}),
        b=r.counts("by kind", summary["by_kind"]),
        c=r.counts("by source", summary["by_source"]),
        d=r.counts("status", status),
    )


def _learning(scope: str, paused: bool, csrf: str) -> r.Safe:
    state, verb = ("paused", "resume") if paused else ("on", "pause")
    return r.fmt(
        '<section class="learning"><p>Learning is <strong class="{state}">{state}</strong>.</p>{form}</section>',
        state=state,
        form=r.action_form("learning", f"{verb} learning", csrf, scope=scope, state=verb),
    )


@dataclass(frozen=True)
class Filters:
    """The list's filter selects (empty = any); the same ``Q`` filter for the list and for search."""

    kind: str | None = None
    source: str | None = None
    tier: str | None = None

    def where(self) -> Filter | None:
        parts = [
            builder(value)
            for builder, value in ((Q.kind, self.kind), (Q.source, self.source), (Q.tier, self.tier))
            if value
        ]
        if not parts:
            return None
        out = parts[0]
        for part in parts[1:]:
            out = out & part
        return out

    def params(self) -> dict[str, str | None]:
        return {"kind": self.kind, "source": self.source, "tier": self.tier}


def _select(name: str, values: list[str], chosen: str | None) -> r.Safe:
    options = r.join(
        r.fmt('<option value="{v}"{sel}>{v}</option>', v=v, sel=r.Safe(" selected" if v == chosen else ""))
        for v in sorted({*values, *([chosen] if chosen else [])})
    )
    return r.fmt(
        '<label>{name} <select name="{name}"><option value="">any</option>{options}</select></label> ',
        name=name,
        options=options,
    )


def _items(
    mem: Memory, scope: str, q: str | None, cursor: str | None, filters: Filters, summary: dict[str, Any]
) -> r.Safe:
    search = r.fmt(
        '<form method="get" action="/" class="search"><input type="hidden" name="scope" value="{scope}">'
        '<input type="search" name="q" value="{q}" placeholder="recall…"> {kind}{source}{tier}'
        "<button>search</button></form>",
        scope=scope,
        q=q or "",
        kind=_select("kind", list(summary["by_kind"]), filters.kind),
        source=_select("source", list(summary["by_source"]), filters.source),
        tier=_select("tier", ["active", "durable", "subconscious"], filters.tier),
    )
    more = r.Safe("")
    where = filters.where()
    if q:
        # A tier chosen in the filter is searched even when recall would skip it (subconscious).
        tiers = [filters.tier] if filters.tier else ["active", "durable"]
        hits = mem.recall(q, scope=scope, k=_shown(mem, PAGE_ROWS), where=where, tiers=tiers, record_use=False)
        rows = [r.item_row(h.item, scope, h.score) for h in hits]
    else:
        page = mem.list(scope=scope, where=where, limit=_shown(mem, PAGE_ROWS), cursor=cursor, sort="-recorded_at")
        rows = [r.item_row(i, scope) for i in page.items]
        if page.next_cursor:
            href = r.url("/", scope=scope, cursor=page.next_cursor, **filters.params())
            more = r.fmt('<p><a href="{href}">more…</a></p>', href=href)
    return r.fmt(
        '<section class="list"><h3>Memories</h3>{search}{table}{more}</section>',
        search=search,
        table=r.item_table(rows),
        more=more,
    )


def _shown(mem: Memory, rows: int) -> int:
    """``rows``, or ``Limits.max_k`` if lower: a page's own row count is an explicit count to
    ``Memory``, which refuses one above ``max_k`` (the list pages on with its cursor)."""
    return min(rows, mem.limits.max_k)


def _contradictions(mem: Memory, scope: str, csrf: str) -> r.Safe:
    alerts = mem.contradictions(scope=scope)
    rows = []
    for a in alerts:
        keep_a = r.action_form("resolve", "keep A", csrf, scope=scope, edge_id=a.edge_id, keep=a.a.id)
        keep_b = r.action_form("resolve", "keep B", csrf, scope=scope, edge_id=a.edge_id, keep=a.b.id)
        rows.append(
            r.fmt(
                '<li class="conflict{hot}"><p>A: {ta} <small>({sa}, auth {aa})</small></p>'
                "<p>B: {tb} <small>({sb}, auth {ab})</small></p><p>{axis}: {reason}</p>{ka}{kb}</li>",
                hot=r.Safe(" alert" if a.alert else ""),
                ta=a.a.text,
                sa=a.a.source,
                aa=f"{a.a.scores.authority:.2f}",
                tb=a.b.text,
                sb=a.b.source,
                ab=f"{a.b.scores.authority:.2f}",
                axis=a.axis,
                reason=a.reason,
                ka=keep_a,
                kb=keep_b,
            )
        )
    return r.fmt(
        '<section class="contradictions"><h3>Contradictions ({n})</h3><ul>{rows}</ul></section>',
        n=len(alerts),
        rows=r.join(rows),
    )


def _dream(mem: Memory, scope: str) -> r.Safe:
    """The newest recorded dream pass over *this* scope (``Memory.dream_runs``), whichever process ran it.

    Read from the store, not from this ``Memory``: a pass run by ``reverie dream`` from cron, by
    another process sharing the file, or before a restart shows here too. ``dream_runs`` reads
    only this scope's runs, and a summary names items and quotes reasons, so a pass over another
    scope is never shown here.
    """
    runs = mem.dream_runs(scope=scope, limit=1)
    if not runs:
        return r.Safe("")
    run = runs[0]
    shown = {k: v for k, v in run.items() if k not in ("scope", "first_actions", "spared", "spared_total", "config")}
    counts = run.get("counts") or {}
    return r.fmt(
        '<section class="dream"><h3>Last dream pass</h3>{f}{actions}{spared}</section>',
        f=r.fields_list(shown),
        actions=_first_actions(run.get("first_actions") or [], int(counts.get("actions", 0))),
        spared=_spared(run.get("spared") or [], int(run.get("spared_total", 0))),
    )


def _first_actions(actions: list[dict[str, Any]], total: int) -> r.Safe:
    """The pass's first actions with their status and reason (the summary keeps a few; every
    reason is in the event log, and an item's history page shows the ones about it)."""
    rows = [
        r.fmt(
            "<li><code>{step}</code> {op} ({status}): {reason}</li>",
            step=a.get("step"),
            op=a.get("op"),
            status=a.get("status"),
            reason=a.get("reason"),
        )
        for a in actions
    ]
    return _capped("actions", "Actions", rows, total, " (each in the event log with its reason)")


#: Spared items listed in the panel; the JSON report (``reverie dream --json``) has them all.
SPARED_SHOWN = 5


def _spared(spared: list[dict[str, Any]], total: int) -> r.Safe:
    """The count of items a protection kept from being forgotten or demoted, and the first reasons:
    the answer to "why is this cold item still here?", which the list of actions cannot give."""
    rows = [
        r.fmt(
            "<li><code>{step}</code> {id}: {reason}</li>",
            step=s.get("step"),
            id=str(s.get("id"))[:8],
            reason=s.get("reason"),
        )
        for s in spared[:SPARED_SHOWN]
    ]
    return _capped("spared", "Spared by a protection", rows, max(total, len(spared)), "")


def _capped(css: str, title: str, rows: list[r.Safe], total: int, more_note: str) -> r.Safe:
    """A titled list of the first ``rows`` of ``total``, ending with how many more there are."""
    if not rows:
        return r.Safe("")
    more = total - len(rows)
    tail = r.fmt("<li>… and {n} more{note}</li>", n=more, note=more_note) if more > 0 else r.Safe("")
    return r.fmt(
        '<div class="{css}"><h4>{title} ({n})</h4><ul>{rows}{tail}</ul></div>',
        css=css,
        title=title,
        n=total,
        rows=r.join(rows),
        tail=tail,
    )


ACTIONS: dict[str, Callable[[Memory, dict[str, str], str], str | None]] = {}


def _action(name: str) -> Callable[[Callable[[Memory, dict[str, str], str], str | None]], Any]:
    def register(fn: Callable[[Memory, dict[str, str], str], str | None]) -> Any:
        ACTIONS[name] = fn
        return fn

    return register


@_action("dismiss")
def _dismiss(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    return mem.dismiss(_field(f, "id"), scope=scope, reason=f.get("reason", "")).id


@_action("forget")
def _forget(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    return mem.forget(_field(f, "id"), scope=scope, reason=f.get("reason", "")).id


@_action("revise")
def _revise(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    return mem.revise(_field(f, "id"), _field(f, "text"), scope=scope, reason=f.get("reason", "")).id


@_action("promote")
def _promote(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    return mem.promote(_field(f, "id"), scope=scope, to=_field(f, "to"), reason=f.get("reason", "")).id


@_action("scores")
def _scores(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    values: dict[str, Any] = {}  # Any: mypy would otherwise match floats to expected_version
    for name in ("authority", "confidence", "importance", "durability", "value"):
        if f.get(name, "").strip():
            try:
                values[name] = float(f[name])
            except ValueError as exc:
                raise InvalidInputError(f"{name} must be a number in [0, 1]") from exc
    item_id, reason = _field(f, "id"), f.get("reason", "")
    return mem.set_scores(item_id, scope=scope, reason=reason, **values).id


@_action("learning")
def _learning_switch(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    if f.get("state") == "pause":
        mem.pause_learning(scope, reason=f.get("reason", ""))
    elif f.get("state") == "resume":
        mem.resume_learning(scope, reason=f.get("reason", ""))
    else:
        raise InvalidInputError("state must be 'pause' or 'resume'")
    return None


@_action("resolve")
def _resolve(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    mem.resolve(_field(f, "edge_id"), keep=_field(f, "keep"), scope=scope, reason=f.get("reason", ""))
    return None


@router.post("/ui/{action}")
async def act(request: Request, action: str) -> Response:
    if _needs_login(request):
        raise HTTPException(401, "sign in first")
    fn = ACTIONS.get(action)
    if fn is None:
        raise HTTPException(404, f"no action {action!r}")
    form = await _form(request)
    scope = _field(form, "scope")
    item_id = await run_in_threadpool(fn, _mem(request), form, scope)
    target = r.url(f"/items/{item_id}", scope=scope) if item_id else r.url("/", scope=scope)
    return RedirectResponse(target, status_code=303)
