"""Issue #14, finding 13: dream schedules and the lease of a pass that was killed.

``reverie dream --every inf`` (or ``99999999999999999d``) ran a pass and then died in
``time.sleep`` with ``error[internal]``; ``--every 1e-9s`` busy-looped (892 passes in 6 s). An
interval is now bounded, ``MIN_INTERVAL_SECONDS`` .. ``MAX_INTERVAL_SECONDS``, and refused before
any pass runs. A pass killed with SIGKILL held its lease for its whole term (300 s), blocking the
scope; a pass on the same host now sees that the holder's process is gone (or is another
process reusing its pid) and takes the lease over, saying so in its report. A holder on another
host, or one whose owner string it cannot read, is still waited out until the lease expires.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from reverie.cli.ops import parse_every
from reverie.dream.lease import ScopeLease, holder_is_dead, new_owner
from reverie.http import create_app
from reverie.model.clock import to_iso
from reverie.model.validate import MAX_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS

from .input_faces import SCOPE, api_refuses, cli_refuses, run_cli

BAD_EVERY = ["inf", "99999999999999999d", "1e-9s", "0.5", "1e400", "-inf", "nan", "367d", ""]


# -- --every ----------------------------------------------------------------------------------
@pytest.mark.parametrize("every", BAD_EVERY)
def test_dream_every_refuses_an_interval_out_of_bounds_before_any_pass(db_path: Path, every: str) -> None:
    run_cli(db_path, "remember", "Alice likes tea")
    message = cli_refuses(db_path, "dream", f"--every={every}", code="invalid_input")
    assert "--every" in message
    assert run_cli(db_path, "--json", "dream", "--last").stdout.count('"at"') == 0  # no pass ran


@pytest.mark.parametrize("every", ["inf", "1e-9s"])
def test_serve_dream_every_refuses_an_interval_out_of_bounds_before_serving(db_path: Path, every: str) -> None:
    run_cli(db_path, "remember", "Alice likes tea")
    assert "--dream-every" in cli_refuses(db_path, "serve", f"--dream-every={every}", code="invalid_input")


@pytest.mark.parametrize("seconds", [float("inf"), 1e-9, 0.0, float("nan"), 10.0**30])
def test_create_app_refuses_a_dream_interval_out_of_bounds(mem: Memory, seconds: float) -> None:
    api_refuses(lambda: create_app(mem, dream_every=seconds), code="invalid_input")


def test_the_interval_bounds_themselves_are_accepted_and_documented() -> None:
    assert (MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS) == (1.0, 365 * 86400.0)
    assert parse_every("1s") == parse_every("1") == 1.0
    assert parse_every("365d") == MAX_INTERVAL_SECONDS
    assert parse_every(" 30M ") == 1800.0
    assert parse_every(None) is None
    help_text = run_cli(Path("unused.db"), "dream", "--help").stdout
    assert "1s" in help_text and "365d" in help_text


# -- the lease of a killed pass ---------------------------------------------------------------
CHILD = """
import sys, time
from reverie import ManualClock, Memory
from reverie.dream.lease import ScopeLease
from reverie.model.clock import from_iso
mem = Memory(sys.argv[1], embedder="hash", clock=ManualClock(from_iso(sys.argv[2])))
lease = ScopeLease(mem, sys.argv[3], 300)
print("held" if lease else "refused", flush=True)
time.sleep(120)
"""


def _holder(path: Path, clock: ManualClock) -> subprocess.Popen[str]:
    """A real child process that takes the scope's lease (300 s) and sleeps holding it."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), to_iso(clock.now()), SCOPE],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "held"
    return child


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()[0].decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL and /proc: Linux")
@pytest.mark.parametrize("reaped", [True, False], ids=["reaped", "zombie"])
def test_a_pass_killed_with_sigkill_loses_its_lease_to_the_next_pass_on_this_host(
    mem: Memory, db_path: Path, clock: ManualClock, reaped: bool
) -> None:
    mem.remember("Alice likes tea", scope=SCOPE)
    child = _holder(db_path, clock)
    try:
        assert mem.dream(scope=SCOPE).skipped is not None  # alive: the lease is its
        os.kill(child.pid, signal.SIGKILL)
        if reaped:
            child.wait(30)
        else:  # killed but not yet waited for by its parent: a zombie still has its pid
            deadline = time.monotonic() + 30
            while _state(child.pid) != "Z" and time.monotonic() < deadline:
                time.sleep(0.01)
            assert _state(child.pid) == "Z"
        report = mem.dream(scope=SCOPE)  # the clock has not moved: the lease has not expired
        assert report.skipped is None
        took = [n for n in report.notes if "took over" in n]
        assert len(took) == 1 and f"pid {child.pid} " in took[0] and "gone" in took[0], report.notes
        runs = mem.dream_runs(scope=SCOPE)
        assert any("took over" in n for n in runs[0]["notes"])  # also in the recorded summary
    finally:
        child.kill()
        child.wait(30)
        assert child.stdout is not None
        child.stdout.close()


def test_a_live_holder_on_this_host_is_never_taken_over(mem: Memory, clock: ManualClock) -> None:
    mine = new_owner()  # this very process: alive, with its own start time
    assert holder_is_dead(mine) is None
    mem.store.take_lease(SCOPE, mine, now=clock.now(), expires_at=clock.now() + timedelta(seconds=300))
    assert "holds the lease" in (mem.dream(scope=SCOPE).skipped or "")


def test_a_holder_whose_pid_now_belongs_to_another_process_is_dead(mem: Memory, clock: ManualClock) -> None:
    reused = f"{socket.gethostname()} pid {os.getpid()} start 1 pass 1"  # our pid, someone else's start
    assert "another process" in (holder_is_dead(reused) or "")
    mem.store.take_lease(SCOPE, reused, now=clock.now(), expires_at=clock.now() + timedelta(seconds=300))
    report = mem.dream(scope=SCOPE)
    assert report.skipped is None and any("took over" in n for n in report.notes)


@pytest.mark.parametrize(
    "owner",
    ["elsewhere.example pid 999999 start 1 pass 1", "intruder", f"{socket.gethostname()} pid 0 pass 1"],
    ids=["other-host", "unreadable", "pid-0"],
)
def test_a_holder_this_pass_cannot_judge_is_waited_out_until_expiry(
    mem: Memory, clock: ManualClock, owner: str
) -> None:
    assert holder_is_dead(owner) is None
    mem.store.take_lease(SCOPE, owner, now=clock.now(), expires_at=clock.now() + timedelta(seconds=300))
    assert mem.dream(scope=SCOPE).skipped is not None
    clock.advance(seconds=301)
    report = mem.dream(scope=SCOPE)
    assert report.skipped is None and not any("took over" in n for n in report.notes)


def test_of_two_passes_finding_the_same_dead_holder_only_the_first_takes_the_lease(
    mem: Memory, clock: ManualClock
) -> None:
    dead = f"{socket.gethostname()} pid {os.getpid()} start 1 pass 1"  # our pid, another start: dead
    mem.store.take_lease(SCOPE, dead, now=clock.now(), expires_at=clock.now() + timedelta(seconds=300))
    first, second = ScopeLease(mem, SCOPE), ScopeLease(mem, SCOPE)
    try:
        assert first.held and first.took_over is not None and dead in first.took_over
        assert not second.held and second.row.owner == first.owner  # the new holder is alive: not taken
        assert second.took_over is None and second.notes() == []
    finally:
        first.release()
