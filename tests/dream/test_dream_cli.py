"""``reverie dream`` shows progress bars on stderr (issue #6); stdout stays the report."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reverie import ManualClock, Memory
from reverie.cli import cli

from .kit import START, S, seed

ENV = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "cli.db"
    clock = ManualClock(START)
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        seed(mem, clock)
    return path


def _run(path: Path, *args: str) -> tuple[str, str]:
    result = CliRunner().invoke(cli, ["--db", str(path), "--embedder", "hash", "--scope", S, *args], env=ENV)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout, result.stderr


def test_dream_progress_bars_go_to_stderr_for_both_phases(tmp_path: Path) -> None:
    path = _store(tmp_path)
    out, err = _run(path, "dream", "--progress")
    assert "dream: planning" in err and "dream: applying" in err
    assert "dream pass over user:alice" in out and "dream:" not in out


def test_dream_json_output_stays_clean_json(tmp_path: Path) -> None:
    path = _store(tmp_path)
    out, err = _run(path, "--json", "dream", "--dry-run", "--progress")
    assert json.loads(out)["dry_run"] is True  # the bar never mixes into the document
    assert "dream: planning" in err and "dream: applying" not in err  # a dry run only plans
    out, err = _run(path, "--json", "dream")
    assert json.loads(out)["stats"]["applied"] >= 1 and err == ""  # not a terminal, --json: silent
