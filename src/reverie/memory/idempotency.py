"""``mem.idempotency``: idempotency keys for a face that retries writes (``reverie.store.idempotency``).

A face (the HTTP API's ``Idempotency-Key`` header) brackets one call of the facade with
``claim``; the first store transaction that commits inside it writes the key with its events.
Afterwards the face records the response it sent (``record``) and answers a retry from
``recorded`` instead of calling the facade again.

>>> from reverie import Memory
>>> import hashlib
>>> mem = Memory(":memory:", embedder="hash")
>>> request = hashlib.sha256(b"remember: the sky is blue").hexdigest()
>>> with mem.idempotency.claim("k-1", scope="s", request=request) as pending:
...     item = mem.remember("The sky is blue", scope="s")
>>> pending.written
True
>>> row = mem.idempotency.record(pending.claim, status=201, body='{"id": "..."}')
>>> mem.idempotency.recorded("k-1", scope="s").status
201
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta

from reverie.memory.core import Core
from reverie.store.idempotency import (
    DEFAULT_WINDOW,
    KEY_MAX_CHARS,
    Claim,
    Pending,
    Recorded,
    carrying,
    check_key,
    make_claim,
)

#: What a face needs besides the methods (it imports the facade's modules, never ``store``).
__all__ = ["DEFAULT_WINDOW", "KEY_MAX_CHARS", "Claim", "Idempotency", "Pending", "Recorded"]


class Idempotency:
    """Look up, claim and complete idempotency keys of one ``Memory`` (its clock, its scopes)."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def recorded(self, key: str, *, scope: str) -> Recorded | None:
        """The key's row in ``scope`` (None if unknown or expired): the first request's fingerprint,
        and its status and body once recorded."""
        s = self._core.scope(scope)
        return self._core.store.idempotency(s, check_key(key), now=self._core.clock.now())

    @contextlib.contextmanager
    def claim(self, key: str, *, scope: str, request: str, window: timedelta = DEFAULT_WINDOW) -> Iterator[Pending]:
        """Within the block, the first write that commits carries the key (``Pending.written``), or
        finds it held, raises ``IdempotencyInProgressError`` and writes nothing (``Pending.taken``).

        ``request``: a SHA-256 hex digest of what the request was (route, body, caller), so a
        retry can be told from another request reusing the key. ``window``: how long the key is
        kept (24 h by default), from now by this memory's clock.
        """
        c = make_claim(self._core.scope(scope), key, request, now=self._core.clock.now(), window=window)
        with carrying(c) as pending:
            yield pending

    def record(self, claim: Claim, *, status: int, body: str) -> Recorded | None:
        """Record the response the first request got (after its call returned); returns the row.

        A claim whose call wrote nothing gets a row now; a row a purge erased, or one of another
        request, is left as it is. Expired keys of the scope are deleted here.
        """
        store, now = self._core.store, self._core.clock.now()
        return store.record_response(claim.scope, claim, status=status, body=body, now=now)
