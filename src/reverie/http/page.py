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
from datetime import datetime
from importlib import resources
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Query, Request
from pydantic import BeforeValidator
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, RedirectResponse, Response

from reverie.errors import InvalidInputError, ReverieError
from reverie.http import agendapanel, alertpanel, charts, convlinks, dreampanel, rows
from reverie.http import render as r
from reverie.http.errors import status_for
from reverie.http.messages import for_http
from reverie.http.schemas import Tier
from reverie.http.security import AUTH_COOKIE, auth_cookie_value, authorised, csrf_valid, issue_csrf
from reverie.memory import Memory
from reverie.model.item import Item
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


def _wants_html(request: Request) -> bool:
    """A browser asks for HTML (``Accept: text/html,…``); a script or the test client does not,
    and keeps getting the one JSON error shape (``errors.py``) that clients switch on."""
    return "text/html" in request.headers.get("accept", "")


def _error_page(request: Request, exc: ReverieError, scope: str | None) -> Response:
    """The page's own error for a person: what was wrong and a way back, with the JSON
    shape's status. The scope named may be the bad one, so the links lead to the first page."""
    mem = _mem(request)
    text = for_http(exc.code, exc.message, request.url.path, scope)
    body = r.fmt(
        '<section class="error" role="alert"><h2>That did not work</h2><p>{text}</p>'
        '<p class="hint">({code})</p><p><a href="/">Back to the first scope</a></p></section>',
        text=text,
        code=exc.code,
    )
    csrf = _csrf_or_new(request)
    response = _page(request, r.layout("reverie — error", None, _safe_scopes(mem), body), csrf)
    response.status_code = status_for(exc)
    return response


def _safe_scopes(mem: Memory) -> list[str]:
    try:
        return mem.scopes()
    except ReverieError:  # the error page must render even when the store itself is the trouble
        return []


def html_errors(request: Request, scope: str | None, build: Callable[[], Response]) -> Response:
    """``build()``, or for a browser the page's own error when it raises a ``ReverieError``."""
    try:
        return build()
    except ReverieError as exc:
        if not _wants_html(request):
            raise
        return _error_page(request, exc, scope)


#: The confirmation shown after each action (``?done=`` names one; anything else shows nothing,
#: so a link cannot make the page say what it did not do).
DONE = {
    "dismiss": "Dismissed: it is no longer believed, and will not be learned again.",
    "undismiss": "Undismissed: this value may be learned again.",
    "forget": "Forgotten: it is no longer believed (its history is kept).",
    "revise": "Corrected: this is the new version; the old one is kept in its history.",
    "promote-manual": "Promoted: it now carries your authority (source manual).",
    "promote-durable": "Pinned: it stays in the durable tier.",
    "scores": "Scores saved.",
    "learning-pause": "Learning is paused: nothing new is learned in this scope until you resume it.",
    "learning-resume": "Learning resumed.",
    "resolve": "Resolved: the memory you kept stays, the other one is replaced.",
    "dismiss_contradiction": "Not a conflict: both memories stay, and this pair is not reported again.",
    "dream": "Dream pass done: see what it did below.",
    "dismiss_alert": alertpanel.DONE,
}


def flash(done: str | None) -> r.Safe:
    message = DONE.get(done or "")
    return r.fmt('<p class="flash" role="status">{m}</p>', m=message) if message else r.EMPTY


#: The list's status filter: "" is current truth; the others include closed items.
STATUS_CHOICES = {
    "": "current",
    "all": "everything",
    "superseded": "replaced",
    "forgotten": "forgotten",
    "dismissed": "dismissed",
}


def _status_choice(value: str | None) -> str:
    if value and value not in STATUS_CHOICES:
        raise InvalidInputError(f"status must be one of {', '.join(repr(k) for k in STATUS_CHOICES if k)} or empty")
    return value or ""


@router.get("/")
def index(
    request: Request,
    scope: str | None = None,
    q: str | None = None,
    cursor: str | None = None,
    kind: str | None = None,
    source: str | None = None,
    tier: TierChoice = None,
    status: str | None = None,
    done: str | None = None,
) -> Response:
    if _needs_login(request):
        return RedirectResponse("/login", status_code=303)
    filters = Filters(kind or None, source or None, tier, _status_choice(status))
    return html_errors(request, scope, lambda: _index(request, scope, q, cursor, filters, done))


