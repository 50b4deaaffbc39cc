"""The entry points: ``dream`` (plan + apply under the scope lease), ``plan``, ``apply``,
and ``cascade_retract``.

``Memory.dream`` / ``Memory.thinking_queue`` / ``Memory.value_by_cohort`` delegate here. Only
the public ``Memory`` API writes; reads of a whole scope use the store's read methods (see
``snapshot``). ``Memory`` is imported for type checking only: memory.py imports this package.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from reverie.dream.apply import apply_actions
from reverie.dream.config import DreamConfig
from reverie.dream.lease import lease_key, scope_lease
from reverie.dream.plan import plan_pass
from reverie.dream.report import DreamReport
from reverie.dream.snapshot import read_snapshot
from reverie.errors import AlreadyClosedError, InvalidInputError, NotFoundError
from reverie.model.clock import to_iso
from reverie.model.query import Q, parse_sort
from reverie.model.validate import check_id, check_reason, check_scope

if TYPE_CHECKING:
    from reverie.memory import Memory


def plan(mem: Memory, *, scope: str, config: DreamConfig | None = None) -> DreamReport:
    """What one pass would do now, with the reason for each action; nothing is written."""
    cfg = _config(config)
    s = check_scope(scope, mem.limits)
    t0 = time.perf_counter()
    snap = read_snapshot(mem, s)
    t1 = time.perf_counter()
    planner = plan_pass(snap, mem.store, cfg, mem.limits)
    t2 = time.perf_counter()
    return DreamReport(
        scope=s,
        at=to_iso(snap.now),
        dry_run=True,
        config=cfg.to_dict(),
        actions=planner.actions,
        attention=planner.attention,
        stats=planner.stats,
        notes=planner.notes,
        timings={"read": t1 - t0, "plan": t2 - t1},
    )


def apply(mem: Memory, report: DreamReport) -> DreamReport:
    """Apply a plan made by ``plan`` (or ``dream(dry_run=True)``), under the scope's lease.

    Items changed since the plan read them are skipped, never overwritten. Returns the same
    report with ``dry_run`` False and one outcome per action (or ``skipped`` set, untouched,
    if another pass holds the lease).
    """
    if report.skipped is not None:
        return report
    with scope_lease(mem, report.scope) as held:
        if not held:
            report.skipped = _busy(mem, report.scope)
            return report
        _apply_held(mem, report)
    return report


def _apply_held(mem: Memory, report: DreamReport) -> None:
    t0 = time.perf_counter()
    report.dry_run = False
    apply_actions(mem, report)
    report.timings["apply"] = time.perf_counter() - t0
    report.stats["applied"] = report.count(status="applied")
    report.stats["skipped"] = report.count(status="skipped")
    report.stats["failed"] = report.count(status="failed")


def dream(mem: Memory, *, scope: str, dry_run: bool = False, config: DreamConfig | None = None) -> DreamReport:
    """One deterministic consolidation pass over ``scope``; returns what it did and why.

    ``dry_run=True`` returns the plan without applying it. A second pass on the same scope
    (same store file, this process) while one runs does not wait: its report says it skipped.
    """
    s = check_scope(scope, mem.limits)
    cfg = _config(config)
    if dry_run:
        return plan(mem, scope=s, config=cfg)
    with scope_lease(mem, s) as held:
        if not held:
            return DreamReport(
                scope=s, at=to_iso(mem.clock.now()), dry_run=False, config=cfg.to_dict(), skipped=_busy(mem, s)
            )
        report = plan(mem, scope=s, config=cfg)
        _apply_held(mem, report)
        return report


def cascade_retract(mem: Memory, id: str, *, scope: str, reason: str = "") -> list[str]:
    """Forget ``id`` and every current item that has it as a parent, transitively.

    Breadth-first from ``id``; each forget is its own transaction and carries the reason and
    the root. Items already closed are passed over (their own dependants are still followed).
    Returns the ids forgotten, in order. If it stops half-way (a crash), the next dream pass
    flags what is left as ``stale_derived``.
    """
    s = check_scope(scope, mem.limits)
    root = check_id(id)
    why = check_reason(reason)
    mem.get(root, scope=s)  # NotFoundError for an unknown id, before anything is written
    done: list[str] = []
    seen = {root}
    frontier = [root]
    while frontier:
        current = frontier.pop(0)
        note = "cascade_retract" if current == root else f"cascade_retract from {root} (parent chain)"
        try:
            mem.forget(current, scope=s, reason=f"{note}: {why}" if why else note)
            done.append(current)
        except (AlreadyClosedError, NotFoundError):
            pass
        children = mem.store.query(s, Q.parent(current) & Q.status("live"), parse_sort(["id"]), limit=10**9)
        for child in children:
            if child.id not in seen:
                seen.add(child.id)
                frontier.append(child.id)
    return done


def _busy(mem: Memory, scope: str) -> str:
    path, _ = lease_key(mem, scope)
    return (
        f"another dream pass holds the lease for scope {scope!r} on {path}; this pass did nothing "
        "(the lease is process-local until the store gains a lease row)"
    )


def _config(config: DreamConfig | None) -> DreamConfig:
    if config is None:
        return DreamConfig()
    if not isinstance(config, DreamConfig):
        raise InvalidInputError("config must be a reverie.dream.DreamConfig")
    return config


__all__ = ["apply", "cascade_retract", "dream", "plan"]
