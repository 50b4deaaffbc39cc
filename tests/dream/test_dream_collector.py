"""The pass pauses Python's cyclic collector while it reads, plans and applies, and restores it."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from reverie import ManualClock, Memory
from reverie.dream.collector import collector_paused

from .kit import S, seed


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_during_plan_and_apply_and_on_again_after(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    gc.enable()
    seen: dict[str, set[bool]] = {}

    def tick(phase: str, done: int, total: int) -> None:
        seen.setdefault(phase, set()).add(gc.isenabled())

    report = mem.dream(scope=S, progress=tick)
    assert report.count(status="applied") > 0
    assert seen == {"plan": {False}, "apply": {False}}
    assert gc.isenabled()


def test_a_collector_disabled_by_the_application_stays_disabled(mem: Memory, clock: ManualClock) -> None:
    seed(mem, clock)
    gc.disable()
    mem.dream(scope=S)
    assert not gc.isenabled()


def test_an_error_inside_the_pause_still_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_overlapping_pauses_in_two_threads_restore_only_when_the_last_leaves() -> None:
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    with collector_paused():
        t.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other thread still holds the pause
    release.set()
    t.join(10)
    assert gc.isenabled()
