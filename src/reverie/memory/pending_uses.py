"""Uses a recall could not write at once: kept in order, written later, never dropped.

Why: recording which items a recall used is a write (a ``memory.used`` event), and on SQLite a
write needs the file's write lock. Beside another process's long write (an ``atomic`` block, a
whole ``reverie import``) a plain recall waited the busy timeout (30 s) and then failed, though
it only reads. So a recall tries its use without waiting (``Store.atomic(wait=False)``); if the
lock is held it answers at once and its use waits here, in this ``Memory``.

What is promised about a use that waits:
- **Same event.** It is the command the recall would have run, written with the recall's own
  time (``at``, from the injectable clock). Record time never goes backwards
  (``store.engine.record_time``): if another writer committed a later time meanwhile, the use
  is recorded at that time instead.
- **In order, together.** Waiting uses are written oldest first, in one transaction: by this
  Memory's next recall that can write (before its own use), before its next write
  (``Core.run``, ``atomic``, a dream pass), and by ``close()``, which waits the busy timeout
  like any write and raises ``StorageError`` (keeping them) if it still cannot write.
- **Bounded.** At ``Limits.max_pending_uses`` waiting recalls, the next recall waits for the
  lock as any write does (and fails clearly after the busy timeout), instead of growing.
- **Inside this thread's own ``atomic`` block** the lock is held already: a use is written in
  the block (and shares its fate), unless older uses wait, which it then joins (at the bound
  they are all written in the block).

Locks: ``_write`` is held across a store write outside a block, ``_queue`` only around list
operations. A thread inside its own block (holding the store's lock) takes ``_queue`` alone, so
no thread ever waits for the store while another waits for it here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from datetime import datetime

from reverie.errors import StorageError
from reverie.model import commands as cmd
from reverie.store import idempotency
from reverie.store.protocol import Store, WriteLockBusy

#: One waiting use: the command its recall built and the recall's time.
Use = tuple[cmd.RecordUse, datetime]


class PendingUses:
    """The uses of this ``Memory``'s recalls not written yet (see the module docstring)."""

    def __init__(self, store: Store, new_id: Callable[[], str], limit: int) -> None:
        self._store = store
        self._new_id = new_id
        self._limit = limit
        self._uses: list[Use] = []
        self._queue = threading.Lock()
        self._write = threading.Lock()

    def __len__(self) -> int:
        """How many recalls' uses wait to be written."""
        with self._queue:
            return len(self._uses)

    def record(self, use: cmd.RecordUse, at: datetime) -> None:
        """Write ``use`` (after every older waiting one) now if the lock is free, else keep it.

        Raises ``StorageError`` only when ``Limits.max_pending_uses`` uses already wait and the
        lock stayed held past the busy timeout; then ``use`` is not kept (its recall fails).
        """
        if self._store.in_atomic():
            with self._queue:
                if self._uses:  # older uses wait: this one must not overtake them
                    if len(self._uses) < self._limit:
                        self._uses.append((use, at))
                        return
                    waiting, self._uses = self._uses, []
                else:
                    waiting = []
            try:
                self._run([*waiting, (use, at)])  # the block holds the lock: no wait, shares its fate
            except BaseException:
                with self._queue:
                    self._uses[:0] = waiting  # refused here: the older ones still wait
                raise
            return
        with self._write:
            with self._queue:
                batch = [*self._uses, (use, at)]
            full = len(batch) > self._limit
            try:
                self._in_one_transaction(batch, wait=full)
            except WriteLockBusy:
                with self._queue:
                    self._uses.append((use, at))
                return
            with self._queue:
                del self._uses[: len(batch) - 1]

    def flush(self) -> None:
        """Write every waiting use, waiting for the lock as any write does (``StorageError`` after
        the busy timeout, and they still wait). Inside this thread's own block it does nothing:
        a rollback of the block would take them with it."""
        with self._queue:
            if not self._uses:
                return
        if self._store.in_atomic():
            return
        with self._write:
            with self._queue:
                batch = list(self._uses)
            if not batch:
                return
            # An idempotency claim open around this call belongs to the write that follows.
            with idempotency.carried(idempotency.pending()):
                self._in_one_transaction(batch, wait=True)
            with self._queue:
                del self._uses[: len(batch)]

    def flush_at_close(self) -> None:
        """``flush`` for ``Memory.close``: if the lock stays held, a ``StorageError`` that says what
        is kept and what to do (the Memory stays open), never a silent drop."""
        try:
            self.flush()
        except StorageError as exc:
            raise StorageError(
                f"close() could not write {len(self)} use(s) of earlier recalls ({exc}); they are kept, not "
                "written yet, and this Memory stays open: call close() again once the other writer is done "
                "(Memory.pending_uses counts them)"
            ) from exc

    def _in_one_transaction(self, batch: Sequence[Use], *, wait: bool) -> None:
        """``batch`` in one transaction holding each of its scopes' write lock (``WriteLockBusy``
        without ``wait`` if one is held)."""
        with ExitStack() as stack:
            for scope in sorted({u.scope for u, _ in batch}):
                stack.enter_context(self._store.atomic(scope, wait=wait))
            self._run(batch)

    def _run(self, batch: Sequence[Use]) -> None:
        for use, at in batch:
            self._store.execute([use], now=at, new_id=self._new_id, vectors={})
