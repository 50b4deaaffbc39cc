"""Recorded dream passes: the compact summary a store keeps of each pass (``Store.record_dream_run``).

Why: ``Memory.last_dream_report`` lives in the process that ran the pass, so a pass run by
cron, by another process, or before a restart was invisible to the review page and to
``reverie dream --last``. Each applied or interrupted pass now leaves a summary in the file.

What a summary holds: everything ``DreamReport.to_dict`` holds except the action list and its
outcomes — a pass over a large scope plans hundreds of thousands of actions, and each applied
one is an event with its reason already. In their place: counts by step and status, and the
first ``FIRST_ACTIONS`` actions (a reviewer's "what kind of thing did it do, and why"), each
with its status and reason. ``spared`` is cut to its first ``SPARED_KEPT`` entries plus
``spared_total``. Timings are kept (rounded), though they are not deterministic.

What is recorded: passes that ran — applied, or interrupted (``Memory.close()``, a lost lease).
Not dry runs (nothing happened) and not passes skipped because another pass held the lease:
that other pass records its own outcome, and a cron job firing every minute during a long pass
would otherwise push every real run out of the ``DREAM_RUNS_KEPT`` a scope keeps.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from reverie.dream.report import DreamReport
from reverie.model.clock import from_iso

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost

#: Actions kept, in plan order, with their status and reason.
FIRST_ACTIONS = 10
#: ``spared`` entries kept; ``spared_total`` counts them all.
SPARED_KEPT = 20
#: Characters of an action's reason kept (the event log has it whole).
REASON_CHARS = 500
#: Item ids kept per sampled action (a gist may have many parents); ``items`` counts them all.
IDS_KEPT = 5

_log = logging.getLogger("reverie")


def summarize(report: DreamReport) -> dict[str, Any]:
    """The summary of ``report`` a store keeps (JSON-ready; see the module docstring)."""
    full = report.to_dict(timings=True)
    statuses = [
        report.outcomes[i].status if i < len(report.outcomes) else "planned" for i in range(len(report.actions))
    ]
    by_step: dict[str, dict[str, int]] = {}
    by_status: dict[str, int] = {}
    for action, status in zip(report.actions, statuses, strict=True):
        step = by_step.setdefault(action.step, {})
        step[status] = step.get(status, 0) + 1
        by_status[status] = by_status.get(status, 0) + 1
    first = [
        {
            "step": a.step,
            "op": a.op,
            "status": status,
            "items": len(a.item_ids),
            "item_ids": list(a.item_ids[:IDS_KEPT]),
            "reason": a.reason[:REASON_CHARS],
            "detail": report.outcomes[i].detail if i < len(report.outcomes) else "",
        }
        for i, (a, status) in enumerate(zip(report.actions[:FIRST_ACTIONS], statuses, strict=False))
    ]
    return {
        "scope": full["scope"],
        "at": full["at"],
        "dry_run": full["dry_run"],
        "skipped": full["skipped"],
        "interrupted": full["interrupted"],
        "counts": {"actions": len(report.actions), "by_status": by_status, "by_step": by_step},
        "first_actions": first,
        "stats": full["stats"],
        "notes": full["notes"],
        "attention": full["attention"],
        "spared": full["spared"][:SPARED_KEPT],
        "spared_total": len(report.spared),
        "timings": full["timings"],
        "config": full["config"],
        "alerts": full["alerts"],  # whole (capped by ``bias.MAX_ALERTS``): ``Memory.alerts`` reads them here
    }


def record(mem: DreamHost, report: DreamReport) -> None:
    """Keep the summary of a pass that ran; never fails the pass.

    The pass's writes are committed by now: a store that cannot take the summary (disk full, the
    ``Memory`` closed while the pass stopped) costs only the record, and the report says so in
    ``notes`` (and the ``reverie`` logger warns).
    """
    if report.dry_run or report.skipped is not None:
        return
    try:
        mem.store.record_dream_run(report.scope, summarize(report), at=from_iso(report.at))
    except Exception as exc:  # whatever failed, the pass itself is done and must not fail
        note = f"this pass was not recorded in the store's dream runs ({type(exc).__name__}: {exc})"
        report.notes.append(note)
        _log.warning("dream pass over %r: %s", report.scope, note)


__all__ = ["FIRST_ACTIONS", "SPARED_KEPT", "record", "summarize"]
