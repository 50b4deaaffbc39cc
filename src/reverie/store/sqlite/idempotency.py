"""The SQLite side of idempotency keys (``reverie.store.idempotency`` says what they are and why).

One table, ``idempotency``, with its own migration step and version (``idempotency_schema``),
as the conversation and agenda tables have, so the belief store's ``SCHEMA_VERSION`` and this
never renumber each other. Times are ``to_iso`` text (fixed width: compares in time order).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from reverie.model.clock import from_iso, to_iso
from reverie.store.idempotency import Claim, Pending, Recorded, purged_scopes, refused

Exec = Callable[[str, Sequence[Any]], sqlite3.Cursor]

SCHEMA = 1
_V1 = [
    """CREATE TABLE IF NOT EXISTS idempotency (
        scope TEXT NOT NULL, key TEXT NOT NULL, request TEXT NOT NULL, at TEXT NOT NULL,
        expires_at TEXT NOT NULL, status INTEGER, body TEXT, erased INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, key)
    )""",
    "CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency(scope, expires_at)",
]
_COLUMNS = "scope, key, request, at, expires_at, status, body, erased"


def migrate(conn: sqlite3.Connection) -> None:
    """The table, in its own step: a file of any earlier version gains it in place."""
    row = conn.execute("SELECT v FROM settings WHERE k = 'idempotency_schema'").fetchone()
    if (int(row[0]) if row else 0) < 1:
        for stmt in _V1:
            conn.execute(stmt)
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('idempotency_schema', ?)", (str(SCHEMA),))


def claim(x: Exec, p: Pending | None) -> None:
    """First statement of a write transaction: take the key, or refuse (the caller rolls back).

    A row that expired is taken over; a live one (any request, done or in flight) refuses.
    """
    if p is None:
        return
    c = p.claim
    taken = x(
        f"INSERT INTO idempotency ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, NULL, 0) "  # nosec B608 # constant
        "ON CONFLICT (scope, key) DO UPDATE SET request = excluded.request, at = excluded.at, "
        "expires_at = excluded.expires_at, status = NULL, body = NULL, erased = 0 "
        "WHERE idempotency.expires_at <= excluded.at",
        (c.scope, c.key, c.request, to_iso(c.at), to_iso(c.expires_at)),
    ).rowcount
    if taken != 1:
        raise refused(p)


def lookup(conn: sqlite3.Connection, scope: str, key: str, now: datetime) -> Recorded | None:
    """The key's row in ``scope`` unless it expired at ``now``."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM idempotency WHERE scope = ? AND key = ? AND expires_at > ?",  # nosec B608 # constant
        (scope, key, to_iso(now)),
    ).fetchone()
    return _recorded(row) if row else None


def record(x: Exec, claim: Claim, status: int, body: str, now: datetime) -> None:
    """After the call: the response of the claim's own row (a row of another request, or one a
    purge erased, is left as it is), or a new row if the call wrote nothing. Expired rows of the
    scope go first (the only place they are deleted: one indexed range per response)."""
    x("DELETE FROM idempotency WHERE scope = ? AND expires_at <= ?", (claim.scope, to_iso(now)))
    x(
        f"INSERT INTO idempotency ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 0) "  # nosec B608 # constant
        "ON CONFLICT (scope, key) DO UPDATE SET status = excluded.status, body = excluded.body "
        "WHERE idempotency.request = excluded.request AND idempotency.status IS NULL AND idempotency.erased = 0",
        (claim.scope, claim.key, claim.request, to_iso(claim.at), to_iso(claim.expires_at), status, body),
    )


def erase(x: Exec, commands: Sequence[object], keep: Pending | None) -> None:
    """Inside a write that purges (an item, a message): in each scope it purges, drop every recorded
    response and fingerprint (they may quote the purged text) but keep the keys, so a retry still
    writes nothing. The purge's own claim (``keep``) is spared: its response is recorded after."""
    for scope in purged_scopes(commands):
        spared = keep.claim.key if keep is not None and keep.claim.scope == scope else ""
        x(
            "UPDATE idempotency SET request = '', body = NULL, erased = 1 WHERE scope = ? AND key <> ?",
            (scope, spared),
        )


def rows(conn: sqlite3.Connection, scope: str, now: datetime) -> list[Recorded]:
    """The scope's rows unexpired at ``now``, by key (``Store.idempotency_rows``)."""
    found = conn.execute(
        f"SELECT {_COLUMNS} FROM idempotency WHERE scope = ? AND expires_at > ? ORDER BY key",  # nosec B608 # constant
        (scope, to_iso(now)),
    ).fetchall()
    return [_recorded(r) for r in found]


def put(x: Exec, rows: Sequence[Recorded]) -> None:
    """Each row as it is, replacing the row of its key (``Store.put_idempotency``: migrate)."""
    for r in rows:
        x(
            f"INSERT OR REPLACE INTO idempotency ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",  # nosec B608 # constant
            (r.scope, r.key, r.request, to_iso(r.at), to_iso(r.expires_at), r.status, r.body, int(r.erased)),
        )


def _recorded(r: Sequence[Any]) -> Recorded:
    status = None if r[5] is None else int(r[5])
    body = None if r[6] is None else str(r[6])
    return Recorded(str(r[0]), str(r[1]), str(r[2]), from_iso(str(r[3])), from_iso(str(r[4])), status, body, bool(r[7]))
