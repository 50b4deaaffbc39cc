"""The README's main job: the tour runs on a real file and ``--if-empty`` keeps an existing store."""

from __future__ import annotations

import os
import socket
import sqlite3
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


def _plans_only(db: Path) -> list[object]:
    """A store holding an intent and an opened conversation, and no item; returns its log."""
    with Memory(db, embedder="hash") as mem:
        mem.intents.create("Ship the billing report", scope="team/plans")
        mem.conversation("support-42", scope="team/plans")
        return [e.id for e in mem.events(scope="team/plans")]


def _log(db: Path) -> list[object]:
    with Memory(db, embedder="hash") as mem:
        return [e.id for e in mem.events(scope="team/plans")]


def test_if_empty_keeps_a_store_holding_intents_and_a_conversation_but_no_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (outside probe): emptiness was "no scope holds items", so this store was deleted."""
    db = tmp_path / "demo.db"
    log = _plans_only(db)
    assert main(["--db", str(db), "--embedder", "hash", "--if-empty"]) == 0
    assert "already holds scope team/plans: keeping it" in capsys.readouterr().out
    assert _log(db) == log


def test_the_tour_never_recreates_a_store_that_holds_anything_without_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without ``--if-empty`` the tour used to delete whatever the path held; now only ``--fresh`` does."""
    db = tmp_path / "demo.db"
    log = _plans_only(db)
    assert main(["--db", str(db), "--embedder", "hash"]) == 2
    err = capsys.readouterr().err
    assert f"{db} already holds scope team/plans" in err and "--fresh" in err and "--if-empty" in err
    assert _log(db) == log
    assert main(["--db", str(db), "--embedder", "hash", "--fresh"]) == 0
    with Memory(db, embedder="hash") as mem:
        assert mem.scopes() == ["user:alice"]


def test_the_tour_refuses_a_file_that_is_no_reverie_store_even_with_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--fresh`` recreates the demo store; it never deletes another application's database."""
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE invoices (n INTEGER)")
    conn.close()
    before = db.read_bytes()
    for flags in ([], ["--if-empty"], ["--fresh"]):
        assert main(["--db", str(db), "--embedder", "hash", *flags]) == 2
        assert "not a reverie store" in capsys.readouterr().err
        assert db.read_bytes() == before


def test_the_tour_seeds_a_store_file_with_no_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "demo.db"
    with Memory(db, embedder="hash"):
        pass  # the schema, no event
    assert main(["--db", str(db), "--embedder", "hash", "--if-empty"]) == 0
    assert "== recall: what is Alice allergic to?" in capsys.readouterr().out


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
