"""Shared helpers for the dream-pass suite: the seeded scope and small readers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from reverie import ManualClock, Memory
from reverie.recall.engine import Hit

S = "user:alice"
START = datetime(2025, 1, 1, tzinfo=UTC)

TEA = (
    "Alice prefers green tea in the morning",
    "In the morning Alice prefers green tea",
    "Alice prefers green tea every morning",
)
FLAG_ON = "The feature flag dark_mode is on"
FLAG_OFF = "The feature flag dark_mode is off"


@dataclass
class Scope:
    """Ids of the seeded items, by role."""

    tea: list[str]
    flag_on: str
    flag_off: str
    policy: str
    manual: str
    remark: str
    derived: str
    parent: str


def seed(mem: Memory, clock: ManualClock) -> Scope:
    """A scope with a near-duplicate cluster, a toggle pair, a cold policy, a manual fact,
    a stale remark and a derived item; then 40 days pass."""
    tea = [mem.remember(t, scope=S, kind="episodic").id for t in TEA]
    on = mem.remember(FLAG_ON, scope=S).id
    off = mem.remember(FLAG_OFF, scope=S).id
    policy = mem.remember(
        "Never deploy the billing service on Fridays", scope=S, kind="policy", source="user_stated", confidence=0.95
    ).id
    manual = mem.remember_manual("Alice is allergic to peanuts", scope=S, kind="assertion").id
    remark = mem.remember("Bob said the weather was nice", scope=S, kind="remark", source="inferred").id
    parent = mem.remember("The staging database runs PostgreSQL 15", scope=S, kind="assertion").id
    derived = mem.remember(
        "Staging supports JSON path queries", scope=S, kind="derivation", source="inferred", parents=[parent]
    ).id
    clock.advance(days=40)
    return Scope(tea, on, off, policy, manual, remark, derived, parent)


def texts(hits: list[Hit]) -> list[str]:
    return [h.item.text for h in hits]


def ids(hits: list[Hit]) -> list[str]:
    return [h.item.id for h in hits]


def count_all(mem: Memory) -> int:
    """Every item row of the scope, closed ones included: a pass must never shrink it."""
    return len(mem.list(scope=S, include_closed=True, limit=1000).items)
