"""Regression for issue #13 item 6: a templated log tail must not block forgetting.

300 year-old lines such as "Checked the dashboard at 13:00, nothing unusual on panel 216."
differ only in a panel number (a label: *which* panel) and a time of day (when the check
happened). Read as quantities they produced hundreds of numeric "contradictions" ("216 vs
240"); every line became a contradiction side, and sides are never demoted or forgotten, so
the tail stayed active for good.
"""

from __future__ import annotations

import random

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig, DreamReport

S = "user:ops"
_TEMPLATES = (
    "Checked the dashboard at {t}, nothing unusual on panel {n}.",
    "Checked the dashboard at {t}; all green on panel {n}.",
)


def _log_tail(mem: Memory, clock: ManualClock, count: int = 300) -> list[str]:
    """``count`` low-importance log lines, 37 minutes apart, with seeded panel numbers and times."""
    rng = random.Random(13)
    ids: list[str] = []
    for i in range(count):
        t = f"{rng.randrange(24):02d}:{rng.choice((0, 15, 30, 45)):02d}"
        text = _TEMPLATES[i % 2].format(t=t, n=rng.randrange(100, 400))
        ids.append(mem.remember(text, scope=S, importance=0.05).id)
        clock.advance(minutes=37)
    return ids


def _policy(mem: Memory) -> str:
    return mem.remember(
        "Never deploy the billing service on Fridays", scope=S, kind="policy", source="user_stated", confidence=0.95
    ).id


def _contradictions_among(mem: Memory, ids: list[str]) -> list[str]:
    tail = set(ids)
    return [
        str(e.meta.get("reason"))
        for e in mem.store.edges(S)
        if e.type == "contradicts" and e.src in tail and e.dst in tail
    ]


def _year_later(mem: Memory, clock: ManualClock, config: DreamConfig | None = None) -> DreamReport:
    """One default pass a year on: it consolidates the tail *and* demotes the stale lines.

    Regression: the planner left the members of a gist it created untouched for the rest of
    that pass, so demotion waited for a second pass (the issue asks for one).
    """
    clock.advance(days=365)
    return mem.dream(scope=S, config=config)


def test_log_tail_with_label_numbers_and_times_is_demoted_not_contested(mem: Memory, clock: ManualClock) -> None:
    tail = _log_tail(mem, clock)
    policy = _policy(mem)
    first = _year_later(mem, clock)
    stats = first.to_dict()["stats"]
    assert isinstance(stats, dict)
    assert stats["contradiction_pairs"] == 0
    assert stats["cluster_members_contested"] == 0
    assert stats["clusters_consolidated"] >= 1
    assert _contradictions_among(mem, tail) == []
    demoted = sum(mem.get(i, scope=S).tier == "subconscious" for i in tail)
    assert demoted >= 0.9 * len(tail), f"only {demoted} of {len(tail)} log lines left the active tier"
    kept = mem.get(policy, scope=S)
    assert kept.is_current and kept.tier == "active"


def test_log_tail_is_forgotten_under_a_keep_budget(mem: Memory, clock: ManualClock) -> None:
    tail = _log_tail(mem, clock)
    policy = _policy(mem)
    _year_later(mem, clock, DreamConfig(keep_budget=50))
    clock.advance(days=1)  # a pass never forgets what it consolidates; the next pass may
    mem.dream(scope=S, config=DreamConfig(keep_budget=50))
    assert _contradictions_among(mem, tail) == []
    gone = sum(not mem.get(i, scope=S).is_current for i in tail)
    assert gone >= len(tail) - 50, f"only {gone} of {len(tail)} log lines were forgotten under a budget of 50"
    kept = mem.get(policy, scope=S)
    assert kept.is_current and kept.tier == "active"
