"""One pass per scope at a time: a process-local lease keyed by (store file, scope).

Why only process-local: a cross-process lease needs a row the store writes atomically
(``INSERT … WHERE NOT EXISTS OR expired``, with an owner and an expiry) — a store change
that is pending. Until then two *processes* may run a pass on one scope at once; that costs
duplicated work, never lost writes, because every action is applied against the version the
pass read (a concurrent pass's write makes the second one skip that item). Within a process,
a second pass does not wait: it returns a report that says it skipped and why.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.memory import Memory

_registry_lock = threading.Lock()
_leases: dict[tuple[str, str], threading.Lock] = {}


def lease_key(mem: Memory, scope: str) -> tuple[str, str]:
    """The store's real file path (two ``Memory`` objects on one file share it), and the scope.

    A ``:memory:`` database (or a store without a path) is private to its object: keyed by id.
    """
    path = getattr(mem.store, "path", None)
    if not isinstance(path, str) or path == ":memory:" or not path:
        return (f"store@{id(mem.store):x}", scope)
    return (os.path.realpath(path), scope)


@contextmanager
def scope_lease(mem: Memory, scope: str) -> Iterator[bool]:
    """Try to take the scope's lease without waiting; yields whether this caller holds it."""
    key = lease_key(mem, scope)
    with _registry_lock:
        lock = _leases.setdefault(key, threading.Lock())
    got = lock.acquire(blocking=False)
    try:
        yield got
    finally:
        if got:
            lock.release()


__all__ = ["lease_key", "scope_lease"]
