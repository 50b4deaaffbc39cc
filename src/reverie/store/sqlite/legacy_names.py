"""SQLite side of the legacy own-name renames (``model.legacy_names`` says why and what moves).

Runs inside ``schema.migrate``'s transaction, as the step that brings the conversation tables to
``CONVERSATION_SCHEMA`` 2: a file written before own names is renamed once, when a writer first
opens it, with the version row in the same commit; a crash before that commit leaves the file as
it was, and the next open renames it again the same way (the event's id is derived, not drawn).
A file at version 2 is never scanned again, and holds no such conversation: the reducer refuses
one since own names (``check_named_audience``) and an import renames one as it lands.
"""

from __future__ import annotations

import json
import sqlite3

from reverie.model.clock import from_iso
from reverie.model.conversation import ConversationState
from reverie.model.legacy_names import Rename, plan, rewrite_payload


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _moved(text: str, r: Rename) -> str:
    """A JSON column's text naming ``r.new`` for ``r.old`` (as written: unchanged text stays)."""
    value = json.loads(text)
    moved = rewrite_payload(value, r.old, r.new)
    return text if moved is value else _dump(moved)


def rename_all(conn: sqlite3.Connection) -> list[Rename]:
    """Rename every conversation under a principal's name hidden from it; the renames made."""
    # Only a name with a "+" can be a principal's, and a new name always has one: these rows
    # are every candidate and every name a new one could collide with.
    rows = conn.execute("SELECT state FROM conv_state WHERE id LIKE '%+%' ORDER BY scope, id")
    renames = plan(ConversationState.from_dict(json.loads(r[0])) for r in rows)
    for r in renames:
        _rename(conn, r)
    return renames


def _rename(conn: sqlite3.Connection, r: Rename) -> None:
    """Move one conversation: its state, its entries, the items naming it, the events carrying any
    of them; then append the event that records the move."""
    row = conn.execute("SELECT active_at FROM conv_state WHERE scope = ? AND id = ?", (r.scope, r.old)).fetchone()
    conn.execute("DELETE FROM conv_state WHERE scope = ? AND id = ?", (r.scope, r.old))
    conn.execute("INSERT INTO conv_state VALUES (?, ?, ?, ?)", (r.scope, r.new, row[0], _dump(r.state.to_dict())))
    entries = conn.execute(
        "SELECT n, entry FROM conv_entries WHERE scope = ? AND conversation = ?", (r.scope, r.old)
    ).fetchall()
    for n, text in entries:
        moved = rewrite_payload(json.loads(text), r.old, r.new)
        conn.execute("UPDATE conv_entries SET conversation = ?, entry = ? WHERE n = ?", (r.new, _dump(moved), n))
    items = conn.execute(
        "SELECT n, meta, provenance FROM items WHERE scope = ? AND (json_extract(meta, '$.conversation') = ? "
        "OR (json_extract(provenance, '$.origin') = 'conversation' AND json_extract(provenance, '$.ref') = ?))",
        (r.scope, r.old, r.old),
    ).fetchall()
    for n, meta, provenance in items:
        conn.execute(
            "UPDATE items SET meta = ?, provenance = ? WHERE n = ?",
            (_moved(meta, r), _moved(provenance, r), n),
        )
    # Every event that may name it holds its name as a JSON string: the rest are not parsed.
    needle = json.dumps(r.old, ensure_ascii=False)
    events = conn.execute(
        "SELECT seq, payload FROM events WHERE scope = ? AND instr(payload, ?) > 0 ORDER BY seq", (r.scope, needle)
    ).fetchall()
    for seq, text in events:
        payload = json.loads(text)
        moved = rewrite_payload(payload, r.old, r.new)
        if moved is not payload:
            conn.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(moved, ensure_ascii=False), seq))
    # The upgrade has no clock: the rename is dated with the scope's last event, so the log's
    # times never go back and two copies of the store write the same event.
    last = conn.execute("SELECT at FROM events WHERE scope = ? ORDER BY seq DESC LIMIT 1", (r.scope,)).fetchone()
    event = r.event(from_iso(str(last[0])) if last else r.state.opened_at).to_dict()
    conn.execute(
        "INSERT INTO events (id, type, scope, at, cause, payload) VALUES (?, ?, ?, ?, ?, ?)",
        (
            event["id"],
            event["type"],
            event["scope"],
            event["at"],
            event["cause"],
            json.dumps(event["payload"], ensure_ascii=False),
        ),
    )


__all__ = ["rename_all"]
