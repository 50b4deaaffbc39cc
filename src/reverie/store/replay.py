"""An item as it stood at a past time: its own events replayed through the projection.

The one definition of "the item as of T" that ``get(id, as_of=T)`` and ``recall(as_of=T)`` share,
so the two "what did we believe then" reads cannot disagree (outside probe, finding 3: recall
ranked by today's scores and returned today's status). It sits beside the store protocol because
it is a read over any ``Store`` (SQLite, PostgreSQL, the reference store, a principal's
``VisibleStore``), using the pure ``model.projection`` the stores themselves apply.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime

from reverie.model.events import Event
from reverie.model.item import Item
from reverie.model.projection import ProjectionView, PutItem, PutTiers, project
from reverie.model.redact import PURGED_FLAG, REDACTED
from reverie.store.protocol import Store

#: The first page of an item's events a replay reads; each further page is ``PAGE_GROWTH`` times
#: larger. Why pages: the replay stops at the first event after ``when``, and reading the whole
#: log first made a look at the past cost every event since — above all the ``memory.used``
#: event each plain recall records about its hits (outside probe 5, #7: 1,500 recalls since T
#: took one as_of recall from 2 ms to 3.3 s). Now a read takes the events up to ``when`` and at
#: most one page past it, in a handful of queries however long the item's history.
FIRST_PAGE = 8
PAGE_GROWTH = 4


def item_at(store: Store, scope: str, item_id: str, when: datetime) -> Item | None:
    """Replay ``item_id``'s events up to ``when`` (inclusive): its state then, None if it did not exist yet."""
    states: dict[str, Item] = {}

    def item(_scope: str, other: str) -> Item | None:
        # An event may also need another item (``memory.revised`` closes the version it
        # replaces): that one comes from its current row. Only this item's state is kept.
        return states[other] if other in states else store.get(scope, other)

    view = ProjectionView(item, lambda _s, _e: None)
    for event in _events_until(store, scope, item_id, when):
        for change in project(event, view):
            if isinstance(change, PutItem) and change.item.id == item_id:
                states[item_id] = change.item
            elif isinstance(change, PutTiers) and item_id in states:
                states[item_id] = change.moved(states[item_id]) or states[item_id]
    return states.get(item_id)


def _events_until(store: Store, scope: str, item_id: str, when: datetime) -> Iterator[Event]:
    """``item_id``'s events in log order up to the first one after ``when`` (not included), read a
    page at a time (``FIRST_PAGE``) so the events after ``when`` are not fetched at all."""
    after, page = 0, FIRST_PAGE
    while True:
        events = store.events(scope, item_id=item_id, after_seq=after, limit=page)
        for event in events:
            if event.at > when:
                return
            yield event
        if len(events) < page:
            return
        after, page = events[-1].seq, page * PAGE_GROWTH


def believed_states(store: Store, scope: str, current: Mapping[str, Item], when: datetime) -> dict[str, Item]:
    """Of the items in ``current`` (their rows now), each one that may have been believed at ``when``,
    as it stood then — what ``item_at`` gives, read only where the row cannot already tell.

    Left out without reading the log: items recorded after ``when``, items closed at or before it
    (closing is final: a reopened value is a new item), and purged items (their content is gone
    for every time, so a look at the past must not bring back even their redacted husk).
    Returned as they are now without replaying: items no event has touched since ``when`` — the
    projection stamps ``updated_at`` on every change and ``last_used_at`` on a use, so a row with
    both at or before ``when`` is the row the replay would rebuild. (One field is the exception:
    an older version's ``visibility`` follows its claim's audience without a stamp; the audience
    shown is then today's, which is also the one every read enforces.) Only the rest — items
    changed since ``when`` — are replayed, so the cost is in what changed, not in the answer.
    """
    out: dict[str, Item] = {}
    for item_id, row in current.items():
        if row.recorded_at > when or PURGED_FLAG in row.flags or row.text == REDACTED:
            continue
        if row.closed_at is not None and row.closed_at <= when:
            continue
        if row.updated_at <= when and (row.last_used_at is None or row.last_used_at <= when):
            out[item_id] = row
            continue
        state = item_at(store, scope, item_id, when)
        if state is not None:
            out[item_id] = state
    return out
