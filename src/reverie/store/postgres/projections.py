"""How each projection change is written on PostgreSQL: one handler per ``Change`` type.

A new projection (a new event type's rows) is one function here and one entry in
``HANDLERS``; a change type with no handler is refused loudly (``TypeError``), never skipped,
so a projection added to the reducer cannot silently go missing on this backend.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from reverie.model.agenda import PutIntent, PutTask
from reverie.model.clock import to_iso
from reverie.model.conversation import EraseEntries, PutConversation, PutEntry, SetEntryVisibility
from reverie.model.item import Item
from reverie.model.projection import (
    Change,
    DropTombstone,
    EraseContent,
    PutEdge,
    PutItem,
    PutTiers,
    PutTombstone,
    SetPaused,
    superseded_prints,
)
from reverie.model.validate import fingerprints
from reverie.store.postgres import agenda, lexical, prefetch, purge, scopestats
from reverie.store.postgres import conversation as conv
from reverie.store.sqlite.sql import ITEM_COLUMNS, edge_to_row, item_to_row, stored_value


class Writer(Protocol):
    """What a handler needs from the store: statements inside the open write transaction."""

    def x(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    def q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def xmany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def made_by(self) -> str | None: ...


Vectors = Mapping[str, np.ndarray]
Handler = Callable[[Writer, Any, Vectors], None]

_INSERT_ITEM = (
    "INSERT INTO items ("  # nosec B608 # constant columns
    + ", ".join(ITEM_COLUMNS)
    + ", tsv, ntok, vec, made_by) VALUES ("
    + ", ".join(["%s"] * len(ITEM_COLUMNS))
    + ", %s::tsvector, %s, %s::vector, %s)"
)
_UPDATE_ITEM = (
    "UPDATE items SET "  # nosec B608 # constant columns
    + ", ".join(f"{c} = %s" for c in ITEM_COLUMNS[2:])
    + " WHERE scope = %s AND id = %s"
)
#: ``_UPDATE_ITEM`` of a row that stays current (or stays closed): the row's count by state, tokens
#: and vector do not move (those have their own statements below), so a write transaction's scope
#: figures stand (``scopestats.KEEPS``). The comment is the only difference.
_UPDATE_ITEM_SAME_STATE = "/* closed state kept */ " + _UPDATE_ITEM
_SET_TIER = "UPDATE items SET tier = %s, version = version + 1, updated_at = %s WHERE scope = %s AND id = %s"
scopestats.KEEPS.update((_UPDATE_ITEM_SAME_STATE, _SET_TIER))
_EDGE_COLUMNS = "id, scope, type, src, dst, recorded_at, author, authority, meta, closed_at"


def vector_literal(vec: np.ndarray) -> str:
    """pgvector's text form of ``vec``: every float32 written exactly (its shortest repr)."""
    return "[" + ",".join(repr(v) for v in np.asarray(vec, dtype=np.float32).tolist()) + "]"


def _content(item: Item) -> tuple[Any, ...]:
    return (item.text, item.key, stored_value(item.value), json.dumps(list(item.tags), ensure_ascii=False))


def put_item(w: Writer, change: PutItem, vectors: Vectors) -> None:
    item = change.item
    if change.created:
        doc, ntok = lexical.document(item.text, lexical.item_extra(item))
        vec = vectors.get(item.text)
        made_by = w.made_by() if vec is not None else None
        w.x(_INSERT_ITEM, (*item_to_row(item), doc, ntok, None if vec is None else vector_literal(vec), made_by))
        _put_fingerprints(w, item.scope, item.id, fingerprints(item.text, item.key, item.value))
        return
    rows = w.q(
        "SELECT closed_at, text, key, value, tags, vec IS NOT NULL FROM items WHERE scope = %s AND id = %s",
        (item.scope, item.id),
    )
    if not rows:
        return
    closed_at, *old, has_vec = rows[0]
    same_state = (closed_at is None) == item.is_current
    w.x(_UPDATE_ITEM_SAME_STATE if same_state else _UPDATE_ITEM, (*item_to_row(item)[2:], item.scope, item.id))
    if tuple(old) != _content(item):  # a purge rewrote the content: every index of it follows
        _reindex_redacted(w, item, str(old[0]), vectors)
        return
    if not change.redact and item.is_current and not has_vec and item.text in vectors:
        # stored while the embedder was down: the backfill gives it its vector
        w.x(
            "UPDATE items SET vec = %s::vector, made_by = %s WHERE scope = %s AND id = %s",
            (vector_literal(vectors[item.text]), w.made_by(), item.scope, item.id),
        )
    if closed_at is None and not item.is_current:
        w.x("DELETE FROM fingerprints WHERE scope = %s AND item_id = %s", (item.scope, item.id))
        _put_fingerprints(w, item.scope, item.id, superseded_prints(item))


