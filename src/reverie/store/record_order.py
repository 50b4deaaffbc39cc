"""Record time that went backwards, as ``doctor`` reports it on every backend.

Since record time is clamped to the last recorded event (``engine.record_time``) no new such rows
are written; files written before (outside tester, finding 16: a clock stepped back a day) may
hold them. They are reported, not repaired: the log says what was believed when, and rewriting
its times would be a second lie. ``as_of`` reads between the two times may show a correction
believed before the claim it corrects.

Why a module of its own: SQLite, PostgreSQL and the reference store count these rows in their own
way, and must word them alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

#: Events, per scope in log order, recorded earlier than the event before them (after their count).
STEPPED_BACK = (
    "events were recorded earlier than the event before them in their scope (the clock stepped "
    "back while writing, before record time was kept monotonic); as_of reads between those times may be wrong"
)
#: Item versions whose ``closed_at`` is before their ``recorded_at`` (after their count).
CLOSED_BEFORE_RECORDED = (
    "item versions were closed before they were recorded (closed_at < recorded_at: the clock "
    "stepped back while writing, before record time was kept monotonic); as_of reads between those times may be wrong"
)


def problems(stepped_back: int, closed_early: int) -> list[str]:
    """The doctor lines for these counts (none for zero)."""
    out = [f"{stepped_back} {STEPPED_BACK}"] if stepped_back else []
    return out + ([f"{closed_early} {CLOSED_BEFORE_RECORDED}"] if closed_early else [])


def steps_back(times: Iterable[tuple[str, datetime]]) -> int:
    """How many of ``(scope, at)``, in log order, are earlier than the previous one of their scope."""
    last: dict[str, datetime] = {}
    n = 0
    for scope, at in times:
        if scope in last and at < last[scope]:
            n += 1
        last[scope] = at
    return n


__all__ = ["CLOSED_BEFORE_RECORDED", "STEPPED_BACK", "problems", "steps_back"]
