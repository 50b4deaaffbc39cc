"""Regression (outside probe 5 #1): ``export --out`` / ``slice export --out`` never overwrite a store.

``reverie --db agent.db export --out agent.db`` replaced the SQLite store with one scope's JSON
lines (every other scope gone, the next command ``not a SQLite database``), and ``--out
agent.db-wal`` overwrote the live WAL. The rule is the one ``Memory.backup`` and ``migrate``
follow: a file a command writes is never the store (any spelling), one of its ``-wal`` /
``-shm`` / ``-journal`` companions, nor any other SQLite database or its companions. Each is
``invalid_input`` (exit 2) naming the path and the fix; nothing is written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import SCOPE, Cli

EXPORTS = [["export"], ["slice", "export"]]


def _seed(run: Cli) -> None:
    run.remember("Alice likes tea")
    run.remember("Bob likes coffee", scope="user:bob")


def _intact(run: Cli) -> None:
    assert "Alice likes tea" in run.ok("list").stdout
    assert "Bob likes coffee" in run.ok("list", scope="user:bob").stdout
    run.ok("doctor", scope=None)


@pytest.mark.parametrize("command", EXPORTS, ids=["export", "slice-export"])
@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink", "wal", "shm", "journal"])
def test_out_refuses_the_store_itself(run: Cli, tmp_path: Path, command: list[str], how: str) -> None:
    _seed(run)
    store = Path(run.db)
    if how == "symlink":
        (tmp_path / "link.db").symlink_to(store)
    if how == "hardlink":
        os.link(store, tmp_path / "hard.db")
    target = {
        "same": str(store),
        "relative": os.path.relpath(store),
        "symlink": str(tmp_path / "link.db"),
        "hardlink": str(tmp_path / "hard.db"),
        "wal": f"{store}-wal",
        "shm": f"{store}-shm",
        "journal": f"{store}-journal",
    }[how]
    companions = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    result = run.fails(2, "invalid_input", *command, "--out", target)
    assert target in result.stderr and "store" in result.stderr and "another file" in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == companions
    _intact(run)


@pytest.mark.parametrize("command", EXPORTS, ids=["export", "slice-export"])
@pytest.mark.parametrize("suffix", ["", "-wal", "-journal"])
def test_out_refuses_another_sqlite_database_and_its_companions(
    run: Cli, tmp_path: Path, command: list[str], suffix: str
) -> None:
    """A sibling store (tab completion picks team.db) is as much a store as the open one."""
    _seed(run)
    team = Cli(tmp_path / "team.db")
    team.remember("Team ships on Fridays")
    target = tmp_path / f"team.db{suffix}"
    if suffix:
        target.write_bytes(b"companion bytes")
    before = target.read_bytes()
    result = run.fails(2, "invalid_input", *command, "--out", str(target))
    assert str(target) in result.stderr and "SQLite" in result.stderr
    assert target.read_bytes() == before
    assert "Team ships on Fridays" in team.ok("list").stdout
    _intact(run)


@pytest.mark.parametrize("command", EXPORTS, ids=["export", "slice-export"])
def test_out_still_replaces_an_earlier_export(run: Cli, tmp_path: Path, command: list[str]) -> None:
    _seed(run)
    out = tmp_path / "out.json"
    out.write_text("an earlier export\n")
    run.ok(*command, "--out", str(out))
    assert "Alice likes tea" in out.read_text()
    assert SCOPE in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if ".partial" in p.name or p.name.startswith(".")) == []
