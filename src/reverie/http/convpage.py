"""The review page's conversation and people views: read-only pages linked from the scope page.

``/conversations?scope=S`` lists a scope's conversations; ``/conversation?scope=S&id=C`` shows
one: every message (who, when, word for word), the claims extraction wrote from each (found by
their ``meta.message_id``), and the tool-call records between them. ``/people?scope=S`` lists the
persons (aliases, relations, how many claims); ``/person?scope=S&name=N`` shows one with aliases,
relations and the claims about them.

Everything shown was written by someone in a conversation, so every value goes through
``render.fmt`` (escaped). The views only read (the conversation is opened with ``create=False``
and nothing releases it), so they carry no form and need no CSRF token beyond the cookie every
page sets; sign-in and the error page are the scope page's own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from reverie.http import page as p
from reverie.http import render as r
from reverie.memory import Memory
from reverie.model.conversation import Entry
from reverie.model.item import Item
from reverie.model.query import Q

router = APIRouter(include_in_schema=False)

#: Most entries a conversation view shows (it says when there are more).
MAX_ENTRIES = 500


def _view(request: Request, scope: str, title: str, build: Any) -> Response:
    if p._needs_login(request):
        return RedirectResponse("/login", status_code=303)

    def render() -> Response:
        mem = p._mem(request)
        csrf = p._csrf_or_new(request)
        body = r.fmt(
            '<h2>{scope}</h2>{body}<p><a class="back" href="{back}">back to the scope</a></p>',
            scope=scope,
            body=build(mem),
            back=r.url("/", scope=scope),
        )
        return p._page(request, r.layout(f"reverie — {title} — {scope}", scope, mem.scopes(), body), csrf)

    return p.html_errors(request, scope, render)


@router.get("/conversations")
def conversations_view(request: Request, scope: str) -> Response:
    """The scope's conversations, most recently active first, each a link to its view."""
    return _view(request, scope, "conversations", lambda mem: _conversation_list(mem, scope))


@router.get("/conversation")
def conversation_view(request: Request, scope: str, id: str) -> Response:
    """One conversation: messages, the claims extracted from each, tool-call records."""
    return _view(request, scope, f"conversation {id}", lambda mem: _conversation(mem, scope, id))


@router.get("/people")
def people_view(request: Request, scope: str) -> Response:
    """The scope's persons with their aliases, each a link to its view."""
    return _view(request, scope, "people", lambda mem: _people(mem, scope))


@router.get("/person")
def person_view(request: Request, scope: str, name: str) -> Response:
    """One person: aliases, relations (both ways) and the current claims about them."""
    return _view(request, scope, f"person {name}", lambda mem: _person(mem, scope, name))


def _conversation_list(mem: Memory, scope: str) -> r.Safe:
    found = mem.conversations(scope=scope)
    if not found:
        return r.Safe('<section class="conversations"><p class="empty">No conversations yet.</p></section>')
    rows = r.join(
        r.fmt(
            '<tr class="conversation" data-id="{id}"><td><a href="{href}">{id}</a></td><td>{turns}</td>'
            "<td>{session}</td><td>{last}</td></tr>",
            id=c.id,
            href=r.url("/conversation", scope=scope, id=c.id),
            turns=c.turn,
            session=c.session,
            last=r.when(c.last_at),
        )
        for c in found
    )
    return r.fmt(
        '<section class="conversations"><h3>Conversations ({n})</h3><table><thead><tr><th>conversation</th>'
        "<th>messages</th><th>session</th><th>last message</th></tr></thead><tbody>{rows}</tbody></table></section>",
        n=len(found),
        rows=rows,
    )


def _conversation(mem: Memory, scope: str, conversation: str) -> r.Safe:
    conv = mem.conversation(conversation, scope=scope, create=False)
    entries = conv.entries()
    shown = [e for e in entries if e.kind in ("message", "tool_call")][:MAX_ENTRIES]
    claims = _claims_by_message(mem, scope, conversation)
    more = r.fmt('<p class="more">Showing the first {n}.</p>', n=MAX_ENTRIES) if len(shown) >= MAX_ENTRIES else r.EMPTY
    return r.fmt(
        '<section class="conversation" data-id="{id}"><h3>Conversation {id}</h3><ol class="entries">{rows}</ol>'
        "{more}</section>",
        id=conversation,
        rows=r.join(_entry(e, claims.get(e.id, [])) for e in shown) or r.Safe('<li class="empty">No messages.</li>'),
        more=more,
    )


