"""Applying a plan: each action only against the item versions the plan read.

Why per-action checks rather than one transaction: every ``Memory`` command is its own
transaction, and a pass may hold thousands of actions — one giant transaction would hold
the write lock for seconds. Instead each action is checked at the moment it is applied:
``forget`` and ``set_scores`` pass ``expected_version`` (checked inside the write
transaction); ``set_tier``, ``flag`` and ``link`` re-read the item first (the Memory API does
not take ``expected_version`` for them yet — a small window, listed in the dream/ notes). A
write someone else made after the plan read the item is therefore never overwritten: the
action is skipped and the report says so. The pass's own earlier writes to an item are
tracked, so its later actions on that item still apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.dream.plan import AUTHOR
from reverie.dream.report import Action, DreamReport, Outcome
from reverie.errors import ConflictError, InvalidInputError, NotFoundError
from reverie.model.item import Item

if TYPE_CHECKING:
    from reverie.memory import Memory

_MAX_REASON = 2000


class _Skip(Exception):
    """This action no longer applies (the item changed or closed since the plan read it)."""


def apply_actions(mem: Memory, report: DreamReport) -> None:
    """Apply ``report.actions`` in order, filling ``report.outcomes`` (one per action)."""
    seen: dict[str, int] = {}
    report.outcomes = []
    for action in report.actions:
        try:
            outcome = _apply(mem, report.scope, action, seen)
        except _Skip as why:
            outcome = Outcome("skipped", str(why))
        except (ConflictError, NotFoundError) as exc:
            outcome = Outcome("skipped", f"{type(exc).__name__}: {exc}")
        except InvalidInputError as exc:  # a plan the API refuses is a bug: report it, go on
            outcome = Outcome("failed", f"{type(exc).__name__}: {exc}")
        report.outcomes.append(outcome)


def _reason(action: Action) -> str:
    return f"dream/{action.step}: {action.reason}"[:_MAX_REASON]


def _expected(action: Action, seen: dict[str, int]) -> list[int]:
    return [seen.get(i, v) for i, v in zip(action.item_ids, action.versions, strict=True)]


def _current(mem: Memory, scope: str, item_id: str, version: int) -> Item:
    """The item, if it is still current and at ``version``; else ``_Skip``."""
    item = mem.get(item_id, scope=scope)
    if not item.is_current:
        raise _Skip(f"item {item_id} is {item.status} since the plan read it")
    if item.version != version:
        raise _Skip(f"item {item_id} changed since the plan read it (version {version} → {item.version})")
    return item


def _apply(mem: Memory, scope: str, action: Action, seen: dict[str, int]) -> Outcome:
    expected = _expected(action, seen)
    first = action.item_ids[0]
    op = action.op
    if op == "forget":
        done = mem.forget(first, scope=scope, reason=_reason(action), expected_version=expected[0])
    elif op == "set_scores":
        scores = {str(k): float(v) for k, v in dict(action.params["scores"]).items()}
        done = mem.set_scores(first, scope=scope, reason=_reason(action), expected_version=expected[0], **scores)
    elif op == "set_tier":
        _current(mem, scope, first, expected[0])
        tier = str(action.params["tier"])
        done = mem.set_tier(first, tier, scope=scope, reason=_reason(action), expected_version=expected[0])
    elif op == "flag":
        _current(mem, scope, first, expected[0])
        add = list(action.params["add"])
        done = mem.flag(first, scope=scope, add=add, reason=_reason(action), expected_version=expected[0])
    elif op == "detect_conflicts":
        _current(mem, scope, first, expected[0])
        found = mem.detect_conflicts(first, scope=scope)
        return Outcome("applied", f"{len(found)} new contradicts edge(s)")
    elif op == "link":
        return _link(mem, scope, action, expected)
    elif op == "remember_gist":
        return _gist(mem, scope, action, expected)
    else:  # pragma: no cover - the planner only makes the ops above
        return Outcome("failed", f"unknown op {op!r}")
    seen[first] = done.version
    return Outcome("applied")


def _link(mem: Memory, scope: str, action: Action, expected: list[int]) -> Outcome:
    for item_id, version in zip(action.item_ids, expected, strict=True):
        _current(mem, scope, item_id, version)
    kind = str(action.params["type"])
    edge = mem.link(
        str(action.params["src"]),
        str(action.params["dst"]),
        kind,
        scope=scope,
        author=AUTHOR,
        authority=1.0 if kind == "derived_from" else 0.5,  # derivation is a fact; a contradiction a candidate
        meta={"step": action.step, "reason": action.reason[:500]},
    )
    return Outcome("applied", f"edge {edge.id}")


def _gist(mem: Memory, scope: str, action: Action, expected: list[int]) -> Outcome:
    """Create the gist (parents = originals), then one ``derived_from`` edge per original.

    Stopping between the two leaves a gist whose parents lack edges; the next pass sees that
    and links them (``plan._gist_coverage``).
    """
    for item_id, version in zip(action.item_ids, expected, strict=True):
        _current(mem, scope, item_id, version)
    p = action.params
    originals = set(action.item_ids)
    gist = mem.remember_system(
        str(p["text"]),
        scope=scope,
        kind=str(p["kind"]),
        parents=list(p["parents"]),
        authority=float(p["authority"]),
        confidence=float(p["confidence"]),
        importance=float(p["importance"]),
        tags=list(p["tags"]),
        meta=dict(p["meta"]),
        author=AUTHOR,
        provenance={"origin": "dream", "ref": scope, "locator": str(p["meta"]["representative"])},
    )
    if gist.id in originals or gist.source != "system" or gist.evidence_count != 1:
        return Outcome("failed", f"the gist text matched current item {gist.id}, which was corroborated instead")
    missing = []
    for dst in action.item_ids:
        try:
            mem.link(
                gist.id,
                dst,
                "derived_from",
                scope=scope,
                author=AUTHOR,
                authority=1.0,
                meta={"step": action.step, "reason": "consolidated into this gist"},
            )
        except (ConflictError, NotFoundError):
            missing.append(dst)
    detail = f"gist {gist.id} from {len(originals)} items"
    if missing:
        detail += f"; {len(missing)} derived_from edge(s) not linked (the next pass repairs them)"
    return Outcome("applied", detail, created=gist.id)


__all__ = ["apply_actions"]
