"""SQLite side of conversations: the projection writes and the reads the conversation wing makes.

Rows keep each entry and state as the JSON its event carried (``model/conversation.py``), so a
row and a replay can never disagree on a field; only what is searched or ordered on
(scope, conversation, position, kind) has its own column.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace

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
from reverie.store.fts_tokens import index_form

Exec = Callable[..., sqlite3.Cursor]
_EVENT_COLUMNS = "seq, id, type, scope, at, cause, payload"


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def put_conversation(x: Exec, change: PutConversation) -> None:
    st = change.state
    active = to_iso(st.active_at or st.opened_at)
    x("INSERT OR REPLACE INTO conv_state VALUES (?, ?, ?, ?)", (st.scope, st.id, active, _dump(st.to_dict())))


def put_entry(x: Exec, change: PutEntry) -> None:
    e = change.entry
    cur = x(
        "INSERT INTO conv_entries (id, scope, conversation, position, kind, entry) VALUES (?, ?, ?, ?, ?, ?)",
        (e.id, e.scope, e.conversation, e.position, e.kind, _dump(e.to_dict())),
    )
    if e.kind == "message":
        x("INSERT INTO conv_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, index_form(e.text)))
        if e.speaker:
            x("INSERT OR IGNORE INTO conv_speakers VALUES (?, ?)", (e.scope, e.speaker))


def set_entry_visibility(x: Exec, c: sqlite3.Connection, change: SetEntryVisibility) -> None:
    """Give each entry its new audience (kept in the row's JSON, as every other field of an entry)."""
    for entry_id, visibility in change.audiences:
        row = c.execute("SELECT n, entry FROM conv_entries WHERE id = ? AND scope = ?", (entry_id, change.scope))
        found = row.fetchone()
        if found is not None:
            moved = replace(ConversationEntry.from_dict(json.loads(found[1])), visibility=visibility)
            x("UPDATE conv_entries SET entry = ? WHERE n = ?", (_dump(moved.to_dict()), found[0]))


def erase_entries(x: Exec, c: sqlite3.Connection, change: EraseEntries) -> None:
    """Redact the rows, drop their archive index rows (then merge the index so the tokens go
    too), and rewrite the earlier events that carried them."""
    for entry_id in change.ids:
        row = c.execute("SELECT n, entry FROM conv_entries WHERE id = ? AND scope = ?", (entry_id, change.scope))
        found = row.fetchone()
        if found is None:
            continue
        clean = redact_entry(ConversationEntry.from_dict(json.loads(found[1])))
        x("UPDATE conv_entries SET entry = ? WHERE n = ?", (_dump(clean.to_dict()), found[0]))
        x("DELETE FROM conv_fts WHERE rowid = ?", (found[0],))
    x("INSERT INTO conv_fts (conv_fts) VALUES ('optimize')")
    marks = ", ".join("?" * len(change.ids))
    rows = c.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE scope = ? AND seq < ? "  # nosec B608 # constant columns, ? marks
        f"AND type LIKE 'conversation.%' AND json_extract(payload, '$.entry.id') IN ({marks})",
        (change.scope, change.before_seq, *change.ids),
    ).fetchall()
    keys = ("seq", "id", "type", "scope", "at", "cause")
    events = [Event.from_dict({**dict(zip(keys, r[:6], strict=True)), "payload": json.loads(r[6])}) for r in rows]
    for event in redact_events(events, change.ids):
        x("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(event.payload, ensure_ascii=False), event.seq))


def state(c: sqlite3.Connection, scope: str, conversation: str) -> ConversationState | None:
    row = c.execute("SELECT state FROM conv_state WHERE scope = ? AND id = ?", (scope, conversation)).fetchone()
    return ConversationState.from_dict(json.loads(row[0])) if row else None


def entry(c: sqlite3.Connection, scope: str, entry_id: str) -> ConversationEntry | None:
    row = c.execute("SELECT entry FROM conv_entries WHERE id = ? AND scope = ?", (entry_id, scope)).fetchone()
    return ConversationEntry.from_dict(json.loads(row[0])) if row else None


def entries(
    c: sqlite3.Connection, scope: str, conversation: str, after_position: int, kinds: Sequence[str] | None
) -> list[ConversationEntry]:
    sql = "SELECT entry FROM conv_entries WHERE scope = ? AND conversation = ? AND position > ?"
    params: list[object] = [scope, conversation, after_position]
    if kinds is not None:
        sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
        params += list(kinds)
    rows = c.execute(sql + " ORDER BY position", params)
    return [ConversationEntry.from_dict(json.loads(r[0])) for r in rows]


def conversations(c: sqlite3.Connection, scope: str) -> list[ConversationState]:
    rows = c.execute("SELECT state FROM conv_state WHERE scope = ? ORDER BY active_at DESC, id DESC", (scope,))
    return [ConversationState.from_dict(json.loads(r[0])) for r in rows]


def speakers(c: sqlite3.Connection, scope: str) -> list[str]:
    return [r[0] for r in c.execute("SELECT speaker FROM conv_speakers WHERE scope = ? ORDER BY speaker", (scope,))]


def archive_search(
    c: sqlite3.Connection, scope: str, match: str, conversation: str | None, limit: int
) -> list[ConversationEntry]:
    """Messages whose words contain the phrase ``match`` (FTS5 syntax), newest first.

    Walks the index newest-first (``ORDER BY rowid DESC``) and stops at ``limit`` hits of the
    scope, so a common phrase does not sort every match of the archive.
    """
    sql = (
        "SELECT e.entry FROM conv_fts f JOIN conv_entries e ON e.n = f.rowid "  # nosec B608 # constant SQL, ? marks
        "WHERE conv_fts MATCH ? AND e.scope = ?" + (" AND e.conversation = ?" if conversation is not None else "")
    )
    params: list[object] = [match, scope, *([conversation] if conversation is not None else [])]
    rows = c.execute(sql + " ORDER BY f.rowid DESC LIMIT ?", (*params, limit))
    return [ConversationEntry.from_dict(json.loads(r[0])) for r in rows]
