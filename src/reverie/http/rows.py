"""The memories table, shared by the scope page and the item page.

One row per memory with what a person needs to judge it at a glance (its words, kind, source,
evidence, tier, two score bars, validity in words, human times) and nothing else: the table
has to fit 1280 px without a horizontal scrollbar, and becomes one card per memory on a phone
(``review.css`` reads each cell's ``data-label``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from reverie.http import humane as h
from reverie.http import render as r
from reverie.model.item import Item


def item_row(item: Item, scope: str, now: datetime, score: float | None = None, *, searching: bool = False) -> r.Safe:
    """One memory as a table row: its text with kind, source and evidence under it, then tier,
    two score bars, validity in words and human times. Each cell carries ``data-label`` so the
    phone layout (a card per memory) can name it."""
    status = "" if item.is_current else f" · {h.status(item)}"
    relevance = r.fmt('<td data-label="relevance">{s}</td>', s=f"{score:.3f}" if score is not None else "")
    used = h.time(item.last_used_at, now)
    if item.last_used_query:
        used = r.fmt('<span title="last query: {q}">{t}</span>', q=item.last_used_query, t=used)
    return r.fmt(
        '<tr class="{cls}"><td class="text" data-label="memory"><a href="{href}">{text}</a>'
        '<div class="meta">{kind} · {source} · evidence {evidence}{status}</div></td>{relevance}'
        '<td data-label="tier"><span class="tier tier-{tier}">{tier}</span></td>'
        '<td data-label="scores">{scores}</td><td data-label="valid">{valid}</td>'
        '<td data-label="recorded">{rec}</td><td data-label="last used">{used}</td></tr>',
        cls=r.Safe("current" if item.is_current else "closed"),
        href=r.url(f"/items/{item.id}", scope=scope),
        text=item.text,
        kind=item.kind,
        source=item.source.replace("_", " "),
        evidence=item.evidence_count,
        status=status,
        relevance=relevance if searching else r.EMPTY,
        tier=item.tier,
        scores=h.score_bars(item, ("authority", "value")),
        valid=h.validity(item, now),
        rec=h.time(item.recorded_at, now),
        used=used,
    )


def item_table(rows: Iterable[r.Safe], *, searching: bool = False) -> r.Safe:
    body = r.join(rows)
    if not body:
        return r.Safe('<p class="empty">nothing here</p>')
    relevance = "<th>relevance</th>" if searching else ""
    head = r.Safe(
        f"<thead><tr><th>memory</th>{relevance}<th>tier</th><th>scores</th><th>valid</th><th>recorded</th>"
        "<th>last used</th></tr></thead>"
    )
    return r.fmt('<table class="items">{head}<tbody>{body}</tbody></table>', head=head, body=body)
