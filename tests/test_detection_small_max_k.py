"""Write-time conflict detection works when ``Limits.max_k`` is below its candidate count.

Regression: detection asked for 10 candidates explicitly, and an explicit count above
``Limits.max_k`` is refused, so with ``max_k=5`` every write's detection failed and left the
claim flagged ``conflicts_unchecked`` for the dream pass. A default count is clamped instead.
"""

from __future__ import annotations

from pathlib import Path

from reverie import Limits, Memory
from reverie.memory import CONFLICTS_UNCHECKED

SCOPE = "team:ops"


def test_detection_runs_at_write_time_with_a_small_max_k(tmp_path: Path) -> None:
    with Memory(tmp_path / "k.db", embedder="hash", limits=Limits(max_k=5)) as mem:
        mem.remember("The on-call engineer is Bob.", scope=SCOPE)
        carol = mem.remember_checked("The on-call engineer is Carol.", scope=SCOPE)
        assert CONFLICTS_UNCHECKED not in carol.item.flags
        assert len(carol.conflicts) == 1
        batch = mem.remember_many_checked([{"text": "The on-call engineer is Dana."}], scope=SCOPE)
        assert CONFLICTS_UNCHECKED not in batch[0].item.flags and batch[0].conflicts