def _index(
    request: Request, scope: str | None, q: str | None, cursor: str | None, filters: Filters, done: str | None
) -> Response:
    mem = _mem(request)
    csrf = _csrf_or_new(request)
    scopes = mem.scopes()
    scope = scope or (scopes[0] if scopes else None)
    if scope is None:
        body = r.Safe('<p class="empty">No scopes yet: nothing has been remembered.</p>')
        return _page(request, r.layout("reverie", None, scopes, body), csrf)
    summary = mem.summary(scope=scope)
    now = mem.clock.now()
    body = r.join(
        [
            flash(done),
            r.fmt("<h2>{scope}</h2>", scope=scope),
            _overview(mem, scope, summary, now),
            _learning(scope, summary["learning_paused"], csrf),
            _items(mem, scope, q, cursor, filters, summary, now),
            _contradictions(mem, scope, csrf),
            alertpanel.panel(mem, scope, csrf),  # h-patterns
            agendapanel.panel(mem, scope, now),
            convlinks.panel(mem, scope),  # h-convfaces
            dreampanel.panel(mem, scope, csrf, now),
        ]
    )
    return _page(request, r.layout(f"reverie — {scope}", scope, scopes, body), csrf)


def _overview(mem: Memory, scope: str, summary: dict[str, Any], now: datetime) -> r.Safe:
    """The counts, and beside them the picture of how the scope grew."""
    items, partial = _timeline_items(mem, scope)
    chart = charts.tiers_chart(charts.timeline(items, now), partial=partial)
    return r.fmt('<div class="overview">{s}{chart}</div>', s=_summary(summary), chart=chart)


def _timeline_items(mem: Memory, scope: str) -> tuple[list[Item], bool]:
    """The newest ``charts.TIMELINE_ITEMS`` items, closed ones too (a bounded read), and whether
    there were more."""
    out: list[Item] = []
    cursor: str | None = None
    while len(out) < charts.TIMELINE_ITEMS:
        limit = min(mem.limits.max_k, charts.TIMELINE_ITEMS - len(out))
        page = mem.list(scope=scope, include_closed=True, sort="-recorded_at", limit=limit, cursor=cursor)
        out += page.items
        cursor = page.next_cursor
        if cursor is None:
            return out, False
    return out, True


