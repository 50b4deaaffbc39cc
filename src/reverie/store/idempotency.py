"""Idempotency keys: a retried write is applied at most once, and its first response is replayed.

A client that sent a write and lost the answer (a timeout, a dropped connection, a server
restart) cannot know whether it was applied; sending it again must not apply it twice. The
client names the write with a key (HTTP: the ``Idempotency-Key`` header); the store keeps, per
``(scope, key)``, a fingerprint of the request and, once the first request has answered, its
status and response body.

**Written in the command's own transaction.** The key row is inserted by the same transaction
that appends the write's events (``Store.execute`` / ``execute_steps`` on every backend), as its
first statement: a crash can leave neither the write without its key (a retry would apply it
again) nor the key without the write (a retry would be told "done" about nothing). A second
request with the key finds the row and writes nothing (``IdempotencyInProgressError`` inside
the store; the face replays or waits). Checking *first* matters: a retried ``revise`` with
``expected_version=3`` must get the first answer, not a version conflict its own first attempt
caused.

**The response is recorded after the commit** (``Store.record_response``), because it is only
known then: a ``remember`` answers with the contradictions its post-commit detection found. A
server that stops between the two leaves a row without a response: the write is done and will
not be repeated, and a retry is told so (``IdempotencyUnavailableError``), never re-applied.

**Which transaction carries the key.** The face opens a claim (``carrying``) around one call of
the facade; the first store transaction that commits inside it carries the key, and later ones
(post-commit detection, vector backfill) do not. The claim travels in a ``ContextVar`` rather
than through every write method's signature: one call of the facade is one request, and a
thread pool running it gets a copy of the context (the holder is shared, so the face sees the
outcome). Nothing else reads it.

**A side table, not a projection.** A key is not derived from events (the log does not record
which request caused a write, and a response is not an event), so ``rebuild`` keeps the table,
like leases and dream-run summaries. Rows expire (``expires_at``, default 24 h after the claim,
by the ``Memory``'s clock) and are deleted lazily when a later response of the scope is
recorded. A purge in the scope erases every recorded response and fingerprint of the scope (a
response may quote the purged text) but keeps the keys until they expire, so a retry after the
purge still writes nothing.

**Moved with the store.** ``reverie migrate`` copies every unexpired row as it is (response,
none yet, or erased) in the transaction that copies the events (``Store.idempotency_rows`` /
``put_idempotency``): a store without its keys would apply a retried request, or the same
``reverie import``, a second time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta

from reverie.errors import IdempotencyInProgressError, InvalidIdempotencyKeyError, InvalidInputError
from reverie.model.commands import ERASING

#: How long a key is kept after its first request, unless the face configures another window.
DEFAULT_WINDOW = timedelta(hours=24)
#: The longest key accepted (a UUID is 36 characters; room for a client's own prefix).
KEY_MAX_CHARS = 255
#: A request fingerprint is a SHA-256 digest in hex.
_FINGERPRINT_CHARS = 64


@dataclass(frozen=True, slots=True)
class Claim:
    """One request's claim on ``key`` in ``scope``: ``request`` fingerprints it (route, body, caller)."""

    scope: str
    key: str
    request: str
    at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Recorded:
    """A key as the store keeps it. ``status`` is None until the first request's response is
    recorded (in flight, or its server stopped after the commit); ``erased``: a purge in the
    scope dropped the response and the fingerprint (``request`` is then empty)."""

    scope: str
    key: str
    request: str
    at: datetime
    expires_at: datetime
    status: int | None
    body: str | None
    erased: bool = False


@dataclass(slots=True)
class Pending:
    """The claim of the call in progress, shared between the face and the store that writes it.

    ``written``: a committed transaction carries the key (later ones must not try again).
    ``taken``: the store found the key already held, and the call wrote nothing.
    """

    claim: Claim
    written: bool = False
    taken: bool = False


