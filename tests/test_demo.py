"""The README's main job: the tour runs on a real file and ``--if-empty`` keeps an existing store."""

from __future__ import annotations

import os
import socket
import subprocess
import time
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
    out = capsys.readouterr().out
    assert "keeping it" in out
    assert f"To see the tour again: bash scripts/demo --fresh (recreates {db})" in out  # issue #20
    with Memory(db, embedder="hash") as mem:
        assert mem.scopes() == ["user:me"]


def test_scripts_demo_fresh_replays_the_tour_over_an_existing_store(tmp_path: Path) -> None:
    """``bash scripts/demo --fresh``: what the hint above promises, through the real script and server."""
    db = tmp_path / "demo.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("Keep me", scope="user:me")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "REVERIE_DB": str(db), "OPENBLAS_NUM_THREADS": "1"}
    env.pop("REVERIE_EMBEDDER", None)  # the tour uses the default embedder, as a newcomer's does
    proc = subprocess.Popen(
        ["bash", str(root / "scripts" / "demo"), "--fresh", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    lines: list[str] = []
    assert proc.stdout is not None
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("serving "):
                break
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stdout.close()
    out = "".join(lines)
    assert "== recall: what is Alice allergic to?" in out, out
    assert f"serving {db} — open http://127.0.0.1:{port}/?scope=user:alice" in out
    with Memory(db, embedder="hash") as mem:
        assert mem.scopes() == ["user:alice"]  # recreated: the tour's store, not the old one
