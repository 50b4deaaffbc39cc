"""``StateView.evidence_sources`` for every backend: read from the claim's own events.

Why no projection: the reducer asks only when a ``count_once`` statement meets an equal claim
(a note read again), and each backend already reads one item's events by an index
(``event_refs`` on SQLite, ``events_by_ref`` on PostgreSQL). A table kept for it would need a
schema change, a rebuild rule and a purge rule on both databases for a read this rare.
"""

from __future__ import annotations

from collections.abc import Callable

from reverie.model.events import Event
from reverie.model.evidence import Source, recorded_sources

#: One page of an item's events (``Store.events`` pages by ``after_seq``).
_PAGE = 1000

ReadEvents = Callable[..., list[Event]]


def sources(read: ReadEvents, scope: str, item_id: str) -> frozenset[Source]:
    """The sources the log records as counted evidence for ``item_id`` (``model.evidence``).

    ``read``: the backend's ``events``; inside the write it joins the write's transaction, so a
    statement earlier in the same batch is seen.
    """
    found: set[Source] = set()
    after = 0
    while True:
        page = read(scope, item_id=item_id, after_seq=after, limit=_PAGE)
        found |= recorded_sources(page)
        if len(page) < _PAGE:
            return frozenset(found)
        after = page[-1].seq