def _summary(summary: dict[str, Any]) -> r.Safe:
    """The scope's counts, four small tables (one for the tiers, subconscious included)."""
    tiers = {t: summary["by_tier"].get(t, 0) for t in ("active", "durable", "subconscious")}
    status = {k: summary[k] for k in ("current", "dismissed", "forgotten", "superseded", "tombstones")}
    sources = {k.replace("_", " "): v for k, v in summary["by_source"].items()}
    return r.fmt(
        '<section class="summary">{a}{b}{c}{d}</section>',
        a=r.counts("by tier", tiers),
        b=r.counts("by kind", summary["by_kind"]),
        c=r.counts("by source", sources),
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
    """The list's filter selects (empty = any); the same ``Q`` filter for the list and for search.
    ``status`` empty = current truth only; else closed items are included (all, or one status)."""

    kind: str | None = None
    source: str | None = None
    tier: str | None = None
    status: str = ""

    def where(self) -> Filter | None:
        parts = [
            builder(value)
            for builder, value in ((Q.kind, self.kind), (Q.source, self.source), (Q.tier, self.tier))
            if value
        ]
        if self.status not in ("", "all"):
            parts.append(Q.status(self.status))
        if not parts:
            return None
        out = parts[0]
        for part in parts[1:]:
            out = out & part
        return out

    def params(self) -> dict[str, str | None]:
        return {"kind": self.kind, "source": self.source, "tier": self.tier, "status": self.status or None}


def _select(name: str, values: list[str], chosen: str | None, labels: dict[str, str] | None = None) -> r.Safe:
    words = labels or {}
    options = r.join(
        r.fmt(
            '<option value="{v}"{sel}>{label}</option>',
            v=v,
            label=words.get(v, v),
            sel=r.Safe(" selected" if v == chosen else ""),
        )
        for v in (list(words) if labels else sorted({*values, *([chosen] if chosen else [])}))
    )
    first = r.EMPTY if labels else r.Safe('<option value="">any</option>')
    return r.fmt(
        '<label>{name} <select name="{name}">{first}{options}</select></label> ',
        name=name,
        first=first,
        options=options,
    )


def _items(
    mem: Memory,
    scope: str,
    q: str | None,
    cursor: str | None,
    filters: Filters,
    summary: dict[str, Any],
    now: datetime,
) -> r.Safe:
    search = r.fmt(
        '<form method="get" action="/" class="search"><input type="hidden" name="scope" value="{scope}">'
        '<input type="search" name="q" value="{q}" placeholder="recall…" aria-label="recall"> '
        '<span class="filters">{kind}{source}{tier}{status}</span><button>search</button></form>',
        scope=scope,
        q=q or "",
        kind=_select("kind", list(summary["by_kind"]), filters.kind),
        source=_select("source", list(summary["by_source"]), filters.source),
        tier=_select("tier", ["active", "durable", "subconscious"], filters.tier),
        status=_select("status", [], filters.status, STATUS_CHOICES),
    )
    more = r.Safe("")
    where = filters.where()
    if q:
        # A tier chosen in the filter is searched even when recall would skip it (subconscious).
        tiers = [filters.tier] if filters.tier else ["active", "durable"]
        hits = mem.recall(
            q,
            scope=scope,
            k=_shown(mem, PAGE_ROWS),
            where=where,
            tiers=tiers,
            record_use=False,
            include_history=bool(filters.status),
        )
        table = rows.item_table(
            (rows.item_row(x.item, scope, now, x.score, searching=True) for x in hits), searching=True
        )
    else:
        page = mem.list(
            scope=scope,
            where=where,
            limit=_shown(mem, PAGE_ROWS),
            cursor=cursor,
            sort="-recorded_at",
            include_closed=bool(filters.status),
        )
        table = rows.item_table(rows.item_row(i, scope, now) for i in page.items)
        if page.next_cursor:
            href = r.url("/", scope=scope, cursor=page.next_cursor, **filters.params())
            more = r.fmt('<p><a href="{href}">more…</a></p>', href=href)
    return r.fmt(
        '<section class="list"><h3>Memories</h3>{search}{table}{more}</section>',
        search=search,
        table=table,
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
        both = r.action_form("dismiss_contradiction", "not a conflict", csrf, scope=scope, edge_id=a.edge_id)
        rows.append(
            r.fmt(
                '<li class="conflict{hot}"><p>A: {ta} <small>({sa}, trust {aa})</small></p>'
                "<p>B: {tb} <small>({sb}, trust {ab})</small></p><p>{axis}: {reason}</p>{ka}{kb}{both}</li>",
                hot=r.Safe(" alert" if a.alert else ""),
                ta=a.a.text,
                sa=a.a.source.replace("_", " "),
                aa=f"{a.a.scores.authority:.2f}",
                tb=a.b.text,
                sb=a.b.source.replace("_", " "),
                ab=f"{a.b.scores.authority:.2f}",
                axis=a.axis,
                reason=a.reason,
                ka=keep_a,
                kb=keep_b,
                both=both,
            )
        )
    return r.fmt(
        '<section class="contradictions"><h3>Contradictions ({n})</h3><ul>{rows}</ul></section>',
        n=len(alerts),
        rows=r.join(rows),
    )


@router.get("/dream")
def dream_preview(request: Request, scope: str) -> Response:
    """What a pass would do now (a dry run: nothing is written), with a button to run it."""
    if _needs_login(request):
        return RedirectResponse("/login", status_code=303)
    return html_errors(request, scope, lambda: _dream_preview(request, scope))


def _dream_preview(request: Request, scope: str) -> Response:
    mem = _mem(request)
    csrf = _csrf_or_new(request)
    report = mem.dream(scope=scope, dry_run=True)
    body = r.fmt(
        '<h2>{scope}</h2><section class="dream preview"><h3>If a dream pass ran now</h3>{plan}'
        '<p><a href="{back}">back</a></p></section>',
        scope=scope,
        plan=dreampanel.preview(mem, scope, report.to_dict(), csrf, mem.clock.now()),
        back=r.url("/", scope=scope),
    )
    return _page(request, r.layout(f"reverie — dream preview — {scope}", scope, mem.scopes(), body), csrf)


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


@_action("undismiss")
def _undismiss(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    """Lift the tombstone of the dismissed item ``id`` (by its text, and its key and value if it
    has them), then show that item again."""
    item = mem.get(_field(f, "id"), scope=scope)
    if item.status != "dismissed":
        raise InvalidInputError(f"this memory is {item.status}, not dismissed: there is nothing to undismiss")
    value = item.value if item.key else None
    mem.undismiss(item.text, scope=scope, key=item.key, value=value, reason=f.get("reason", ""))
    return item.id


def _edited(f: dict[str, str], name: str) -> str | None:
    """The field ``name`` as the person left it, or None if it is what the page showed.

    The item page sends ``shown_NAME`` beside each pre-filled field; a form without it (a script
    posting only what it means) has every field it sends taken as meant.
    """
    now, shown = f.get(name, "").strip(), f.get(f"shown_{name}")
    return None if shown is not None and now == shown.strip() else now


@_action("revise")
def _revise(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    """Correct the text and, when the person changed them, the structured key and value.

    Key and value left as shown are not sent, so the page does what ``revise(id, text)`` does:
    the old value stays only if the new text still states it (finding 6: re-sending the shown
    value kept "1024" on a correction to "2048"). A value the person emptied is dropped (the key
    is sent without a value); a key cannot be emptied (a correction keeps its key).
    """
    item_id, text, reason = _field(f, "id"), _field(f, "text"), f.get("reason", "")
    key, value = _edited(f, "key"), _edited(f, "value")
    if key == "" and f.get("shown_key", "").strip():
        raise InvalidInputError(
            "a correction keeps its key: leave the key as shown (or type a new one); to drop the key, "
            "forget this memory and remember the text without one"
        )
    typed: str | int | float | None = value or None
    if value == "" and f.get("shown_value", "").strip():  # emptied by the person: no value any more
        key = key or mem.get(item_id, scope=scope).key  # a key without a value drops the old value
    elif value:
        old = mem.get(item_id, scope=scope).value
        if old is not None and value == str(old):  # a form shows a number as text: left as it was, it stays a number
            typed = old
    return mem.revise(item_id, text, scope=scope, reason=reason, key=key or None, value=typed).id


@_action("dream")
def _dream_now(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    mem.dream(scope=scope)
    return None


@_action("promote")
def _promote(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    return mem.promote(_field(f, "id"), scope=scope, to=_field(f, "to"), reason=f.get("reason", "")).id


@_action("scores")
def _scores(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    """Set the scores the person changed, and only those (finding 10: re-sending every shown
    score rewrote them rounded to two decimals, and set importance, which states it)."""
    values: dict[str, Any] = {}  # Any: mypy would otherwise match floats to expected_version
    for name in ("authority", "confidence", "importance", "durability", "value"):
        typed = _edited(f, name)
        if typed:
            try:
                values[name] = float(typed)
            except ValueError as exc:
                raise InvalidInputError(f"{name} must be a number in [0, 1]") from exc
    if not values:
        raise InvalidInputError(
            "no score was changed: edit at least one of trust (authority), confidence, importance, durability "
            "or usefulness (value), then press set scores"
        )
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


@_action("dismiss_contradiction")
def _not_a_conflict(mem: Memory, f: dict[str, str], scope: str) -> str | None:
    mem.dismiss_contradiction(_field(f, "edge_id"), scope=scope, reason=f.get("reason", ""))
    return None


ACTIONS["dismiss_alert"] = alertpanel.dismiss  # h-patterns


@router.post("/ui/{action}")
async def act(request: Request, action: str) -> Response:
    if _needs_login(request):
        raise HTTPException(401, "sign in first")
    fn = ACTIONS.get(action)
    if fn is None:
        raise HTTPException(404, f"no action {action!r}")
    form = await _form(request)
    scope = _field(form, "scope")
    try:
        item_id = await run_in_threadpool(fn, _mem(request), form, scope)
    except ReverieError as exc:
        if not _wants_html(request):
            raise
        return await run_in_threadpool(_error_page, request, exc, scope)
    done = _done(action, form)
    target = r.url(f"/items/{item_id}", scope=scope, done=done) if item_id else r.url("/", scope=scope, done=done)
    return RedirectResponse(target, status_code=303)


def _done(action: str, form: dict[str, str]) -> str:
    """The ``DONE`` message this action earned (``promote-manual``, ``learning-pause``, …)."""
    for qualifier in ("to", "state"):
        if f"{action}-{form.get(qualifier, '')}" in DONE:
            return f"{action}-{form[qualifier]}"
    return action
