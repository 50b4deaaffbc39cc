"""Slice export: the items asked for, closed over their parents, aliases and contradictions.

Split from ``slices`` (which imports): export only reads, so it needs nothing of ``Writes``.
It picks items (the ones asked for, then their parents, aliases and contradictions) and the
current edges between them, in the shape the receiving store will keep (``reverie.slice.format``).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence

from reverie.errors import InvalidInputError, LimitExceededError, NotFoundError
from reverie.memory.core import Core
from reverie.memory.slice_agenda import export_agenda
from reverie.memory.slice_conversations import export_conversations
from reverie.model import events as ev
from reverie.model.agenda import agenda_record_id, is_agenda_event
from reverie.model.cursor import BY_ID, after_id
from reverie.model.ids import is_id
from reverie.model.item import Edge, Item
from reverie.model.query import Q
from reverie.model.validate import check_id
from reverie.slice.format import IMPORTED_AUTHORITY, ORIGIN_META, Slice, SliceEdge, SliceItem
from reverie.store.protocol import Store

#: The most items one slice may carry (export and import): a bound, like every input's.
MAX_SLICE_ITEMS = 100_000
#: Items read per page when a whole scope is walked.
PAGE = 1000


def export_slice(
    core: Core,
    *,
    scope: str,
    memory_ids: Sequence[str] | None = None,
    include_parents: bool = True,
    include_aliases: bool = True,
    include_contradictions: bool = True,
    include_intents: bool = False,
    include_tasks: bool = False,
    include_conversations: bool = False,
) -> Slice:
    """A slice of ``scope``: the items ``memory_ids`` (all current items when None) and, on
    request, their parents (transitively), aliases (transitively) and the items that
    contradict them (one hop; their own parents are named, not added), with every current
    edge between the chosen items (an edge to an item left out is left out).

    ``include_intents`` / ``include_tasks`` add the ``intents`` / ``tasks`` sections: the
    records about the chosen claims (every open one when ``memory_ids`` is None), with their
    sub-records, moves and failures (``reverie.memory.slice_agenda`` says which exactly).
    ``include_conversations`` adds the ``conversations`` section (format version 2): every
    conversation of the scope, or those an exported item belongs to, whole, with their
    messages' memories among the items (``reverie.memory.slice_conversations``).
    Each item carries its visibility (format version 3 when one is restricted). Read as a
    principal, the store hides what that principal may not see, so the slice leaves those
    claims out (and edges to them); a hidden id in ``memory_ids`` is not found, as on every read.
    Raises ``NotFoundError`` for an id not in the scope; reads only, writes nothing. Every read is
    of one commit (``Store.read_snapshot``): a write another process commits during the export is
    in none of the slice, so its items, edges, records and conversations agree.
    """
    s = core.scope(scope)
    for name, flag in (
        ("include_parents", include_parents),
        ("include_aliases", include_aliases),
        ("include_contradictions", include_contradictions),
        ("include_intents", include_intents),
        ("include_tasks", include_tasks),
        ("include_conversations", include_conversations),
    ):
        if not isinstance(flag, bool):
            raise InvalidInputError(f"{name} must be True or False")
    with core.store.read_snapshot():
        chosen = _seed(core, s, memory_ids)
        conversations = (
            export_conversations(core.store, s, chosen, memory_ids is None) if include_conversations else None
        )
        edges = _EdgeCache(core, s)
        if include_parents or include_aliases:
            _close_over(core, s, chosen, edges, include_parents, include_aliases)
        if include_contradictions:
            for item_id in builtins.list(chosen):
                for e in edges.of(item_id):
                    if e.type == "contradicts":
                        other = e.dst if e.src == item_id else e.src
                        _add(core, s, chosen, [other])
        if len(chosen) > MAX_SLICE_ITEMS:
            raise LimitExceededError(f"{len(chosen)} items in one slice; the limit is {MAX_SLICE_ITEMS}")
        items = sorted(chosen.values(), key=lambda i: (i.recorded_at, i.id))
        between = {e.id: e for i in items for e in edges.of(i.id) if e.src in chosen and e.dst in chosen}
        intents, tasks = export_agenda(
            core.store, s, chosen, memory_ids is None, include_intents, include_tasks, record_events(core.store, s)
        )
        return Slice(
            scope=s,
            exported_at=core.clock.now(),
            items=tuple(_slice_item(i) for i in items),
            edges=tuple(_slice_edge(e) for e in sorted(between.values(), key=lambda e: (e.recorded_at, e.id))),
            intents=intents,
            tasks=tasks,
            conversations=conversations,
        )


def record_events(store: Store, s: str) -> Callable[[str], builtins.list[ev.Event]]:
    """An intent's or task's events, oldest first (its creation and every move).

    Read in one pass over the scope's log on first use, bucketed by record: a read per record
    (``events(item_id=...)``) scans the log each time, and 1,000 records took 20 s to export.
    """
    index = None

    def of(record_id: str) -> builtins.list[ev.Event]:
        nonlocal index
        if index is None:
            index = _agenda_events(store, s)
        return index.get(record_id, [])

    return of


def _seed(core: Core, s: str, memory_ids: Sequence[str] | None) -> dict[str, Item]:
    store = core.store
    if memory_ids is None:
        out: dict[str, Item] = {}
        page: list[Item] = []
        while True:
            page = store.query(s, Q.status("live") & after_id(page), BY_ID, limit=PAGE)
            out.update((i.id, i) for i in page)
            if len(page) < PAGE:
                return out
            if len(out) > MAX_SLICE_ITEMS:
                raise LimitExceededError(f"more than {MAX_SLICE_ITEMS} items in one slice; pass memory_ids")
    if isinstance(memory_ids, str) or not isinstance(memory_ids, Sequence):
        raise InvalidInputError("memory_ids must be a list of item ids (or None for every current item)")
    if len(memory_ids) > MAX_SLICE_ITEMS:
        raise LimitExceededError(f"{len(memory_ids)} items in one slice; the limit is {MAX_SLICE_ITEMS}")
    ids = [check_id(i, "memory_ids") for i in memory_ids]
    chosen: dict[str, Item] = {}
    _add(core, s, chosen, ids, strict=True)
    return chosen


def _add(core: Core, s: str, chosen: dict[str, Item], ids: Sequence[str], *, strict: bool = False) -> list[str]:
    """Add the items ``ids`` not chosen yet; returns the ids added (strict: all must exist)."""
    want = [i for i in dict.fromkeys(ids) if i not in chosen]
    found = core.store.get_many(s, want) if want else {}
    missing = [i for i in want if i not in found]
    if strict and missing:
        raise NotFoundError(f"no item {missing[0]} in scope {s!r}")
    chosen.update(found)
    return [i for i in want if i in found]


def _close_over(core: Core, s: str, chosen: dict[str, Item], edges: _EdgeCache, parents: bool, aliases: bool) -> None:
    frontier = builtins.list(chosen)
    while frontier:
        nxt: list[str] = []
        for item_id in frontier:
            if parents:
                nxt += chosen[item_id].parents
            if aliases:
                nxt += [e.dst if e.src == item_id else e.src for e in edges.of(item_id) if e.type == "alias"]
        frontier = _add(core, s, chosen, nxt)


def _agenda_events(store: Store, s: str) -> dict[str, list[ev.Event]]:
    """Every intent and task event of scope ``s``, by the record it is about, oldest first."""
    out: dict[str, list[ev.Event]] = {}
    after = 0
    while True:
        page = store.events(s, after_seq=after, limit=PAGE * 10)
        for e in page:
            record = agenda_record_id(e.payload) if is_agenda_event(e.type) else None
            if record is not None:
                out.setdefault(record, []).append(e)
        if len(page) < PAGE * 10:
            return out
        after = page[-1].seq


def _slice_item(it: Item) -> SliceItem:
    meta = dict(it.meta)
    origin = meta.pop(ORIGIN_META, None)
    original = it.provenance.source if it.source == "imported" and it.provenance.source else it.source
    scores = it.scores.to_dict()
    scores["authority"] = min(scores["authority"], IMPORTED_AUTHORITY)
    return SliceItem(
        id=it.id,
        origin_id=origin if is_id(origin) else it.id,
        text=it.text,
        kind=it.kind,
        provenance={
            "origin": it.provenance.origin,
            "ref": it.provenance.ref,
            "locator": it.provenance.locator,
            "source": original,
        },
        scores=scores,
        recorded_at=it.recorded_at,
        key=it.key,
        value=it.value,
        author=it.author,
        tags=it.tags,
        meta=meta,
        parents=it.parents,
        tier=it.tier,
        status=it.status,
        valid_from=it.valid_from,
        valid_to=it.valid_to,
        visibility=it.visibility,  # None: everyone, as a slice says it
    )


def _slice_edge(e: Edge) -> SliceEdge:
    return SliceEdge(
        id=e.id,
        type=e.type,
        src=e.src,
        dst=e.dst,
        recorded_at=e.recorded_at,
        author=e.author,
        authority=min(e.authority, IMPORTED_AUTHORITY),
        meta=dict(e.meta),
    )


class _EdgeCache:
    """Each chosen item's current edges, read once."""

    def __init__(self, core: Core, scope: str) -> None:
        self._store = core.store
        self._scope = scope
        self._edges: dict[str, list[Edge]] = {}

    def of(self, item_id: str) -> list[Edge]:
        found = self._edges.get(item_id)
        if found is None:
            found = self._edges[item_id] = self._store.edges(self._scope, item_id)
        return found
