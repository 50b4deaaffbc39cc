"""The world of the dream-pass pattern tests (purge and visibility, outside probes #13 and #14).

One kind of event repeated weekly (same words, only the build number differs) makes the pass
write pattern items; the purge and visibility suites both start from it, so it is written once.
"""

from __future__ import annotations

from datetime import timedelta

from reverie import ManualClock, Memory, Q
from reverie.model.item import Item
from strategies import START

SCOPE = "ops"
#: The first event: the Monday after ``START``, 09:00.
MONDAY = (START - timedelta(days=START.weekday()) + timedelta(weeks=1)).replace(
    hour=9, minute=0, second=0, microsecond=0
)


def weekly_events(mem: Memory, word: str, n: int = 14, *, visibility: list[str] | None = None) -> list[str]:
    """``n`` weekly observations on Mondays at 09:00 naming ``word`` (one kind of event), their ids."""
    return [
        mem.remember(
            f"The secret {word} deploy failed on build {4400 + i}",
            scope=SCOPE,
            kind="observation",
            valid_from=MONDAY + timedelta(weeks=i),
            visibility=visibility,
        ).id
        for i in range(n)
    ]


def dream_at(mem: Memory, weeks: int = 16) -> None:
    """Run the pass ``weeks`` after ``START`` (the memory's clock must be a ``ManualClock``)."""
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    clock.set(START + timedelta(weeks=weeks))
    mem.dream(scope=SCOPE)


def patterns(view: Memory, *, closed: bool = False) -> list[Item]:
    """The pattern items ``view`` sees in ``SCOPE`` (closed ones too with ``closed``)."""
    return view.list(scope=SCOPE, where=Q.kind("pattern"), include_closed=closed, limit=100).items
