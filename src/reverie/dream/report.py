"""What a pass planned and what became of each action: ``Action``, ``Outcome``, ``DreamReport``.

Why a plan of plain values: the pass reads a snapshot and *proposes* commands with reasons
(DESIGN: "passes propose, the store disposes"). A dry run returns the plan unapplied; a real
run applies it action by action against the versions it read, and records for each action
whether it was applied, skipped (the item changed, or is gone) or failed. ``to_dict`` is
JSON-ready and, for a dry run, a pure function of (store, clock, config): the determinism
tests compare it as a dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Step = Literal[
    "consolidate",  # 2 + 7: a gist for a grown near-duplicate cluster, or new members linked to its gist
    "contradiction",  # 3: near-duplicates that disagree in polarity or value
    "recheck",  # 3: conflict detection for items that missed it at write time (flag) or are recent
    "hub",  # 4: matches almost every probe query (flag), or no longer does (flag removed)
    "keep_budget",  # 5: lowest-value unprotected surplus over the budget
    "tier",  # 6: stale, low-use, unprotected → subconscious
    "provenance",  # 8: a parent was retracted or contradicted
    "settle",  # 9: importance of processed items decays towards a floor
    "pattern",  # 10: recurring temporal patterns as pattern items (``pattern_step``)
]
Op = Literal[
    "remember_gist",
    "remember_pattern",
    "link",
    "detect_conflicts",
    "flag",
    "forget",
    "set_tier",
    "set_scores",
    "set_visibility",
]
Status = Literal["planned", "applied", "skipped", "failed"]

#: Every step in the order a pass plans and applies them.
STEPS: tuple[str, ...] = (
    "contradiction",
    "recheck",
    "consolidate",
    "hub",
    "provenance",
    "keep_budget",
    "tier",
    "settle",
    "pattern",
)


@dataclass(frozen=True, slots=True)
class Action:
    """One proposed write: the step that wants it, the command, its items and why.

    ``versions`` holds, for each id in ``item_ids``, the item version the plan read: the
    write is applied only while the item is still at that version (plus this pass's own
    earlier writes to it). ``params`` holds the command's arguments.
    """

    step: str
    op: str
    item_ids: tuple[str, ...]
    versions: tuple[int, ...]
    reason: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "op": self.op,
            "item_ids": list(self.item_ids),
            "versions": list(self.versions),
            "reason": self.reason,
            "params": _plain(self.params),
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """What applying one action did; ``created`` is the new gist's id for ``remember_gist``."""

    status: Status
    detail: str = ""
    created: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "detail": self.detail, "created": self.created}


@dataclass(slots=True)
class DreamReport:
    """The plan of one pass over one scope and, unless ``dry_run``, the outcome of each action.

    ``skipped`` is set (and ``actions`` empty) when another pass held the scope's lease.
    ``interrupted`` says why a pass stopped early (``Memory.close()``, a lost lease): actions
    are applied in atomic batches, so each one is either applied or reported as not applied.
    ``stats`` are deterministic counts; ``timings`` (seconds per phase) are not, so they are
    left out of ``to_dict`` unless asked for. ``spared`` lists the items a step would have
    forgotten or demoted but for a protection (``{"step", "id", "reason"}``), so a dry run says
    why a cold item stays ("load-bearing: 3 current items derive from it").
    """

    scope: str
    at: str
    dry_run: bool
    config: dict[str, Any]
    actions: list[Action] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    attention: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    spared: list[dict[str, Any]] = field(default_factory=list)
    skipped: str | None = None
    interrupted: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: Bias alerts the pass computed (``reverie.dream.bias``): kept in the run's record for ``Memory.alerts``.
    alerts: list[dict[str, Any]] = field(default_factory=list)

    def count(self, step: str | None = None, status: str | None = None) -> int:
        """How many actions (of ``step``, with ``status``) the report holds."""
        n = 0
        for i, a in enumerate(self.actions):
            got = self.outcomes[i].status if i < len(self.outcomes) else "planned"
            if (step is None or a.step == step) and (status is None or got == status):
                n += 1
        return n

    def ids(self, step: str, status: str | None = None) -> set[str]:
        """Item ids that actions of ``step`` (with ``status``) touch."""
        out: set[str] = set()
        for i, a in enumerate(self.actions):
            got = self.outcomes[i].status if i < len(self.outcomes) else "planned"
            if a.step == step and (status is None or got == status):
                out.update(a.item_ids)
        return out

    def to_dict(self, *, timings: bool = False) -> dict[str, Any]:
        actions = []
        for i, a in enumerate(self.actions):
            d = a.to_dict()
            d.update(self.outcomes[i].to_dict() if i < len(self.outcomes) else {"status": "planned"})
            actions.append(d)
        out: dict[str, Any] = {
            "scope": self.scope,
            "at": self.at,
            "dry_run": self.dry_run,
            "skipped": self.skipped,
            "interrupted": self.interrupted,
            "config": dict(self.config),
            "stats": _plain(self.stats),
            "actions": actions,
            "attention": _plain(self.attention),
            "spared": _plain(self.spared),
            "notes": list(self.notes),
            "alerts": _plain(self.alerts),
        }
        if timings:
            out["timings"] = {k: round(v, 4) for k, v in self.timings.items()}
        return out


def _plain(value: Any) -> Any:
    """Tuples → lists, mappings → dicts, recursively: what ``json.dumps`` accepts."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["STEPS", "Action", "DreamReport", "Op", "Outcome", "Status", "Step"]