_PENDING: ContextVar[Pending | None] = ContextVar("reverie_idempotency_claim", default=None)


@contextlib.contextmanager
def carrying(claim: Claim) -> Iterator[Pending]:
    """Within the block, the first store transaction that commits carries ``claim``."""
    pending = Pending(claim)
    token = _PENDING.set(pending)
    try:
        yield pending
    finally:
        _PENDING.reset(token)


@contextlib.contextmanager
def carried(p: Pending | None) -> Iterator[None]:
    """For a store's ``atomic`` block whose first statement took ``p``'s key: inside it, the
    block's own writes see no claim (each would otherwise try to take the key the block holds).
    The key is ``written`` once the block commits, like any write's."""
    token = _PENDING.set(None) if p is not None else None
    try:
        yield
    finally:
        if token is not None:
            _PENDING.reset(token)


def pending() -> Pending | None:
    """For a store, at the start of a write: the claim this transaction must carry, if any."""
    p = _PENDING.get()
    return p if p is not None and not p.written else None


def refused(p: Pending) -> IdempotencyInProgressError:
    """For a store whose claim found the key held: the error that rolls its transaction back."""
    p.taken = True
    return IdempotencyInProgressError(
        f"idempotency key {p.claim.key!r} is already used in scope {p.claim.scope!r}; nothing was written"
    )


def written(p: Pending | None) -> None:
    """For a store, after its transaction committed: the key is written; later writes go without it."""
    if p is not None:
        p.written = True


def purged_scopes(commands: Sequence[object]) -> list[str]:
    """The scopes in which ``commands`` erase content (an item's purge, a message's): each store
    erases their recorded responses in the same transaction (``erase`` of its backend)."""
    return sorted({str(c.scope) for c in commands if isinstance(c, ERASING)})


def in_scope(scope: str, claim: Claim) -> Claim:
    """``claim``, checked to be of ``scope`` (a store's writes name the scope first, as its reads do)."""
    if claim.scope != scope:
        raise InvalidInputError(f"the idempotency claim is of scope {claim.scope!r}, not {scope!r}")
    return claim


def of_scope(scope: str, rows: Sequence[Recorded]) -> list[Recorded]:
    """``rows``, checked to be of ``scope`` before any is written (``Store.put_idempotency``)."""
    wrong = next((r for r in rows if r.scope != scope), None)
    if wrong is not None:
        raise InvalidInputError(f"the idempotency key {wrong.key!r} is of scope {wrong.scope!r}, not {scope!r}")
    return list(rows)


def check_key(key: object) -> str:
    """``key`` if it is a usable idempotency key, else ``InvalidIdempotencyKeyError`` saying why."""
    if not isinstance(key, str) or not key:
        raise InvalidIdempotencyKeyError("an idempotency key must be a non-empty string, e.g. a UUID")
    if len(key) > KEY_MAX_CHARS:
        raise InvalidIdempotencyKeyError(
            f"an idempotency key may have at most {KEY_MAX_CHARS} characters (got {len(key)}); a UUID will do"
        )
    bad = next((c for c in key if not "!" <= c <= "~"), None)
    if bad is not None:
        raise InvalidIdempotencyKeyError(
            f"an idempotency key must be printable ASCII without spaces; it contains {bad!r}. Use e.g. a UUID"
        )
    return key


def make_claim(scope: str, key: str, request: str, *, now: datetime, window: timedelta) -> Claim:
    """A checked claim: a valid key, a SHA-256 hex fingerprint, a positive window."""
    check_key(key)
    if len(request) != _FINGERPRINT_CHARS or any(c not in "0123456789abcdef" for c in request):
        raise InvalidInputError("an idempotency request fingerprint must be a SHA-256 digest in lower-case hex")
    if window <= timedelta(0):
        raise InvalidInputError(f"the idempotency window must be positive, got {window}")
    return Claim(scope, key, request, now, now + window)
