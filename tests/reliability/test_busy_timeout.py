"""How long a write waits for another process's write lock: ``Memory(busy_timeout_ms=…)`` and the
CLI's ``--busy-timeout`` (default 30 s, SQLite's busy timeout / PostgreSQL's ``lock_timeout``).

A script beside a long ``reverie import`` may rather fail at once than wait 30 s. No timed
assertions: 0 fails at once, so the refusal comes while the holder still holds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from atomic_holder import HANG_GUARD, AtomicHolder
from reverie import Memory
from reverie.errors import InvalidInputError, StorageError
from reverie.store.reference import ReferenceStore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "agent.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("Alice likes hiking", scope="s")
    return path


def test_a_zero_timeout_write_fails_at_once_beside_a_writer_and_writes_nothing(db: Path) -> None:
    with AtomicHolder(db) as holder:
        with Memory(db, embedder="hash", busy_timeout_ms=0) as mem:
            with pytest.raises(StorageError, match="locked by another writer"):
                mem.remember("Bob prefers tea", scope="s")
            assert holder.holding
        holder.release()
    with Memory(db, embedder="hash") as mem:
        assert sorted(i.text for i in mem.list(scope="s").items) == ["Alice likes hiking", "a write still in progress"]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_a_bad_timeout_is_refused(db: Path, bad: object) -> None:
    with pytest.raises(InvalidInputError, match="busy_timeout_ms must be a whole number"):
        Memory(db, embedder="hash", busy_timeout_ms=bad)  # type: ignore[arg-type]


def test_a_timeout_for_a_store_you_pass_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="set it on a store you pass"):
        Memory(store=ReferenceStore(), embedder="hash", busy_timeout_ms=10)


def test_the_cli_refuses_a_negative_timeout(db: Path) -> None:
    reverie = str(Path(sys.executable).with_name("reverie"))
    done = subprocess.run(
        [reverie, "--db", str(db), "--busy-timeout", "-1", "--scope", "s", "list"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert done.returncode == 2
    assert "--busy-timeout" in done.stderr


def test_a_cli_write_with_a_zero_timeout_fails_at_once_beside_a_writer(db: Path) -> None:
    reverie = str(Path(sys.executable).with_name("reverie"))
    with AtomicHolder(db) as holder:
        done = subprocess.run(
            [reverie, "--db", str(db), "--busy-timeout", "0", "--scope", "s", "remember", "Bob prefers tea"],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            check=False,
        )
        assert holder.holding
        holder.release()
    assert done.returncode != 0
    assert "error[storage]" in done.stderr and "Traceback" not in done.stderr
