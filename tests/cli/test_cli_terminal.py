"""The CLI as a person meets it in a terminal: progress bars on stderr, and the server commands'
``--db`` after the command name (the spelling an MCP client configuration uses).

The progress tests run the installed ``reverie`` script as a real process whose stderr is a
pseudo-terminal (``os.openpty``), because the bar deliberately stays silent when stderr is not a
terminal — under ``CliRunner`` it could never show. stdout stays a pipe: the data output must
carry no bar characters even while the bar draws.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import SCOPE, Cli

SCRIPT = Path(sys.executable).with_name("reverie")
pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")


def in_terminal(*args: str) -> tuple[int, str, str]:
    """Run ``reverie ARGS`` with stderr on a pty; returns (exit code, stdout, what the terminal showed)."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env["COLUMNS"] = "100"
    try:
        proc = subprocess.Popen(
            [str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=env
        )
    finally:
        os.close(slave)
    shown = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the process closed its end of the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    stdout, _ = proc.communicate(timeout=120)
    return proc.returncode, stdout.decode(), shown.decode(errors="replace")


def test_reindex_draws_a_progress_bar_on_a_terminal(run: Cli) -> None:
    for i in range(30):
        run.remember(f"fact number {i} about the deploy pipeline")
    code, stdout, shown = in_terminal("--db", str(run.db), "--embedder", "hash", "reindex")
    assert code == 0, shown
    assert stdout == "reindexed 30 items with hash-384/1\n"
    assert "reindexing" in shown and "100%" in shown, shown
    assert "reindexing" not in stdout and "%" not in stdout


def test_import_draws_a_progress_bar_on_a_terminal(run: Cli, tmp_path: Path) -> None:
    for i in range(20):
        run.remember(f"fact number {i} about the deploy pipeline")
    export = tmp_path / "export.jsonl"
    run.ok("export", "--out", str(export))
    target = tmp_path / "copy.db"
    code, stdout, shown = in_terminal(
        "--db", str(target), "--embedder", "hash", "--scope", "team/alpha", "import", str(export)
    )
    assert code == 0, shown
    assert stdout.startswith("imported 20 events into scope team/alpha: 20 applied")
    assert "importing" in shown and "100%" in shown, shown
    listed = json.loads(
        subprocess.run(
            [str(SCRIPT), "--db", str(target), "--embedder", "hash", "--json", "list", "--scope", "team/alpha"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
    )
    assert len(listed["items"]) == 20


def test_json_output_draws_no_bar_even_on_a_terminal(run: Cli) -> None:
    run.remember("one fact")
    code, stdout, shown = in_terminal("--db", str(run.db), "--embedder", "hash", "--json", "reindex")
    assert code == 0
    assert json.loads(stdout) == {"reindexed": 1, "embedder": "hash-384/1"}
    assert "reindexing" not in shown


def test_server_commands_take_db_and_embedder_after_the_command(run: Cli, tmp_path: Path) -> None:
    """``reverie mcp --db PATH`` (the README's client configuration) parses; a bad value is usage (2)."""
    for command in ("mcp", "serve"):
        shown = run.raw(command, "--help").stdout
        assert "--db PATH" in shown and "--embedder" in shown
        bad = run.raw(command, "--db", str(tmp_path / "x.db"), "--embedder", "word2vec")
        assert bad.exit_code == 2 and "error[usage]: " in bad.stderr
    assert SCOPE  # the MCP round trip over `reverie mcp --db` is in tests/mcp/test_mcp_stdio.py
