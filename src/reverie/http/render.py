"""HTML for the review page: string templates where *every* interpolated value is escaped.

``fmt`` escapes each argument with ``html.escape`` unless it is already ``Safe`` (a fragment
this module built), so stored text — which is attacker-controlled whenever an agent learned
it from a conversation — can never become markup. No inline script or style: the CSP forbids
both, and the page works (minus a confirm dialog) with JavaScript off.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode


class Safe(str):
    """A fragment already rendered by this module; ``fmt`` inserts it as is."""

    __slots__ = ()


EMPTY = Safe("")


def esc(value: object) -> str:
    if isinstance(value, Safe):
        return value
    return html.escape("" if value is None else str(value), quote=True)


def fmt(template: str, **values: object) -> Safe:
    return Safe(template.format(**{k: esc(v) for k, v in values.items()}))


def join(parts: Iterable[str]) -> Safe:
    return Safe("".join(esc(p) for p in parts))


def url(path: str, **params: object) -> str:
    """A same-site URL; callers still pass it through ``fmt`` (so ``&`` becomes ``&amp;``)."""
    query = urlencode({k: str(v) for k, v in params.items() if v not in (None, "")})
    return f"{path}?{query}" if query else path


def layout(title: str, scope: str | None, scopes: list[str], body: Safe) -> str:
    options = join(
        fmt('<option value="{v}"{sel}>{v}</option>', v=s, sel=Safe(" selected" if s == scope else ""))
        for s in sorted({*scopes, *([scope] if scope else [])})
    )
    picker = fmt(
        '<form method="get" action="/" class="picker"><label>scope <select name="scope" class="autosubmit">'
        "{options}</select></label> <button>open</button></form>",
        options=options,
    )
    return fmt(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
        '<link rel="stylesheet" href="/static/review.css"><script src="/static/review.js" defer></script>'
        '</head><body><header><h1><a href="{home}">reverie</a></h1>{picker}</header><main>{body}</main></body></html>',
        title=title,
        home=url("/", scope=scope),
        picker=picker,
        body=body,
    )


def hidden(csrf: str, **fields: object) -> Safe:
    """The CSRF field plus hidden inputs; every action form starts with this."""
    items = {"csrf": csrf, **fields}
    return join(fmt('<input type="hidden" name="{k}" value="{v}">', k=k, v=v) for k, v in items.items())


def action_form(
    action: str, label: str, csrf: str, *, extra: Safe = EMPTY, danger: bool = False, **fields: object
) -> Safe:
    return fmt(
        '<form method="post" action="/ui/{action}" class="action{cls}">{hidden}{extra}'
        '<input name="reason" placeholder="reason" maxlength="1000"> <button>{label}</button></form>',
        action=action,
        cls=Safe(" confirm" if danger else ""),
        hidden=hidden(csrf, **fields),
        extra=extra,
        label=label,
    )


def counts(title: str, data: Mapping[str, Any]) -> Safe:
    rows = join(fmt("<tr><td>{k}</td><td>{v}</td></tr>", k=k, v=v) for k, v in data.items())
    return fmt('<table class="counts"><caption>{t}</caption>{rows}</table>', t=title, rows=rows or "—")


def when(value: object) -> str:
    return "—" if value is None else str(value)


def fields_list(data: Mapping[str, Any]) -> Safe:
    return fmt(
        '<dl class="fields">{rows}</dl>',
        rows=join(fmt("<dt>{k}</dt><dd>{v}</dd>", k=k, v=when(v)) for k, v in data.items()),
    )
