"""One conversation write at a time: a read-check-write that another writer interrupted runs again, locked.

Every conversation write is built from a read (the position it appends after, the previous turns
its memory quotes, whether the session is idle) and checked against it in the store's
transaction (``RecordEntry.expected_position`` and ``expected_revision``; a purge or a new
audience checks the same and moves the revision). Two processes appending to one conversation
at once therefore collide, and so do an append and a purge: the loser's write was built from a
stale read and is refused with ``VersionConflictError``. That refusal is right for the entry
but wrong for the caller, who asked for a message to be added, not for a position.

``serialised`` runs the read-check-write once as it is (no lock held while the message is
embedded, the common uncontended case), and if it collided, once more inside
``store.atomic(scope)``: that block holds the write lock (SQLite's ``BEGIN IMMEDIATE``,
PostgreSQL's per-scope lock) from the read to the commit, so the second run reads the committed
state and cannot be interrupted. So the call always lands, exactly once, numbered in commit
order. Each attempt reads everything again, so a part that already committed in the first
(an idle release before the message) is not written twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from reverie.conversation.host import ConversationHost
from reverie.errors import VersionConflictError

T = TypeVar("T")


def serialised(host: ConversationHost, scope: str, attempt: Callable[[], T]) -> T:
    """``attempt()`` (a read of the conversation and the writes built from it); if another
    writer moved the conversation on in between, ``attempt()`` again under the write lock."""
    try:
        return attempt()
    except VersionConflictError:
        pass  # another writer committed between our read and our write: read again, locked
    with host.store.atomic(scope):
        return attempt()


__all__ = ["serialised"]