def _put_fingerprints(w: Writer, scope: str, item_id: str, prints: Sequence[str]) -> None:
    """All of an item's fingerprints in one statement (one round trip, however many)."""
    if prints:
        w.x(prefetch.INSERT_FINGERPRINTS, (scope, item_id, list(prints)))


def _reindex_redacted(w: Writer, item: Item, old_text: str, vectors: Vectors) -> None:
    """A purged version: its full-text document, vector and fingerprints follow its new content."""
    doc, ntok = lexical.document(item.text, lexical.item_extra(item))
    w.x("UPDATE items SET tsv = %s::tsvector, ntok = %s WHERE scope = %s AND id = %s", (doc, ntok, item.scope, item.id))
    if old_text != item.text:
        vec = vectors.get(item.text)
        w.x(
            "UPDATE items SET vec = %s::vector, made_by = %s WHERE scope = %s AND id = %s",
            (
                None if vec is None else vector_literal(vec),
                None if vec is None else w.made_by(),
                item.scope,
                item.id,
            ),
        )
    w.x("DELETE FROM fingerprints WHERE scope = %s AND item_id = %s", (item.scope, item.id))
    if item.is_current:
        _put_fingerprints(w, item.scope, item.id, fingerprints(item.text, item.key, item.value))


def put_tiers(w: Writer, change: PutTiers, _vectors: Vectors) -> None:
    at = to_iso(change.at)
    w.xmany(
        _SET_TIER,
        [(tier, at, change.scope, item_id) for item_id, tier in change.tiers],
    )


def put_edge(w: Writer, change: PutEdge, _vectors: Vectors) -> None:
    row = edge_to_row(change.edge)
    sets = ", ".join(f"{c} = excluded.{c}" for c in _EDGE_COLUMNS.split(", ")[2:])
    w.x(
        f"INSERT INTO edges ({_EDGE_COLUMNS}) VALUES ({', '.join(['%s'] * 10)}) "  # nosec B608 # constant columns
        f"ON CONFLICT (scope, id) DO UPDATE SET {sets}",
        row,
    )


def put_tombstone(w: Writer, change: PutTombstone, _vectors: Vectors) -> None:
    w.x(prefetch.INSERT_TOMBSTONE, (change.scope, change.fingerprint, change.item_id))


def drop_tombstone(w: Writer, change: DropTombstone, _vectors: Vectors) -> None:
    w.x("DELETE FROM tombstones WHERE scope = %s AND fp = %s", (change.scope, change.fingerprint))


def set_paused(w: Writer, change: SetPaused, _vectors: Vectors) -> None:
    w.x(
        "INSERT INTO scope_state (scope, paused) VALUES (%s, %s) "
        "ON CONFLICT (scope) DO UPDATE SET paused = excluded.paused",
        (change.scope, bool(change.paused)),
    )


def erase_content(w: Writer, change: EraseContent, _vectors: Vectors) -> None:
    purge.erase_log(w, change)


HANDLERS: dict[type, Handler] = {
    PutItem: put_item,
    PutTiers: put_tiers,
    PutEdge: put_edge,
    PutTombstone: put_tombstone,
    DropTombstone: drop_tombstone,
    SetPaused: set_paused,
    EraseContent: erase_content,
    PutConversation: conv.put_conversation,
    PutEntry: conv.put_entry,
    EraseEntries: conv.erase_entries,
    SetEntryVisibility: conv.set_entry_visibility,
    PutIntent: agenda.put_intent,
    PutTask: agenda.put_task,
}


def apply(w: Writer, change: Change, vectors: Vectors) -> None:
    """Write ``change`` through its handler; a change this backend does not know is an error."""
    handler = HANDLERS.get(type(change))
    if handler is None:
        raise TypeError(f"the PostgreSQL store has no projection for {type(change).__name__}: add one to HANDLERS")
    handler(w, change, vectors)
