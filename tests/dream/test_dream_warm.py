"""A pass ends by warming the scope's ANN index: the next recall neither builds nor catches up.

Real SQLite files; the ANN threshold is lowered (``AnnConfig(threshold=300)``) so a few hundred
items take the IVF path. ``AnnManager.builds`` counts indexes built from the table (a sidecar
load is not a build), which is what the first recall after crossing the threshold used to pay.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from reverie import ClosedError, ManualClock, Memory
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.ann import AnnConfig

from .kit import START

S = "user:warm"
THRESHOLD = 300


def open_small(path: Path, clock: ManualClock) -> Memory:
    store = SQLiteStore(path, durability="fast", ann=AnnConfig(threshold=THRESHOLD))
    return Memory(store=store, embedder="hash", clock=clock, seed=0, detect_conflicts=False)


def fill(mem: Memory, count: int) -> None:
    batch = [{"text": f"note {i} about topic {i % 17} and item {i * 7919 % 1013}"} for i in range(count)]
    mem.remember_many(batch, scope=S)


def sidecars(path: Path) -> list[Path]:
    return sorted(Path(str(path) + ".ann").glob("*.ivf"))


def builds(mem: Memory) -> int:
    store = mem.store
    assert isinstance(store, SQLiteStore)
    return store._ann.builds


def test_a_pass_leaves_the_index_built_saved_and_in_step(tmp_path: Path) -> None:
    path = tmp_path / "warm.db"
    clock = ManualClock(START)
    mem = open_small(path, clock)
    fill(mem, 400)
    clock.advance(days=60)  # stale: the pass demotes, which must not touch the vectors
    report = mem.dream(scope=S)
    assert report.count(status="applied") > 0
    assert report.stats["ann_warmed"] is True
    assert report.timings["warm"] >= 0.0
    assert builds(mem) == 1  # built by the pass, not by a recall
    assert len(sidecars(path)) == 1
    doctor = mem.doctor()
    assert doctor.ok, doctor.problems
    assert doctor.counts["ann_sidecars"] == 1 and doctor.counts["ann_lagging"] == 0
    assert mem.recall("note about topic 3", scope=S, k=5)
    assert builds(mem) == 1  # the recall found the index warm
    mem.close()

    clock.advance(hours=1)
    again = open_small(path, clock)  # a new process: the sidecar is loaded, not rebuilt
    assert again.recall("note about topic 3", scope=S, k=5)
    assert builds(again) == 0
    again.close()


def test_a_later_pass_catches_the_index_up_with_new_writes(tmp_path: Path) -> None:
    path = tmp_path / "catchup.db"
    clock = ManualClock(START)
    mem = open_small(path, clock)
    fill(mem, 400)
    mem.dream(scope=S)
    mem.remember_many([{"text": f"later remark number {i}"} for i in range(30)], scope=S)
    assert mem.doctor().counts["ann_lagging"] == 1  # the saved sidecar predates the appends
    clock.advance(days=1)
    report = mem.dream(scope=S)
    assert report.stats["ann_warmed"] is True
    assert mem.doctor().counts["ann_lagging"] == 0
    assert builds(mem) == 1  # caught up incrementally, never rebuilt
    mem.close()


def test_dry_runs_and_small_scopes_warm_nothing(tmp_path: Path) -> None:
    clock = ManualClock(START)
    big = open_small(tmp_path / "dry.db", clock)
    fill(big, 400)
    assert "ann_warmed" not in big.dream(scope=S, dry_run=True).stats
    assert builds(big) == 0 and not sidecars(tmp_path / "dry.db")
    big.close()

    small = open_small(tmp_path / "small.db", clock)
    fill(small, 50)
    clock.advance(timedelta(days=60))
    report = small.dream(scope=S)
    assert report.stats["ann_warmed"] is False
    assert builds(small) == 0 and not sidecars(tmp_path / "small.db")
    small.close()


def test_the_build_runs_without_the_store_lock_so_close_is_not_held_up(tmp_path: Path) -> None:
    """While a warm builds the index (~1 min at 1M vectors), other calls and ``close()`` go on.

    The main thread holds the store lock the whole time the worker warms: the build must still
    happen (it reads on its own connection); only installing it waits for the lock.
    """
    path = tmp_path / "warm.db"
    clock = ManualClock(START)
    mem = open_small(path, clock)
    fill(mem, 400)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    result: list[bool | BaseException] = []

    def warm() -> None:
        try:
            result.append(store.warm(S))
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            result.append(exc)

    with store._lock:
        worker = threading.Thread(target=warm)
        worker.start()
        deadline = time.monotonic() + 60
        while not sidecars(path) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert builds(mem) == 1 and len(sidecars(path)) == 1  # built and saved while we held the lock
        assert worker.is_alive()  # ... and now waiting for the lock to install it
    worker.join(60)
    assert result == [True]
    assert mem.recall("note about topic 3", scope=S, k=5)
    assert builds(mem) == 1  # installed: the recall did not build again
    mem.close()


def test_close_while_a_build_is_in_flight_returns_and_the_warm_fails_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "warm.db"
    clock = ManualClock(START)
    mem = open_small(path, clock)
    fill(mem, 400)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    result: list[bool | BaseException] = []
    with store._lock:
        worker = threading.Thread(target=lambda: _catch(result, lambda: store.warm(S)))
        worker.start()
        deadline = time.monotonic() + 60
        while not sidecars(path) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(sidecars(path)) == 1
    mem.close()  # the worker may or may not have installed by now: either way close returns
    worker.join(60)
    assert len(result) == 1 and (result[0] is True or isinstance(result[0], ClosedError))
    reopened = open_small(path, clock)
    assert reopened.doctor().ok
    reopened.close()


def _catch(out: list[bool | BaseException], call: Callable[[], bool]) -> None:
    try:
        out.append(call())
    except BaseException as exc:
        out.append(exc)
