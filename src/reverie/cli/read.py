"""Commands that read: recall, context, show, list, summary, scopes, contradictions (and resolve).

Only ``recall`` and ``context`` change anything, and only as the API does for every caller: a
recalled item records its use (``last_used_at``), which is how ``value`` is learned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from reverie import Edge, Item, Memory, Q
from reverie.cli.crew import crew_filter, crew_filter_options
from reverie.cli.parse import FLOAT, SCORE_NAMES, iso_time, list_filter
from reverie.cli.recall_opts import recall_kwargs, recall_options, where_filter
from reverie.cli.render import (
    clean,
    edge_rows,
    fields,
    item_fields,
    item_rows,
    plural,
    score,
    table,
    tree,
    when,
    why_lines,
)
from reverie.cli.state import json_option, scoped, state, unavailable

F = TypeVar("F", bound=Callable[..., Any])


# -- recall / context -----------------------------------------------------------------------------
def _hit_doc(hit: Any) -> dict[str, Any]:
    return {
        "item": hit.item.to_dict(),
        "score": hit.score,
        "why": hit.why,
        "contradicted_by": list(hit.contradicted_by),
        "asserted": hit.asserted,
    }


def _hit_table(hits: list[Any], why: bool) -> str:
    if not hits:
        return "no memories match"
    rows = []
    for rank, h in enumerate(hits, 1):
        marks = (" (contested)" if h.contradicted_by else "") + ("" if h.asserted else " (low confidence)")
        rows.append([rank, f"{h.score:.4f}", h.item.id, h.item.kind, h.item.source, h.item.text + marks])
    out = table(["#", "SCORE", "ID", "KIND", "SOURCE", "TEXT"], rows)
    if why:
        out += "\n\nwhy"
        for rank, h in enumerate(hits, 1):
            out += f"\n  {rank}. {h.item.id}\n" + "\n".join(why_lines(h.why))
    return out


@click.command()
@click.argument("query")
@click.option("--k", "k", type=int, help="How many memories (default 10, or Limits.max_k if lower).")
@click.option("--why", is_flag=True, help="Show how each hit was scored (ranks per leg, decay, trust…).")
@recall_options
@scoped
@json_option
def recall(query: str, k: int | None, why: bool, **options: Any) -> None:
    """The best current memories for QUERY, each with a score."""
    st = state()
    scope = st.require_scope()
    hits = st.memory().recall(query, scope=scope, k=k, **recall_kwargs(options))
    st.emit({"hits": [_hit_doc(h) for h in hits]}, lambda: _hit_table(hits, why))


@click.command()
@click.argument("query")
@click.option("--budget", type=int, default=800, show_default=True, help="Token budget of the block.")
@click.option("--k", "k", type=int, help="Memories considered before packing (default 50, or Limits.max_k if lower).")
@recall_options
@scoped
@json_option
def context(query: str, budget: int, k: int | None, **options: Any) -> None:
    """Recall for QUERY (with any of recall's options), then pack the best memories into a prompt block of at
    most --budget tokens."""
    st = state()
    scope = st.require_scope()
    block = st.memory().context(query, scope=scope, budget_tokens=budget, k=k, **recall_kwargs(options))
    st.emit({"context": block, "budget_tokens": budget}, lambda: block)


# -- show -----------------------------------------------------------------------------------------
def _related(mem: Memory, scope: str, item: Item, edges: list[Edge], up: bool) -> list[str]:
    """Parents (``up``) or derivatives of ``item``: its ``parents`` / ``Q.parent`` plus ``derived_from`` edges.

    ``A derived_from B`` reads "A is derived from B": B is a parent of A.
    """
    if up:
        ids = [*item.parents, *(e.dst for e in edges if e.type == "derived_from" and e.src == item.id)]
    else:
        page = mem.list(scope=scope, where=Q.parent(item.id), include_closed=True, limit=mem.limits.max_k)
        ids = [i.id for i in page.items] + [e.src for e in edges if e.type == "derived_from" and e.dst == item.id]
    return list(dict.fromkeys(ids))


def _provenance(mem: Memory, scope: str, item: Item, up: bool, depth: int, seen: set[str]) -> list[dict[str, Any]]:
    """The provenance tree above (or below) ``item``, ``depth`` levels, each item once (cycles stop)."""
    if depth < 1:
        return []
    nodes = []
    for other_id in _related(mem, scope, item, mem.edges(item.id, scope=scope, include_closed=True), up):
        if other_id in seen:
            continue
        seen.add(other_id)
        other = mem.get(other_id, scope=scope)
        nodes.append(
            {
                "id": other.id,
                "kind": other.kind,
                "status": other.status,
                "text": other.text,
                "children": _provenance(mem, scope, other, up, depth - 1, seen),
            }
        )
    return nodes


def _show_text(doc: dict[str, Any], item: Item, versions: list[Item], edges: list[Edge], texts: dict[str, str]) -> str:
    parts = [item_fields(item)]
    # V numbers the claim's versions (oldest first); an Item's own ``version`` counts changes to
    # that row (what --expected-version checks), shown as "revision" in the fields above.
    rows = [[n, v.id, v.status, when(v.recorded_at), v.text] for n, v in enumerate(versions, 1)]
    head = f"\nhistory ({plural(len(versions), 'version')})\n"
    parts.append(head + table(["V", "ID", "STATUS", "RECORDED", "TEXT"], rows))
    events = [[e["seq"], e["at"], e["type"], e["payload"].get("reason", "")] for e in doc["history"]["events"]]
    parts.append("\nevents\n" + table(["SEQ", "AT", "EVENT", "REASON"], events))
    parts.append("\nderived from\n" + ("\n".join(tree(doc["parents"], "children")) or "  -"))
    parts.append("\nderived into\n" + ("\n".join(tree(doc["derived"], "children")) or "  -"))
    parts.append("\nedges\n" + (table(*edge_rows(edges, item.id, texts)) if edges else "  -"))
    return "\n".join(parts)


@click.command()
@click.argument("id")
@click.option("--as-of", help="The item as it stood at this ISO-8601 time (UTC if no offset).")
@click.option("--valid-at", help="The version of the claim true in the world at this ISO-8601 time.")
@click.option("--depth", type=click.IntRange(1, 10), default=3, show_default=True, help="Provenance tree depth.")
@scoped
@json_option
def show(id: str, as_of: str | None, valid_at: str | None, depth: int) -> None:
    """One item: every field, its versions and events, its provenance tree and its edges."""
    st = state()
    scope = st.require_scope()
    mem = st.memory()
    item = mem.get(id, scope=scope, as_of=iso_time(as_of, "--as-of"), valid_at=iso_time(valid_at, "--valid-at"))
    history = mem.history(item.id, scope=scope)
    edges = mem.edges(item.id, scope=scope, include_closed=True)
    texts = {i.id: i.text for i in history.versions}
    for e in edges:
        for end in (e.src, e.dst):
            if end not in texts:
                texts[end] = mem.get(end, scope=scope).text
    doc = {
        "item": item.to_dict(),
        "history": {
            "versions": [v.to_dict() for v in history.versions],
            "events": [e.to_dict() for e in history.events],
        },
        "parents": _provenance(mem, scope, item, True, depth, {item.id}),
        "derived": _provenance(mem, scope, item, False, depth, {item.id}),
        "edges": [e.to_dict() for e in edges],
    }
    st.emit(doc, lambda: _show_text(doc, item, history.versions, edges, texts))


# -- list -----------------------------------------------------------------------------------------
def _score_bounds(f: F) -> F:
    """``--min-NAME`` / ``--max-NAME`` (inclusive) for every score."""
    for name in reversed(SCORE_NAMES):
        f = click.option(f"--max-{name}", type=FLOAT, help=f"Only items with {name} <= this.")(f)
        f = click.option(f"--min-{name}", type=FLOAT, help=f"Only items with {name} >= this.")(f)
    return f


@click.command("list")
@click.option("--kind", "kinds", multiple=True, help="Any of these kinds (repeatable).")
@click.option("--source", "sources", multiple=True, help="Any of these sources (repeatable).")
@click.option("--tier", "tiers", multiple=True, help="Any of these tiers (repeatable).")
@click.option("--status", "statuses", multiple=True, help="Any of these statuses; implies --include-closed.")
@click.option("--key", "keys", multiple=True, help="Any of these keys (repeatable).")
@click.option("--author", "authors", multiple=True, help="Any of these authors (repeatable).")
@click.option("--tag", "tags", multiple=True, help="Has this tag (repeatable: all of them).")
@click.option("--flag", "flags", multiple=True, help="Has this flag (repeatable: all of them).")
@click.option("--parent", "parents", multiple=True, metavar="ID", help="Derives from this item (repeatable).")
@click.option("--meta", "metas", multiple=True, metavar="PATH=VALUE", help="meta at PATH equals VALUE (JSON scalar).")
@click.option("--meta-has", multiple=True, metavar="PATH", help="meta has PATH (repeatable).")
@_score_bounds
@click.option("--since", help="Recorded at or after this ISO-8601 time.")
@click.option("--until", help="Recorded before this ISO-8601 time.")
@click.option("--sort", "sorts", multiple=True, help="Sort field, '-' for descending (repeatable): -importance.")
@click.option("--limit", type=int, help="Page size (default 50, or Limits.max_k if lower).")
@click.option("--cursor", help="next_cursor of the previous page.")
@click.option("--include-closed", is_flag=True, help="Also forgotten, superseded and dismissed items.")
@click.option("--valid-at", help="Only what was true in the world at this ISO-8601 time (valid time).")
@click.option("--where", help='A JSON filter in the query algebra, e.g. \'{"kind": "policy"}\'; AND-ed with the rest.')
@scoped
@crew_filter_options
@json_option
def list_items(
    kinds: tuple[str, ...],
    sources: tuple[str, ...],
    tiers: tuple[str, ...],
    statuses: tuple[str, ...],
    keys: tuple[str, ...],
    authors: tuple[str, ...],
    tags: tuple[str, ...],
    flags: tuple[str, ...],
    parents: tuple[str, ...],
    metas: tuple[str, ...],
    meta_has: tuple[str, ...],
    since: str | None,
    until: str | None,
    sorts: tuple[str, ...],
    limit: int | None,
    cursor: str | None,
    include_closed: bool,
    valid_at: str | None,
    where: str | None,
    agents: tuple[str, ...],
    sessions: tuple[str, ...],
    crews: tuple[str, ...],
    **bounds: float | None,
) -> None:
    """Items matching a filter, sorted and paged (values of one option OR-ed, options AND-ed)."""
    st = state()
    scope = st.require_scope()
    given = where_filter(where)  # first: a malformed --where is named before any other option
    found = list_filter(
        kinds=kinds,
        sources=sources,
        tiers=tiers,
        statuses=statuses,
        keys=keys,
        authors=authors,
        tags=tags,
        flags=flags,
        parents=parents,
        metas=metas,
        meta_has=meta_has,
        bounds={n: (bounds[f"min_{n}"], bounds[f"max_{n}"]) for n in SCORE_NAMES},
        since=since,
        until=until,
    )
    found = crew_filter(found, agents=agents, sessions=sessions, crews=crews)
    if given is not None:
        found = given if found is None else given & found
    closed = include_closed or bool(statuses)
    page = st.memory().list(
        scope=scope,
        where=found,
        sort=list(sorts) or None,
        limit=limit,
        cursor=cursor,
        include_closed=closed,
        valid_at=iso_time(valid_at, "--valid-at"),
    )
    doc = {"items": [i.to_dict() for i in page.items], "next_cursor": page.next_cursor}

    def human() -> str:
        if not page.items:
            return "no items"
        out = table(*item_rows(page.items, closed))
        return out + (f"\nmore: --cursor {page.next_cursor}" if page.next_cursor else "")

    st.emit(doc, human)


# -- summary / scopes -----------------------------------------------------------------------------
def _counts(counts: dict[str, int]) -> str:
    return "  ".join(f"{k} {v}" for k, v in counts.items()) or "-"


@click.command()
@scoped
@json_option
def summary() -> None:
    """Counts by tier, kind, source and status, and whether learning is paused."""
    st = state()
    scope = st.require_scope()
    doc = st.memory().summary(scope=scope)
    pairs = [(k, _counts(v) if isinstance(v, dict) else v) for k, v in doc.items()]
    st.emit(doc, lambda: fields(pairs))


@click.command()
@json_option
def scopes() -> None:
    """Every scope that holds anything (items, intents, tasks, conversations), one per line."""
    st = state()
    names = st.memory().scopes()
    st.emit({"scopes": names}, lambda: "\n".join(clean(n) for n in names))


# -- contradictions / resolve ---------------------------------------------------------------------
def _alert_text(alerts: list[dict[str, Any]]) -> str:
    if not alerts:
        return "no open conflicts"
    blocks = []
    for a in alerts:
        marks = "".join(f" [{m}]" for m in ("alert", "hypercorrection", "supersession_candidate") if a.get(m))
        head = f"{a['edge_id']}  axis {clean(a['axis'])}  confidence {score(a['confidence'])}{marks}"
        sides = [
            f"  {n} {s['id']}  ({s['source']}, authority {score(s['authority'])}) {clean(s['text'])}"
            for n, s in (("A", a["a"]), ("B", a["b"]))
        ]
        blocks.append("\n".join([head, *sides, f"  reason: {clean(a['reason'])}"]))
    return "\n\n".join(blocks)


@click.command()
@click.option("--alerts-only", is_flag=True, help="Only conflicts worth a person's attention.")
@click.option("--limit", type=int, help="At most this many (default 100, or Limits.max_k if lower).")
@scoped
@json_option
def contradictions(alerts_only: bool, limit: int | None) -> None:
    """Open conflicts between current items (both sides still believed), most important first."""
    st = state()
    scope = st.require_scope()
    if not hasattr(Memory, "contradictions"):
        raise unavailable("contradictions")
    alerts = [a.to_dict() for a in st.memory().contradictions(scope=scope, alerts_only=alerts_only, limit=limit)]
    st.emit({"contradictions": alerts}, lambda: _alert_text(alerts))


@click.command()
@click.argument("conflict")
@click.option("--keep", required=True, metavar="ID", help="The side that stays; the other is superseded.")
@click.option("--reason", default="", help="Why (kept in history).")
@scoped
@json_option
def resolve(conflict: str, keep: str, reason: str) -> None:
    """Settle a CONFLICT (the contradicts edge id from `contradictions`): --keep one side."""
    st = state()
    scope = st.require_scope()
    if not hasattr(Memory, "resolve"):
        raise unavailable("resolve")
    kept = st.memory().resolve(conflict, keep=keep, scope=scope, reason=reason)
    st.emit({"action": "resolved", "kept": kept.to_dict()}, lambda: f"resolved {conflict}: kept {kept.id}")


COMMANDS = (recall, context, show, list_items, summary, scopes, contradictions, resolve)
