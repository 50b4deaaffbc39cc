"""``Memory.close()`` returns within 5 s even during a dream pass (issue #7, Resources)."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from pathlib import Path

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig, DreamReport

from .kit import S


def _big_scope(mem: Memory, n: int) -> None:
    """Distinct texts (two hash words each), so nothing is a near-duplicate and all go stale."""
    words = [hashlib.sha1(str(i).encode()).hexdigest() for i in range(n)]
    mem.remember_many([{"text": f"Routine entry {w[:8]} filed under {w[8:16]}"} for w in words], scope=S)


def test_close_during_a_pass_returns_quickly_and_leaves_a_clean_file(
    open_db: Callable[..., Memory], clock: ManualClock, tmp_path: Path
) -> None:
    mem = Memory(tmp_path / "busy.db", embedder="hash", clock=clock, seed=0, durability="fast")
    _big_scope(mem, 1500)
    clock.advance(days=60)  # every item is stale: the pass demotes them all, one action each
    applying = threading.Event()
    result: list[DreamReport | BaseException] = []

    def slow_progress(phase: str, done: int, total: int) -> None:
        if phase == "apply":
            applying.set()
            time.sleep(0.05)  # a long pass: many batches

    def run() -> None:
        try:
            result.append(mem.dream(scope=S, config=DreamConfig(apply_batch=20), progress=slow_progress))
        except BaseException as exc:  # pragma: no cover - reported below
            result.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert applying.wait(60)
    t0 = time.perf_counter()
    mem.close()
    elapsed = time.perf_counter() - t0
    worker.join(10)
    assert elapsed < 5.0
    (report,) = result
    assert isinstance(report, DreamReport)
    assert report.interrupted is not None and "Memory.close()" in report.interrupted
    applied = report.stats["applied"]
    assert 0 < applied < len(report.actions)
    assert applied % 20 == 0  # whole batches only: nothing partial
    again = open_db("busy", clock=clock)
    assert again.doctor().ok
    assert again.dream_runs(scope=S)[0]["interrupted"] == report.interrupted  # recorded before close ended
    demoted = report.count("tier", "applied")
    assert again.summary(scope=S)["subconscious"] == demoted  # exactly the applied actions are in the file
    assert again.dream(scope=S, dry_run=True).count("tier") == report.count("tier") - demoted  # the rest: next pass
