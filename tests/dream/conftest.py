"""Fixtures for the dream-pass suite.

Every store is a real SQLite file with the hash embedder, seed 0 and the shared
``ManualClock`` (``tests/conftest.py`` also doctors and closes each Memory after the test).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reverie import Memory


@pytest.fixture
def open_db(open_mem: Callable[..., Memory], tmp_path: Path) -> Callable[..., Memory]:
    """``open_db("a")`` opens ``tmp_path/a.db`` (hash embedder, seed 0, the shared clock)."""

    def factory(name: str, **kwargs: object) -> Memory:
        return open_mem(tmp_path / f"{name}.db", **kwargs)

    return factory
