"""Regression (outside probe 5 #5): which CLI commands may create a missing store file.

``reverie --db mistyped.db conversation add c1 hello`` (and ``intent create``, ``task create``)
exited 0 and wrote the message into a new ``mistyped.db``: the agent's conversation went to a
stray file and was missing from the real store. One rule decides now (``creates_store`` in
``cli/state.py``): only the commands README names create the file; every other command, write or
read, says ``error[not_found]`` (exit 1) naming the path and the commands that create one, and
leaves no file behind.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from cli_support import CLEAN_ENV, Cli
from click.testing import CliRunner

from reverie.cli import cli
from reverie.cli.state import CREATES_STORE

MISSING = "01a22b09-0000-7000-8000-000000000000"

#: Every write command that is not a creator (reads are covered by ``test_reads_never_create_a_store``).
REFUSED = [
    ["conversation", "add", "c1", "hello", "--speaker", "Alice"],
    ["intent", "create", "Service the boiler"],
    ["intent", "suggest", "--accept"],
    ["task", "create", "Call the plumber"],
    ["forget", MISSING],
    ["dismiss", MISSING],
    ["undismiss", "Alice likes tea"],
    ["revise", MISSING, "new text"],
    ["link", MISSING, MISSING.replace("0000", "1111"), "supports"],
    ["dream"],
    ["reindex"],
]

#: The creators README names, each given what it needs on a missing file.
CREATORS = [["remember", "Alice likes tea"], ["pause"], ["resume"]]


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: "-".join(a[:2]))
def test_a_write_command_does_not_create_a_missing_store(run: Cli, tmp_path: Path, args: list[str]) -> None:
    result = run.fails(1, "not_found", *args)
    assert f"no store at {run.db}" in result.stderr and "remember" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", CREATORS, ids=lambda a: a[0])
def test_the_documented_creators_make_the_store(run: Cli, args: list[str]) -> None:
    run.ok(*args)
    assert Path(run.db).exists()


def test_import_creates_the_store(run: Cli, tmp_path: Path) -> None:
    run.remember("Alice likes tea")
    out = tmp_path / "out.jsonl"
    run.ok("export", "--out", str(out))
    fresh = Cli(tmp_path / "fresh.db")
    fresh.ok("import", str(out))
    assert "Alice likes tea" in fresh.ok("list").stdout


def test_slice_import_creates_the_store(run: Cli, tmp_path: Path) -> None:
    run.remember("Alice likes tea")
    out = tmp_path / "slice.json"
    run.ok("slice", "export", "--out", str(out))
    fresh = Cli(tmp_path / "fresh.db")
    fresh.ok("slice", "import", str(out))
    assert "Alice likes tea" in fresh.ok("list").stdout


def test_the_refused_commands_work_once_the_store_exists(run: Cli) -> None:
    run.ok("pause")
    run.ok("resume")
    run.ok("conversation", "add", "c1", "hello", "--speaker", "Alice")
    run.ok("intent", "create", "Service the boiler")
    run.ok("task", "create", "Call the plumber")


def _creators() -> set[str]:
    """Every command path carrying ``@creates_store``, walked from the real entry point's group."""
    found: set[str] = set()

    def walk(command: click.Command, path: str) -> None:
        if getattr(command.callback, CREATES_STORE, None) is not None:
            found.add(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(cli, "")
    return found


def test_the_creators_are_the_ones_readme_names() -> None:
    """One list: the marked commands, and README's sentence about them, agree."""
    assert _creators() == {"remember", "import", "pause", "resume", "slice import", "vault index", "vault claims"}
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert (
        "Only `remember`, `import`, `slice import`, `vault index`, `vault claims --remember`, `pause` and `resume` "
        "(and `serve` / `mcp` with `--create`) create a missing store file" in readme
    )


def test_vault_claims_creates_only_when_it_remembers(tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "note.md").write_text("# Note\n\nAlice likes tea.\n")
    db = tmp_path / "m.db"
    head = ["--db", str(db), "--embedder", "hash", "--scope", "team:x", "vault", "--vault", str(tmp_path / "v")]
    result = CliRunner().invoke(cli, [*head, "claims", "note.md"], env=CLEAN_ENV)
    assert result.exit_code == 1 and "error[not_found]" in result.stderr and not db.exists()


def test_create_lets_any_write_command_make_the_store(run: Cli) -> None:
    """The demanding user's way: ``--create`` says the new file is meant."""
    result = run.fails(1, "not_found", "intent", "create", "Service the boiler")
    assert "--create" in result.stderr
    run.ok("--create", "conversation", "add", "c1", "hello", "--speaker", "Alice")
    assert Path(run.db).exists()
    assert "hello" in run.ok("conversation", "history", "c1").stdout


def test_create_never_overrides_read_only(run: Cli, tmp_path: Path) -> None:
    run.fails(1, "not_found", "--create", "--read-only", "list")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
