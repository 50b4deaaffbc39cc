"""One small scope that every face's recall/context option tests read: two claims by "ops", one
policy an hour later by "lead" (so `where`, `as_of` and `tiers` each select something)."""

from __future__ import annotations

from datetime import timedelta

from reverie import ManualClock, Memory


def seed_deploys(mem: Memory, scope: str) -> str:
    """Write the three claims; returns the moment before the last one (ISO 8601), for `as_of`."""
    mem.remember("deploys happen on Fridays", scope=scope, kind="policy", author="ops")
    mem.remember("deploys broke twice on Fridays", scope=scope, kind="observation", author="ops")
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    before = clock.now()
    clock.advance(timedelta(hours=1))
    mem.remember("deploys moved to Mondays", scope=scope, kind="policy", author="lead")
    return before.isoformat()