def _claims_by_message(mem: Memory, scope: str, conversation: str) -> dict[str, list[Item]]:
    """The current claims extraction wrote from this conversation's messages, by message id."""
    out: dict[str, list[Item]] = {}
    where = Q.meta("conversation", conversation) & Q.meta_has("message_id")
    cursor: str | None = None
    for _ in range(MAX_ENTRIES // mem.limits.max_k + 1):  # bounded: a page view never reads without end
        page = mem.list(scope=scope, where=where, limit=mem.limits.max_k, cursor=cursor)
        for item in page.items:
            out.setdefault(str(item.meta.get("message_id")), []).append(item)
        cursor = page.next_cursor
        if cursor is None:
            break
    return out


def _entry(e: Entry, claims: Sequence[Item]) -> r.Safe:
    if e.kind == "tool_call":
        return r.fmt(
            '<li class="tool-call" data-id="{id}"><span class="when">{at}</span> tool <b class="tool">{name}</b> '
            '<span class="status">{status}</span> <code class="args">{args}</code> <span class="detail">{detail}</span>'
            "</li>",
            id=e.id,
            at=e.at.isoformat(),
            name=e.text,
            status=e.meta.get("status", ""),
            args=_compact(e.meta.get("args")),
            detail=e.meta.get("detail", ""),
        )
    extracted = (
        r.fmt(
            '<ul class="claims">{rows}</ul>',
            rows=r.join(r.fmt('<li class="claim" data-id="{id}">{text}</li>', id=c.id, text=c.text) for c in claims),
        )
        if claims
        else r.EMPTY
    )
    return r.fmt(
        '<li class="message {role}" data-id="{id}"><span class="when">{at}</span> '
        '<b class="speaker">{who}</b>: <span class="text">{text}</span>{extracted}</li>',
        id=e.id,
        role=e.role or "",
        at=e.at.isoformat(),
        who=e.speaker or e.role or "-",
        text=e.text,
        extracted=extracted,
    )


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str) if value else ""


def _people(mem: Memory, scope: str) -> r.Safe:
    found = mem.people(scope=scope)
    if not found:
        return r.Safe('<section class="people"><p class="empty">Nobody is known in this scope yet.</p></section>')
    rows = r.join(
        r.fmt(
            '<tr class="person" data-id="{id}"><td><a href="{href}">{name}</a></td><td>{aliases}</td>'
            '<td class="relations">{relations}</td><td class="claims">{claims}</td></tr>',
            id=x.id,
            href=r.url("/person", scope=scope, name=x.id),
            name=x.name,
            aliases=", ".join(x.aliases),
            relations="; ".join(f"{rel.person_name} is {rel.of_name}'s {rel.type}" for rel in x.relations) or "—",
            claims=str(x.claim_count),
        )
        for x in found
    )
    return r.fmt(
        '<section class="people"><h3>People ({n})</h3><table><thead><tr><th>name</th><th>aliases</th>'
        "<th>relations</th><th>claims</th></tr></thead><tbody>{rows}</tbody></table></section>",
        n=len(found),
        rows=rows,
    )


def _person(mem: Memory, scope: str, name: str) -> r.Safe:
    x = mem.person(name, scope=scope)
    relations = r.join(
        r.fmt(
            '<li class="relation" data-claim="{claim}">{who} is {of}\'s {type}</li>',
            claim=rel.claim,
            who=rel.person_name,
            of=rel.of_name,
            type=rel.type,
        )
        for rel in x.relations
    )
    claims = r.join(r.fmt('<li class="claim" data-id="{id}">{text}</li>', id=c.id, text=c.text) for c in x.claims)
    return r.fmt(
        '<section class="person" data-id="{id}"><h3>{name}</h3><p class="aliases">aliases: {aliases}</p>'
        '<h4>Relations</h4><ul class="relations">{relations}</ul><h4>Claims about {name}</h4>'
        '<ul class="claims">{claims}</ul><p><a href="{all}">all people</a></p></section>',
        id=x.id,
        name=x.name,
        aliases=", ".join(x.aliases) or "—",
        relations=relations or r.Safe('<li class="empty">None known.</li>'),
        claims=claims or r.Safe('<li class="empty">None.</li>'),
        all=r.url("/people", scope=scope),
    )
