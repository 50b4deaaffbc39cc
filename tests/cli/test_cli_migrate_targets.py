"""`reverie migrate` refuses a destination that is the source itself or a file SQLite keeps beside it.

Regression (outside probe 2, finding 3): ``reverie migrate src.db src.db-wal`` copied the store into
the source's write-ahead-log path and reported "doctor ok"; the next open of ``src.db`` took that
file for its WAL and deleted it — the copy was gone. ``backup`` already refused such targets.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from reverie import Memory
from reverie.cli import cli as main


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_migrate_refuses_the_source_and_its_companions(tmp_path: Path, suffix: str) -> None:
    src = tmp_path / "src.db"
    with Memory(str(src), embedder="hash") as mem:
        mem.remember("Alice is allergic to peanuts", scope="user:alice")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(main, ["migrate", str(src), str(src) + suffix])
    assert result.exit_code != 0
    assert "invalid_input" in result.output
    assert "store itself" in result.output or "same store" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    with Memory(str(src), embedder="hash") as mem:
        assert [i.text for i in mem.list(scope="user:alice").items] == ["Alice is allergic to peanuts"]


def test_migrate_refuses_another_spelling_of_the_source(tmp_path: Path) -> None:
    src = tmp_path / "src.db"
    with Memory(str(src), embedder="hash") as mem:
        mem.remember("Alice is allergic to peanuts", scope="user:alice")
    os.link(src, tmp_path / "hard.db")
    for dst in (str(tmp_path / "." / "src.db"), str(tmp_path / "hard.db")):
        result = CliRunner().invoke(main, ["migrate", str(src), dst])
        assert result.exit_code != 0 and "invalid_input" in result.output
