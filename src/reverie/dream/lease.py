"""One pass per scope at a time, across processes: a lease row the store writes atomically.

The store holds one row per scope (owner, expires_at). Taking it is one upsert inside a write
transaction that succeeds only when the row is absent, expired, or already this owner's, so two
processes sharing a file can never both hold it (``SQLiteStore.take_lease``). Expiry comes from
the Memory's clock, so tests drive it with a ``ManualClock``; a pass renews the lease between
batches, and a process that dies holding it blocks the scope only until the lease expires —
or less, on its own host: the owner names its host, pid and process start time, and a pass on
that host whose holder's process is gone (or is a zombie, or another process that reused the
pid) releases the dead holder's row and takes the lease, saying so in its report. Releasing
is ``release_lease(scope, dead_owner)``, a delete only while that owner still holds the row,
so of two passes that both find the holder dead exactly one gets the lease. A holder on
another host, or an owner this code cannot read, is still waited out: a pid means nothing
across hosts.

A second pass does not wait: its report says it skipped, who holds the lease and until when.
Even without the lease nothing would be lost — every action is applied against the version the
pass read — but two passes would duplicate work and fight over the same items.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
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


log = logging.getLogger("reverie.dream")

#: ``new_owner``'s form; ``start`` is absent where the process start time cannot be read.
_OWNER = re.compile(r"(?P<host>\S+) pid (?P<pid>\d{1,10})(?: start (?P<start>\d{1,20}))? pass \d+")


def new_owner() -> str:
    """A name unique to this pass: host, process (pid and start time) and a per-process counter.

    Shown in reports, and read back by ``holder_is_dead``: the start time tells a live holder
    from an unrelated process that was given the same pid after the holder died.
    """
    with _owners_lock:
        n = next(_owners)
    pid = os.getpid()
    start = _proc_stat(pid)
    return f"{socket.gethostname()} pid {pid}" + (f" start {start[1]}" if start else "") + f" pass {n}"


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks since boot) of a process, from Linux's /proc; None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # the name, in parentheses, may hold spaces
    except (OSError, IndexError):
        return None
    # After the name: field 3 (state) is fields[0], field 22 (starttime) is fields[19].
    return (fields[0].decode(), fields[19].decode()) if len(fields) > 19 else None


def holder_is_dead(owner: str) -> str | None:
    """Why the lease holder ``owner`` is certainly dead, or None when it may be alive.

    Only a holder on this host can be judged: its pid no longer exists, is a zombie (killed and
    not yet reaped), or belongs to a process that started at another time (the pid was reused).
    Anything uncertain — another host, an owner in another form, no permission — is None.
    """
    m = _OWNER.fullmatch(owner)
    if m is None or m["host"] != socket.gethostname() or int(m["pid"]) < 1:
        return None
    pid = int(m["pid"])
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return f"process {pid} is gone"
    except (PermissionError, OverflowError, OSError):
        return None  # it exists under another user, or the pid is not one this system can have
    stat = _proc_stat(pid)
    if stat is None:
        return None
    if stat[0] in ("Z", "X"):
        return f"process {pid} is gone (a zombie: killed, not yet reaped)"
    if m["start"] is not None and stat[1] != m["start"]:
        return f"process {pid} is another process now (it started at tick {stat[1]}, the holder at {m['start']})"
    return None


class ScopeLease:
    """A taken (or refused) lease; truthy while this pass holds it."""

    def __init__(self, mem: DreamHost, scope: str, seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        self.mem, self.scope, self.seconds = mem, scope, seconds
        self.owner = new_owner()
        self.took_over: str | None = None
        """Set when this pass took the lease from a dead holder: the note its report carries."""
        self.row: Lease = self._take()
        if not self.held:
            self._take_over_dead_holder()

    def _take_over_dead_holder(self) -> None:
        held = self.row
        why = holder_is_dead(held.owner)
        # release_lease deletes only while the dead owner still holds the row: if another pass
        # took it over first, this one finds that pass as the holder and skips as usual.
        if why is None or not self.mem.store.release_lease(self.scope, held.owner):
            return
        self.row = self._take()
        if self.held:
            self.took_over = (
                f"took over the lease of scope {self.scope!r} from dream pass {held.owner} ({why}); "
                f"it would have held the scope until {to_iso(held.expires_at)}"
            )
            log.warning("%s", self.took_over)

    def notes(self) -> list[str]:
        """What a report of this pass should say about its lease (a takeover), if anything."""
        return [self.took_over] if self.took_over else []

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


__all__ = ["DEFAULT_LEASE_SECONDS", "ScopeLease", "holder_is_dead", "new_owner", "scope_lease"]
