"""PostgreSQL side of the legacy own-name renames (``model.legacy_names`` says why and what moves).

Schema 10, as SQLite's ``store.sqlite.legacy_names`` is the conversation tables' version 2: no
DDL, run once inside the migration's transaction (under its advisory lock, as the owner, whose
row-level policy sees every scope), with the version row in the same commit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from reverie.model.clock import from_iso
from reverie.model.conversation import ConversationState
from reverie.model.legacy_names import Rename, plan, rewrite_payload

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]
Execute = Callable[[str, Sequence[Any]], Any]

#: The schema whose step this is: a database of an earlier version is scanned once.
SCHEMA = 10


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _moved(text: str, r: Rename) -> str:
    value = json.loads(text)
    moved = rewrite_payload(value, r.old, r.new)
    return text if moved is value else _dump(moved)


def upgrade(q: Query, x: Execute, found: int) -> list[Rename]:
    """Rename every conversation under a principal's name hidden from it, for a database of schema
    ``found`` before ``SCHEMA`` (a new one, ``found`` 0, holds none); the renames made."""
    if not 1 <= found < SCHEMA:
        return []
    rows = q("SELECT state FROM conv_state WHERE strpos(id, '+') > 0 ORDER BY scope, id", ())
    renames = plan(ConversationState.from_dict(json.loads(r[0])) for r in rows)
    for r in renames:
        _rename(q, x, r)
    return renames


def _rename(q: Query, x: Execute, r: Rename) -> None:
    """As SQLite's: the state, the entries, the items naming it, the events carrying any of them,
    then the ``conversation.renamed`` event, numbered from the log's counter row."""
    (active,) = q("SELECT active_at FROM conv_state WHERE scope = %s AND id = %s", (r.scope, r.old))[0]
    x("DELETE FROM conv_state WHERE scope = %s AND id = %s", (r.scope, r.old))
    x(
        "INSERT INTO conv_state (scope, id, active_at, state) VALUES (%s, %s, %s, %s)",
        (r.scope, r.new, active, _dump(r.state.to_dict())),
    )
    for n, text in q("SELECT n, entry FROM conv_entries WHERE scope = %s AND conversation = %s", (r.scope, r.old)):
        x(
            "UPDATE conv_entries SET conversation = %s, entry = %s WHERE scope = %s AND n = %s",
            (r.new, _moved(text, r), r.scope, n),
        )
    items = q(
        "SELECT id, meta, provenance FROM items WHERE scope = %s AND (meta::jsonb ->> 'conversation' = %s "
        "OR (provenance::jsonb ->> 'origin' = 'conversation' AND provenance::jsonb ->> 'ref' = %s))",
        (r.scope, r.old, r.old),
    )
    for item_id, meta, provenance in items:
        x(
            "UPDATE items SET meta = %s, provenance = %s WHERE scope = %s AND id = %s",
            (_moved(meta, r), _moved(provenance, r), r.scope, item_id),
        )
    needle = json.dumps(r.old, ensure_ascii=False)
    for seq, text in q(
        "SELECT seq, payload FROM events WHERE scope = %s AND strpos(payload, %s) > 0", (r.scope, needle)
    ):
        payload = json.loads(text)
        moved = rewrite_payload(payload, r.old, r.new)
        if moved is not payload:
            x(
                "UPDATE events SET payload = %s WHERE scope = %s AND seq = %s",
                (json.dumps(moved, ensure_ascii=False), r.scope, seq),
            )
    last = q("SELECT at FROM events WHERE scope = %s ORDER BY seq DESC LIMIT 1", (r.scope,))
    event = r.event(from_iso(str(last[0][0])) if last else r.state.opened_at).to_dict()  # as SQLite's: no clock
    x(
        "WITH s AS (UPDATE settings SET v = (v::bigint + 1)::text WHERE k = 'event_seq' RETURNING v::bigint AS seq) "
        "INSERT INTO events (scope, seq, id, type, at, cause, payload) SELECT %s, s.seq, %s, %s, %s, %s, %s FROM s",
        (
            event["scope"],
            event["id"],
            event["type"],
            event["at"],
            event["cause"],
            json.dumps(event["payload"], ensure_ascii=False),
        ),
    )


__all__ = ["SCHEMA", "upgrade"]
