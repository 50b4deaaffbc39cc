"""The dream capability: the facade's side of the consolidation pass, and its ``DreamHost``.

``Dreaming`` satisfies ``reverie.dream.host.DreamHost`` — the narrow interface the pass declares
— from the shared ``Core`` and the contradictions capability, so ``reverie.dream`` never sees
``Memory``. It also counts running passes, so ``Memory.close()`` can ask them to stop and wait.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from reverie.conflict.entity import Aliases
from reverie.errors import ConflictError, EmbedderError, NotPermittedError
from reverie.limits import Limits
from reverie.memory.candidates import build_remember
from reverie.memory.contradictions import Contradictions
from reverie.memory.core import Core
from reverie.model import commands as cmd
from reverie.model.clock import Clock
from reverie.model.item import Item
from reverie.model.validate import check_count
from reverie.store.protocol import DREAM_RUNS_KEPT, Store
from reverie.store.visible import principal_of

if TYPE_CHECKING:
    from reverie.dream import Cohort, DreamConfig, DreamReport, QueueEntry

#: Seconds ``close()`` waits for a running dream pass to stop between two batches.
DREAM_STOP_WAIT = 4.0


#: Pending vectors one dream pass fills at most (``Dreaming._backfill``).
DREAM_BACKFILL = 512


class Dreaming:
    """dream, dream_runs, thinking_queue, value_by_cohort — and the pass's host."""

    def __init__(self, core: Core, conflicts: Contradictions) -> None:
        self._core = core
        self._conflicts = conflicts
        self.last_report: DreamReport | None = None
        # Dream passes running on this Memory, and the signal that asks them to stop (close()).
        self._stop = threading.Event()
        self._idle = threading.Condition()
        self._running = 0

    # -- the facade's methods -------------------------------------------------------------
    def dream(
        self,
        *,
        scope: str,
        dry_run: bool = False,
        config: DreamConfig | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> DreamReport:
        """One deterministic consolidation pass over ``scope`` (no LLM); returns what it did and why.

        Salience, near-duplicate consolidation into gist items (originals untouched), the
        state-toggle guard, hub flagging, the keep-budget, tiering, provenance upkeep and
        importance settling — each change an event with its reason. ``dry_run=True`` returns
        the plan and applies nothing. A second pass on the same scope (any process sharing
        the file) skips and says why. ``progress(phase, done, total)`` is called as the pass
        plans (``"plan"``, in steps) and applies (``"apply"``, in actions). A pass that ran is
        recorded in the store for every process to read (``dream_runs``); the report of this
        process's last one stays in ``last_dream_report`` too.
        """
        from reverie.dream import dream as run_dream

        principal = principal_of(self._core.store)
        if principal is not None:
            # Planned from part of the scope, a pass would change claims by what it cannot see
            # (a claim derived from a hidden one looks orphaned; one a hidden claim derives from
            # looks unused), and its plan would describe them. Refused like ``doctor``.
            raise NotPermittedError(
                f"the dream pass is an operator operation over every claim of the scope; principal {principal!r} "
                "may see only part of it, and a pass planned from part of it would change claims by what it "
                "cannot see: run it without a principal (the store's owner). `reverie serve --dream-every` "
                "runs its scheduled passes as the owner."
            )
        s = self._core.scope(scope)
        if not dry_run:  # the pass reads the usage it consolidates: this Memory's recalls' first
            self._core.pending_uses.flush()
        backfill = None if dry_run else self._backfill(s)
        report = run_dream(self, scope=s, dry_run=dry_run, config=config, progress=progress)
        if backfill is not None:
            report.notes.append(backfill)
        if not dry_run:
            self.last_report = report
        return report

    def _backfill(self, scope: str) -> str | None:
        """Before the pass: fill vectors the embedder could not make at write time (``VECTOR_PENDING``).

        At most ``DREAM_BACKFILL`` per pass, so a long outage does not make one pass unbounded;
        an embedder still failing leaves them pending and says so (the pass itself goes on).
        """
        try:
            done = self._core.backfill_vectors(scope, limit=DREAM_BACKFILL)
        except (EmbedderError, ConflictError) as exc:
            return f"vectors still pending ({type(exc).__name__}: {exc})"[:500]
        return f"backfilled {done} pending vector(s)" if done else None

    def dream_runs(self, *, scope: str, limit: int | None = None) -> builtins.list[dict[str, Any]]:
        """The scope's recent dream passes as the store recorded them, newest first — including
        passes run by another process (cron, a server) or before a restart.

        Each is a JSON-ready summary of the pass's report (``reverie.dream.runs``): scope, ``at``,
        ``interrupted``, stats, notes, timings, config, counts of actions by step and status, the
        first few actions with their reasons, and the first ``spared`` entries with
        ``spared_total``. Every action's reason is in the event log. Applied and interrupted
        passes are recorded, not dry runs or passes skipped for the lease; a store keeps the
        newest 20 per scope. ``limit``: at most this many (default 20, or ``Limits.max_k`` if lower).
        """
        core = self._core
        s = core.scope(scope)
        limit = check_count(limit, "limit", default=DREAM_RUNS_KEPT, limits=core.limits)
        return core.store.dream_runs(s, limit=limit)

    def value_by_cohort(self, *, scope: str, by: str = "tag") -> builtins.list[Cohort]:
        """Value summed and averaged per cohort (``by="tag"`` or ``"month"`` of recording)."""
        from reverie.dream import value_by_cohort

        return value_by_cohort(self, scope=self._core.scope(scope), by=by)

    def thinking_queue(self, *, scope: str, k: int | None = None) -> builtins.list[QueueEntry]:
        """What deserves attention: current items by importance × (1 − authority).

        ``k``: at most this many (default 10, or ``Limits.max_k`` if lower).
        """
        from reverie.dream import thinking_queue

        core = self._core
        return thinking_queue(self, scope=core.scope(scope), k=check_count(k, "k", default=10, limits=core.limits))

    def stop(self, wait: float = DREAM_STOP_WAIT) -> None:
        """Ask running passes to stop between two batches and wait up to ``wait`` seconds."""
        self._stop.set()
        with self._idle:
            self._idle.wait_for(lambda: self._running == 0, timeout=wait)

    # -- DreamHost ------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        return self._core.store

    @property
    def clock(self) -> Clock:
        return self._core.clock

    @property
    def limits(self) -> Limits:
        return self._core.limits

    def new_id(self) -> str:
        return self._core.new_id()

    def embed_texts(self, texts: builtins.list[str]) -> dict[str, np.ndarray]:
        return self._core.embed_texts(texts)

    def gist_command(self, fields: Mapping[str, Any], scope: str) -> cmd.Remember:
        return build_remember(fields, scope, ("system",), self._core.limits)

    def alias_lookup(self, scope: str) -> Aliases | None:
        return self._conflicts.alias_lookup(scope)

    def conflict_links(
        self, item: Item, *, aliases: Aliases | None, match: str | None, second: bool = True
    ) -> builtins.list[cmd.Command]:
        return self._conflicts.conflict_links(item, aliases=aliases, match=match, second=second)

    @property
    def reads_conflicts(self) -> bool:
        return self._core.has_conflict_reader

    @contextmanager
    def running(self) -> Iterator[None]:
        """Count a running pass so ``close()`` can wait for it to stop (``reverie.dream.run``)."""
        with self._idle:
            self._running += 1
        try:
            yield
        finally:
            with self._idle:
                self._running -= 1
                self._idle.notify_all()

    def cancelled(self) -> bool:
        """True once ``close()`` has asked running passes to stop (checked between batches)."""
        return self._stop.is_set()
