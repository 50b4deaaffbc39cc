"""Fixtures for the use-signal and settling suite: a real SQLite file, the hash embedder, seed 0
and the shared ``ManualClock`` (``tests/conftest.py`` doctors and closes each Memory afterwards)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reverie import Memory


@pytest.fixture
def mem(open_mem: Callable[..., Memory], tmp_path: Path) -> Memory:
    return open_mem(tmp_path / "signals.db")
