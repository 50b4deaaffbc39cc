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


def test_dream_text_says_how_many_items_were_spared_and_why(tmp_path: Path) -> None:
    """The seeded policy, manual fact and load-bearing parent are cold but protected: the
    human output counts them and quotes the reasons (JSON lists every one)."""
    path = _store(tmp_path)
    doc = json.loads(_run(path, "--json", "dream", "--dry-run")[0])
    assert len(doc["spared"]) == 3
    out, _ = _run(path, "dream", "--dry-run")
    assert "3 items spared by a protection:" in out
    assert "load-bearing: 1 current item derives from it" in out
    assert "manual source" in out
    for entry in doc["spared"]:
        assert f"{entry['step']} " in out and f": {entry['reason']}" in out


def test_dream_text_lists_only_the_first_spared_items() -> None:
    from reverie.cli.ops import SPARED_SHOWN, _dream_text

    spared = [{"step": "tier", "id": f"{i:08d}-rest", "reason": f"reason {i}"} for i in range(SPARED_SHOWN + 4)]
    doc = {"scope": S, "at": "now", "dry_run": True, "actions": [], "spared": spared}
    out = _dream_text(doc)
    assert f"{SPARED_SHOWN + 4} items spared by a protection:" in out
    assert f"reason {SPARED_SHOWN - 1}" in out and f"reason {SPARED_SHOWN}" not in out
    assert "… and 4 more" in out
    assert "spared" not in _dream_text({**doc, "spared": []})
