"""The README's main job: the tour runs on a real file and ``--if-empty`` keeps an existing store."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import Memory
from reverie.demo import main


def test_tour_runs_and_leaves_a_healthy_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "--embedder", "hash"]) == 0
    out = capsys.readouterr().out
    assert "Alice is allergic to tree nuts" in out and "history:" in out and "doctor\n  ok" in out
    with Memory(db, embedder="hash") as mem:
        assert mem.summary(scope="user:alice")["current"] == 4


def test_if_empty_keeps_an_existing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "demo.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("Keep me", scope="user:me")
    assert main(["--db", str(db), "--embedder", "hash", "--if-empty"]) == 0
    assert "keeping it" in capsys.readouterr().out
    with Memory(db, embedder="hash") as mem:
        assert mem.scopes() == ["user:me"]
