"""One pass per scope at a time, across processes: a lease row the store writes atomically.

The store holds one row per scope (owner, expires_at). Taking it is one upsert inside a write
transaction that succeeds only when the row is absent, expired, or already this owner's, so two
processes sharing a file can never both hold it (``SQLiteStore.take_lease``). Expiry comes from
the Memory's clock, so tests drive it with a ``ManualClock``; a pass renews the lease between
batches, and a process that dies holding it blocks the scope only until the lease expires.

A second pass does not wait: its report says it skipped, who holds the lease and until when.
Even without the lease nothing would be lost — every action is applied against the version the
pass read — but two passes would duplicate work and fight over the same items.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import timedelta
from typing import TYPE_CHECKING

from reverie.errors import ReverieError
from reverie.model.clock import to_iso
from reverie.store.protocol import Lease

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost

#: Seconds a lease lasts unless renewed; a pass renews it between batches.
DEFAULT_LEASE_SECONDS = 300.0

_owners = itertools.count(1)
_owners_lock = threading.Lock()


def new_owner() -> str:
    """A name unique to this pass: host, process and a per-process counter (shown in reports)."""
    with _owners_lock:
        n = next(_owners)
    return f"{socket.gethostname()} pid {os.getpid()} pass {n}"


class ScopeLease:
    """A taken (or refused) lease; truthy while this pass holds it."""

    def __init__(self, mem: DreamHost, scope: str, seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        self.mem, self.scope, self.seconds = mem, scope, seconds
        self.owner = new_owner()
        self.row: Lease = self._take()

    def _take(self) -> Lease:
        now = self.mem.clock.now()
        return self.mem.store.take_lease(
            self.scope, self.owner, now=now, expires_at=now + timedelta(seconds=self.seconds)
        )

    @property
    def held(self) -> bool:
        return self.row.owner == self.owner

    def __bool__(self) -> bool:
        return self.held

    def renew(self) -> bool:
        """Extend the lease from now; False if it expired and another pass took it."""
        self.row = self._take()
        return self.held

    def release(self) -> None:
        """Drop the row if still ours. A closed store is not an error: the lease just expires."""
        if self.held:
            with suppress(ReverieError):
                self.mem.store.release_lease(self.scope, self.owner)

    def busy_reason(self) -> str:
        """Why a pass that did not get the lease did nothing (for its report)."""
        return (
            f"another dream pass ({self.row.owner}) holds the lease for scope {self.scope!r} until "
            f"{to_iso(self.row.expires_at)}; this pass did nothing"
        )


@contextmanager
def scope_lease(mem: DreamHost, scope: str, *, seconds: float = DEFAULT_LEASE_SECONDS) -> Iterator[ScopeLease]:
    """Try to take the scope's lease without waiting; yields it (truthy if this caller holds it).

    Released on exit, also when the body raises.
    """
    lease = ScopeLease(mem, scope, seconds)
    try:
        yield lease
    finally:
        lease.release()


__all__ = ["DEFAULT_LEASE_SECONDS", "ScopeLease", "new_owner", "scope_lease"]
