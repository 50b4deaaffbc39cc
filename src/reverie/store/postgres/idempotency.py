"""The PostgreSQL side of idempotency keys (``reverie.store.idempotency`` says what they are and why).

The same statements as the SQLite store's (``store/sqlite/idempotency.py``), each filtering on
``scope`` (the statement audit checks it). Two writers of one scope are already serialised by
the scope's advisory lock, taken before the claim, so the second sees the first's committed
row; the primary key decides any race that lock does not cover.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from reverie.model.clock import from_iso, to_iso
from reverie.store.idempotency import Claim, Pending, Recorded, purged_scopes, refused

_COLUMNS = "scope, key, request, at, expires_at, status, body, erased"


class Writer(Protocol):
    def x(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    def xmany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


def claim(w: Writer, p: Pending | None) -> None:
    """First statement of a write transaction, after its scope is named and locked: take the key,
    or refuse (the caller rolls back)."""
    if p is None:
        return
    c = p.claim
    taken = w.x(
        f"INSERT INTO idempotency ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, NULL, NULL, false) "  # nosec B608 # constant
        "ON CONFLICT (scope, key) DO UPDATE SET request = excluded.request, at = excluded.at, "
        "expires_at = excluded.expires_at, status = NULL, body = NULL, erased = false "
        "WHERE idempotency.expires_at <= excluded.at",
        (c.scope, c.key, c.request, to_iso(c.at), to_iso(c.expires_at)),
    )
    if taken != 1:
        raise refused(p)


def lookup(
    q: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]], scope: str, key: str, now: datetime
) -> Recorded | None:
    """The key's row in ``scope`` unless it expired at ``now``."""
    rows = q(
        f"SELECT {_COLUMNS} FROM idempotency WHERE scope = %s AND key = %s AND expires_at > %s",  # nosec B608 # constant
        (scope, key, to_iso(now)),
    )
    return _recorded(rows[0]) if rows else None


def record(w: Writer, claim: Claim, status: int, body: str, now: datetime) -> None:
    """As on SQLite: the response on the claim's own row, or a new row if the call wrote nothing;
    expired rows of the scope are deleted first."""
    w.x("DELETE FROM idempotency WHERE scope = %s AND expires_at <= %s", (claim.scope, to_iso(now)))
    w.x(
        f"INSERT INTO idempotency ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, false) "  # nosec B608 # constant
        "ON CONFLICT (scope, key) DO UPDATE SET status = excluded.status, body = excluded.body "
        "WHERE idempotency.request = excluded.request AND idempotency.status IS NULL AND NOT idempotency.erased",
        (claim.scope, claim.key, claim.request, to_iso(claim.at), to_iso(claim.expires_at), status, body),
    )


def erase(w: Writer, commands: Sequence[object], keep: Pending | None) -> None:
    """Inside a write that purges: each purged scope's recorded responses and fingerprints go, the
    keys stay (a retry still writes nothing); the purge's own claim is spared."""
    for scope in purged_scopes(commands):
        spared = keep.claim.key if keep is not None and keep.claim.scope == scope else ""
        w.x(
            "UPDATE idempotency SET request = '', body = NULL, erased = true WHERE scope = %s AND key <> %s",
            (scope, spared),
        )


def rows(q: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]], scope: str, now: datetime) -> list[Recorded]:
    """The scope's rows unexpired at ``now``, by key in byte order, as on SQLite (``Store.idempotency_rows``)."""
    found = q(
        f'SELECT {_COLUMNS} FROM idempotency WHERE scope = %s AND expires_at > %s ORDER BY key COLLATE "C"',  # nosec B608 # constant
        (scope, to_iso(now)),
    )
    return [_recorded(r) for r in found]


def put(w: Writer, rows: Sequence[Recorded]) -> None:
    """Each row as it is, replacing the row of its key (``Store.put_idempotency``: migrate)."""
    w.xmany(
        f"INSERT INTO idempotency ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "  # nosec B608 # constant
        "ON CONFLICT (scope, key) DO UPDATE SET request = excluded.request, at = excluded.at, "
        "expires_at = excluded.expires_at, status = excluded.status, body = excluded.body, erased = excluded.erased",
        [(r.scope, r.key, r.request, to_iso(r.at), to_iso(r.expires_at), r.status, r.body, r.erased) for r in rows],
    )


def _recorded(r: Sequence[Any]) -> Recorded:
    status = None if r[5] is None else int(r[5])
    body = None if r[6] is None else str(r[6])
    return Recorded(str(r[0]), str(r[1]), str(r[2]), from_iso(str(r[3])), from_iso(str(r[4])), status, body, bool(r[7]))
