"""Which dream gists a correction leaves without a standing source.

Why (outside probe, finding 4): a gist restates what its sources said. Once every source was
corrected (superseded: revise, resolve, a supersedes link) or dismissed, the gist is the last
place the corrected-away value lives, and recall answered with it. A *pruned* source (forgotten
by a pass or a person) is different: a gist's sources are evidence, not premises, and what a
forgotten claim said is still what was observed, so it keeps the gist standing. A change in the
world (revise with ``valid_from``) retracts nothing: the old version stays believed.

The reducer asks this after every command, with the ids its events retract, before they are
applied; the answer is deterministic (sorted ids) and written as ``memory.forgotten`` events in
the same transaction, so replay and every backend agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from reverie.model import events as ev
from reverie.model.item import Edge, Item

#: Statuses of a source that no longer vouches for what it said.
RETRACTED = frozenset({"superseded", "dismissed"})


class GistView(Protocol):
    """What the check reads (a subset of ``reduce_kit.StateView``)."""

    def item(self, scope: str, item_id: str) -> Item | None: ...

    def edges_of(self, scope: str, item_id: str) -> list[Edge]: ...

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]: ...


def made_by_dream(item: Item, product: str) -> bool:
    """``item`` is a dream pass's ``product`` (``meta.dream``): source ``system``, or an imported copy of one.

    ``reverie import`` stores every claim as source ``imported`` and keeps the file's source in
    ``provenance.source``; read by ``source`` alone, an imported pattern was no pattern (recall
    never surfaced it for a "when" question) and an imported gist counted as one more event.
    Here (not in ``dream``) because the reducer asks it too.
    """
    if item.meta.get("dream") != product:
        return False
    return item.source == "system" or (item.source == "imported" and item.provenance.source == "system")


def retracted_by(events: Iterable[ev.Event]) -> list[str]:
    """Ids the events take out of belief as wrong: a correction's old version, a superseded or a
    dismissed current claim (not a forget, not a change in the world)."""
    out: list[str] = []
    for e in events:
        if e.type == ev.REVISED and "old_valid_to" not in e.payload:
            out.append(str(e.payload["old_id"]))
        elif e.type == ev.SUPERSEDED or (e.type == ev.DISMISSED and e.payload.get("was_current")):
            out.append(str(e.payload["id"]))
    return out


def orphaned_gists(view: GistView, scope: str, retracted: Sequence[str]) -> list[Item]:
    """Current gists made from one of ``retracted`` none of whose sources still stands, by id."""
    if not retracted:
        return []
    gone = set(retracted)
    found: dict[str, Item] = {}
    for source in retracted:
        for e in view.edges_of(scope, source):
            if e.type != "derived_from" or e.dst != source or e.src in found:
                continue
            gist = view.item(scope, e.src)
            if gist is not None and gist.id not in gone and gist.is_current and made_by_dream(gist, "gist"):
                found[gist.id] = gist
    return [found[k] for k in sorted(found) if not _standing(view, scope, found[k], gone)]


def sources(view: GistView, scope: str, gist: Item) -> list[str]:
    """A gist's sources: its parents and its ``derived_from`` edges (a gist lists at most
    ``Limits.max_parents`` members as parents, the rest by edges)."""
    linked = (e.dst for e in view.edges_from(scope, gist.id, "derived_from"))
    return list(dict.fromkeys((*gist.parents, *linked)))


def _standing(view: GistView, scope: str, gist: Item, gone: set[str]) -> bool:
    for source in sources(view, scope, gist):
        if source in gone or source == gist.id:
            continue
        it = view.item(scope, source)
        if it is not None and it.status not in RETRACTED:
            return True
    return False


__all__ = ["RETRACTED", "made_by_dream", "orphaned_gists", "retracted_by", "sources"]
