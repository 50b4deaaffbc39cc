"""Regression (outside probe #10): a path naming another application's SQLite file is refused, untouched.

Before the fix ``reverie --db app.db list`` (a read!) and ``Memory("app.db")`` wrote reverie's whole
schema — and WAL mode — into another program's database and then answered "no items". A non-empty
SQLite file without reverie's settings / schema is now refused on every entry point with
``invalid_input`` naming the path and the fix, before a byte of it changes; an empty new file or a
zero-byte file still becomes a new store.
"""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import InvalidInputError, Memory, ReverieError

from .input_faces import run_cli
from .test_faces_servers import ENV, REVERIE, error_line, free_port

SCOPE = "s"


def _foreign(path: Path, tables: tuple[str, ...] = ("accounts",)) -> Path:
    """Another application's database: its own tables and one row each."""
    conn = sqlite3.connect(path)
    for name in tables:
        conn.execute(f"CREATE TABLE {name} (id INTEGER, name TEXT)")
        conn.execute(f"INSERT INTO {name} VALUES (1, 'x')")
    conn.commit()
    conn.close()
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _untouched(path: Path, digest: str) -> None:
    assert _digest(path) == digest
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "settings" not in names and "items" not in names
    finally:
        conn.close()


def _says_foreign(message: str, path: Path) -> None:
    assert str(path) in message and "not a reverie store" in message and "accounts" in message, message


@pytest.mark.parametrize("read_only", [False, True])
def test_memory_refuses_another_applications_sqlite_file(tmp_path: Path, read_only: bool) -> None:
    app = _foreign(tmp_path / "app.db")
    before = _digest(app)
    with pytest.raises(InvalidInputError) as info:
        Memory(app, embedder="hash", read_only=read_only)
    _says_foreign(info.value.message, app)
    _untouched(app, before)


def test_tables_named_like_reverie_s_do_not_make_a_store(tmp_path: Path) -> None:
    """An app with its own ``settings`` and ``events`` tables is foreign too, not a "corrupt" store."""
    app = _foreign(tmp_path / "app.db", ("accounts", "settings", "events"))
    before = _digest(app)
    with pytest.raises(InvalidInputError) as info:
        Memory(app, embedder="hash")
    _says_foreign(info.value.message, app)
    assert _digest(app) == before


@pytest.mark.parametrize(
    "command",
    [["list"], ["summary"], ["remember", "Alice likes tea"], ["--read-only", "list"], ["doctor"]],
    ids=lambda c: "-".join(c),
)
def test_cli_refuses_another_applications_sqlite_file(tmp_path: Path, command: list[str]) -> None:
    app = _foreign(tmp_path / "app.db")
    before = _digest(app)
    result = run_cli(app, *command)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error[invalid_input]: ") and "Traceback" not in result.output
    _says_foreign(result.stderr, app)
    _untouched(app, before)


@pytest.mark.parametrize("command", [["serve", "--create", "--port", "0"], ["mcp", "--create"]], ids=["serve", "mcp"])
def test_servers_with_create_refuse_another_applications_sqlite_file(tmp_path: Path, command: list[str]) -> None:
    app = _foreign(tmp_path / "app.db")
    before = _digest(app)
    if command[0] == "serve":
        command[-1] = str(free_port())
    args = [REVERIE, "--db", str(app), "--embedder", "hash", *command]
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=60, env=ENV, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} kept running (it served another application's file)")
    assert result.returncode == 2, result.stderr
    line = error_line(result.stderr)
    assert line.startswith("error[invalid_input]: "), result.stderr
    _says_foreign(line, app)
    _untouched(app, before)
    module = subprocess.run(
        [sys.executable, "-m", "reverie.mcp", "--db", str(app), "--embedder", "hash"],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
        stdin=subprocess.DEVNULL,
    )
    assert module.returncode == 2 and '"invalid_input"' in module.stderr, module.stderr
    _untouched(app, before)


@pytest.mark.parametrize("kind", ["zero-byte", "empty-sqlite"])
def test_an_empty_file_is_still_a_fine_new_store(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "new.db"
    if kind == "zero-byte":
        path.write_bytes(b"")
    else:
        sqlite3.connect(path).close()
    with Memory(path, embedder="hash") as mem:
        mem.remember("Alice likes tea", scope=SCOPE)
    assert run_cli(path, "--json", "list", scope=SCOPE).exit_code == 0


def test_a_reverie_store_still_opens_for_reads_and_writes(tmp_path: Path) -> None:
    path = tmp_path / "mine.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("Alice likes tea", scope=SCOPE)
    with Memory(path, embedder="hash", read_only=True) as ro:
        assert [i.text for i in ro.list(scope=SCOPE).items] == ["Alice likes tea"]
    result = run_cli(path, "list", scope=SCOPE)
    assert result.exit_code == 0 and "Alice likes tea" in result.stdout


def test_a_text_file_is_refused_naming_its_path(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("my shopping list\n" * 20, encoding="utf-8")
    before = _digest(notes)
    with pytest.raises(ReverieError) as info:
        Memory(notes, embedder="hash")
    assert str(notes) in info.value.message and "not a SQLite database" in info.value.message
    assert _digest(notes) == before
