"""scripts/wait_apt_lock.py: bootstrap waits (bounded) for another apt/dpkg run instead of failing at once.

The lock is a real POSIX lock, taken by this test process on a file of its own, the way apt
takes its locks (``REVERIE_APT_LOCKS`` points the script at that file: the machine's real apt
locks are never touched).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "wait_apt_lock.py"


def _wait(lock: Path, seconds: float) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "REVERIE_APT_LOCKS": f"{lock}:{lock.parent / 'absent-lock'}"}
    env["REVERIE_APT_LOCK_WAIT"] = str(seconds)
    start = time.monotonic()
    result = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    return result, time.monotonic() - start


@pytest.fixture
def lock(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    path = tmp_path / "lock-frontend"
    path.write_bytes(b"")
    fd = os.open(path, os.O_RDWR)
    try:
        yield path, fd
    finally:
        os.close(fd)


def test_free_lock_returns_at_once_and_silently(lock: tuple[Path, int]) -> None:
    result, took = _wait(lock[0], 30)
    assert (result.returncode, result.stderr) == (0, "")
    assert took < 10


def test_held_lock_is_waited_for_until_released(lock: tuple[Path, int]) -> None:
    path, fd = lock
    fcntl.lockf(fd, fcntl.LOCK_EX)
    threading.Timer(1.5, fcntl.lockf, (fd, fcntl.LOCK_UN)).start()
    result, took = _wait(path, 30)
    assert result.returncode == 0, result.stderr
    assert took >= 1.5
    assert f"waiting for pid {os.getpid()} " in result.stderr and str(path) in result.stderr


def test_lock_still_held_after_the_bound_fails_saying_what_to_do(lock: tuple[Path, int]) -> None:
    path, fd = lock
    fcntl.lockf(fd, fcntl.LOCK_EX)
    result, took = _wait(path, 1)
    assert result.returncode == 1
    assert 1 <= took < 20
    message = result.stderr
    assert f"gave up after 1 s: {path} is still held by pid {os.getpid()}" in message
    assert "run scripts/bootstrap again" in message and "REVERIE_APT_LOCK_WAIT=" in message
