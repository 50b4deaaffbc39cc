"""PostgreSQL side of conversations: the projection writes and the reads of the conversation wing.

As on SQLite (``store/sqlite/conversation.py``), each entry and state is kept as the JSON its
event carried; messages get a ``tsvector`` of reverie's own tokens for the archive search.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from reverie.model.clock import to_iso
from reverie.model.conversation import (
    ConversationState,
    EraseEntries,
    PutConversation,
    PutEntry,
    SetEntryVisibility,
    redact_entry,
    redact_events,
)
from reverie.model.conversation import Entry as ConversationEntry
from reverie.model.events import Event
from reverie.store.postgres import lexical
from reverie.store.sqlite import fts_budget

if TYPE_CHECKING:
    from reverie.store.postgres.projections import Vectors, Writer

_EVENT_COLUMNS = "seq, id, type, scope, at, cause, payload"


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def put_conversation(w: Writer, change: PutConversation, _vectors: Vectors) -> None:
    st = change.state
    active = to_iso(st.active_at or st.opened_at)
    w.x(
        "INSERT INTO conv_state (scope, id, active_at, state) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (scope, id) DO UPDATE SET active_at = excluded.active_at, state = excluded.state",
        (st.scope, st.id, active, _dump(st.to_dict())),
    )


def put_entry(w: Writer, change: PutEntry, _vectors: Vectors) -> None:
    e = change.entry
    doc = lexical.document(e.text)[0] if e.kind == "message" else None
    w.x(
        "INSERT INTO conv_entries (scope, id, conversation, position, kind, entry, tsv) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s::tsvector)",
        (e.scope, e.id, e.conversation, e.position, e.kind, _dump(e.to_dict()), doc),
    )
    if e.kind == "message" and e.speaker:
        w.x(
            "INSERT INTO conv_speakers (scope, speaker) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (e.scope, e.speaker),
        )


def set_entry_visibility(w: Writer, change: SetEntryVisibility, _vectors: Vectors) -> None:
    """Give each entry its new audience (kept in the row's JSON, as every other field of an entry)."""
    for entry_id, visibility in change.audiences:
        found = w.q("SELECT entry FROM conv_entries WHERE scope = %s AND id = %s", (change.scope, entry_id))
        if found:
            moved = replace(ConversationEntry.from_dict(json.loads(found[0][0])), visibility=visibility)
            w.x(
                "UPDATE conv_entries SET entry = %s WHERE scope = %s AND id = %s",
                (_dump(moved.to_dict()), change.scope, entry_id),
            )


def erase_entries(w: Writer, change: EraseEntries, _vectors: Vectors) -> None:
    """Redact the rows, drop their archive documents, and rewrite the earlier events carrying them."""
    for entry_id in change.ids:
        found = w.q("SELECT entry FROM conv_entries WHERE scope = %s AND id = %s", (change.scope, entry_id))
        if not found:
            continue
        clean = redact_entry(ConversationEntry.from_dict(json.loads(found[0][0])))
        w.x(
            "UPDATE conv_entries SET entry = %s, tsv = NULL WHERE scope = %s AND id = %s",
            (_dump(clean.to_dict()), change.scope, entry_id),
        )
    rows = w.q(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE scope = %s AND seq < %s "  # nosec B608 # constant columns
        "AND type LIKE 'conversation.%%' AND (payload::jsonb #>> '{entry,id}') = ANY (%s)",
        (change.scope, change.before_seq, list(change.ids)),
    )
    keys = ("seq", "id", "type", "scope", "at", "cause")
    events = [Event.from_dict({**dict(zip(keys, r[:6], strict=True)), "payload": json.loads(r[6])}) for r in rows]
    for event in redact_events(events, change.ids):
        w.x(
            "UPDATE events SET payload = %s WHERE scope = %s AND seq = %s",
            (json.dumps(event.payload, ensure_ascii=False), change.scope, event.seq),
        )


Query = Any  # (sql, params) -> rows


def state(q: Query, scope: str, conversation: str) -> ConversationState | None:
    rows = q("SELECT state FROM conv_state WHERE scope = %s AND id = %s", (scope, conversation))
    return ConversationState.from_dict(json.loads(rows[0][0])) if rows else None


def entry(q: Query, scope: str, entry_id: str) -> ConversationEntry | None:
    rows = q("SELECT entry FROM conv_entries WHERE scope = %s AND id = %s", (scope, entry_id))
    return ConversationEntry.from_dict(json.loads(rows[0][0])) if rows else None


def entries(
    q: Query, scope: str, conversation: str, after_position: int, kinds: Sequence[str] | None
) -> list[ConversationEntry]:
    sql = "SELECT entry FROM conv_entries WHERE scope = %s AND conversation = %s AND position > %s"
    params: list[object] = [scope, conversation, after_position]
    if kinds is not None:
        sql += " AND kind = ANY (%s)"
        params.append(list(kinds))
    return [ConversationEntry.from_dict(json.loads(r[0])) for r in q(sql + " ORDER BY position", params)]


def conversations(q: Query, scope: str) -> list[ConversationState]:
    rows = q("SELECT state FROM conv_state WHERE scope = %s ORDER BY active_at DESC, id DESC", (scope,))
    return [ConversationState.from_dict(json.loads(r[0])) for r in rows]


def speakers(q: Query, scope: str) -> list[str]:
    return [r[0] for r in q("SELECT speaker FROM conv_speakers WHERE scope = %s ORDER BY speaker", (scope,))]


def archive_search(q: Query, scope: str, query: str, conversation: str | None, limit: int) -> list[ConversationEntry]:
    """Messages whose tokens hold ``query``'s words as a phrase, newest first (as on SQLite)."""
    phrase = lexical.tsquery([fts_budget.tokens(query)], " AND ")  # the tokens the rows hold (as on SQLite)
    if phrase is None:
        return []
    sql = "SELECT entry FROM conv_entries WHERE scope = %s AND tsv @@ %s::tsquery"
    params: list[object] = [scope, phrase]
    if conversation is not None:
        sql += " AND conversation = %s"
        params.append(conversation)
    rows = q(sql + " ORDER BY n DESC LIMIT %s", (*params, limit))
    return [ConversationEntry.from_dict(json.loads(r[0])) for r in rows]
