"""The entry points: ``dream`` (plan + apply under the scope lease), ``plan`` and ``apply``.

``Memory.dream`` / ``Memory.thinking_queue`` / ``Memory.value_by_cohort`` delegate here through
the facade's ``DreamHost`` (``host``): the narrow interface this package declares, so nothing
here imports the facade. Reads of a whole scope use the store's read methods (see
``snapshot``); writes are commands applied through ``Store.execute_steps`` in atomic batches
(see ``apply``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from reverie.dream.apply import Progress, apply_actions
from reverie.dream.collector import collector_paused
from reverie.dream.config import DreamConfig
from reverie.dream.lease import ScopeLease, scope_lease
from reverie.dream.plan import plan_pass
from reverie.dream.report import DreamReport
from reverie.dream.runs import record
from reverie.dream.snapshot import read_snapshot
from reverie.errors import InvalidInputError, ReverieError
from reverie.model.clock import to_iso
from reverie.model.validate import check_scope

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost


def plan(
    mem: DreamHost,
    *,
    scope: str,
    config: DreamConfig | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> DreamReport:
    """What one pass would do now, with the reason for each action; nothing is written.

    ``progress("plan", done, total)`` after each step; ``cancelled()`` is checked between
    steps, and a cancelled plan comes back empty with ``interrupted`` set.
    """
    cfg = _config(config)
    s = check_scope(scope, mem.limits)

    def tick(done: int, total: int) -> bool:
        if progress is not None:
            progress("plan", done, total)
        return not cancelled()

    with collector_paused():
        t0 = time.perf_counter()
        snap = read_snapshot(mem, s)
        t1 = time.perf_counter()
        reads = bool(getattr(mem, "reads_conflicts", False))
        planner = plan_pass(snap, mem.store, cfg, mem.limits, tick=tick, reads_conflicts=reads)
        t2 = time.perf_counter()
    report = DreamReport(
        scope=s,
        at=to_iso(snap.now),
        dry_run=True,
        config=cfg.to_dict(),
        actions=planner.actions,
        attention=planner.attention,
        stats=planner.stats,
        notes=planner.notes,
        spared=planner.spared,
        timings={"read": t1 - t0, "plan": t2 - t1},
        alerts=planner.alerts,
    )
    if planner.stopped:
        report.actions, report.attention, report.spared, report.alerts = [], [], [], []
        report.interrupted = "Memory.close() asked the pass to stop while it was planning; nothing was applied"
    return report


def apply(mem: DreamHost, report: DreamReport, *, progress: Progress | None = None) -> DreamReport:
    """Apply a plan made by ``plan`` (or ``dream(dry_run=True)``), under the scope's lease.

    Items changed since the plan read them are skipped, never overwritten. Returns the same
    report with ``dry_run`` False and one outcome per action (or ``skipped`` set, untouched,
    if another pass holds the lease), and records its summary like ``dream`` (``runs.record``).
    """
    if report.skipped is not None or report.interrupted is not None:
        return report
    cfg = report.config
    with mem.running(), scope_lease(mem, report.scope, seconds=float(cfg["lease_seconds"])) as lease:
        if not lease:
            report.skipped = lease.busy_reason()
            return report
        report.notes += lease.notes()
        _apply_held(mem, report, lease, progress)
        record(mem, report)  # under the lease: runs of a scope are recorded in the order they ran
    return report


def _apply_held(mem: DreamHost, report: DreamReport, lease: ScopeLease, progress: Progress | None) -> None:
    t0 = time.perf_counter()
    report.dry_run = False
    with collector_paused():
        apply_actions(
            mem,
            report,
            batch=int(report.config["apply_batch"]),
            lease=lease,
            progress=progress,
            cancelled=mem.cancelled,
        )
    report.timings["apply"] = time.perf_counter() - t0
    report.stats["applied"] = report.count(status="applied")
    report.stats["skipped"] = report.count(status="skipped")
    report.stats["failed"] = report.count(status="failed")
    if report.interrupted is None and not mem.cancelled():
        _warm(mem, report)


def _warm(mem: DreamHost, report: DreamReport) -> None:
    """Idle work after the writes: bring the scope's search index up to date (``Store.warm``).

    Why here: above ``AnnConfig.threshold`` the first recall after a change of the vector set
    pays for the index build or catch-up (3.3 s at 100k vectors); the pass has
    just read the whole scope and holds its lease, so it pays instead. ``stats["ann_warmed"]``
    says whether there was an index to warm (deterministic); ``timings["warm"]`` how long it took.
    """
    t0 = time.perf_counter()
    try:
        report.stats["ann_warmed"] = mem.store.warm(report.scope)
    except ReverieError as exc:  # the writes are done and committed; a cold index is only slower
        report.stats["ann_warmed"] = False
        report.notes.append(f"the search index was not warmed ({type(exc).__name__}: {exc}); recall builds it")
    report.timings["warm"] = time.perf_counter() - t0


def dream(
    mem: DreamHost,
    *,
    scope: str,
    dry_run: bool = False,
    config: DreamConfig | None = None,
    progress: Progress | None = None,
) -> DreamReport:
    """One deterministic consolidation pass over ``scope``; returns what it did and why.

    ``dry_run=True`` returns the plan without applying it. A second pass on the same scope
    while one runs — in this process or another sharing the file — does not wait: its report
    says it skipped and who holds the lease. ``Memory.close()`` stops a running pass between
    two atomic batches; its report then says it was interrupted. A pass that ran (applied or
    interrupted; not a dry run, not a skip) leaves its summary in the store (``runs.record``).
    """
    s = check_scope(scope, mem.limits)
    cfg = _config(config)
    with mem.running():
        if dry_run:
            return plan(mem, scope=s, config=cfg, progress=progress, cancelled=mem.cancelled)
        with scope_lease(mem, s, seconds=cfg.lease_seconds) as lease:
            if not lease:
                at = to_iso(mem.clock.now())
                return DreamReport(s, at, dry_run=False, config=cfg.to_dict(), skipped=lease.busy_reason())
            report = plan(mem, scope=s, config=cfg, progress=progress, cancelled=mem.cancelled)
            report.notes += lease.notes()
            if report.interrupted is None:
                _apply_held(mem, report, lease, progress)
            else:
                report.dry_run = False
            record(mem, report)  # before the lease and ``close()``'s wait end (see ``runs.record``)
            return report


def _config(config: DreamConfig | None) -> DreamConfig:
    if config is None:
        return DreamConfig()
    if not isinstance(config, DreamConfig):
        raise InvalidInputError("config must be a reverie.dream.DreamConfig")
    return config


__all__ = ["apply", "dream", "plan"]
