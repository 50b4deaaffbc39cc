"""Regression (outside probe #11): ``Memory.backup`` refuses a target that would write no backup, or the store itself.

``backup("")`` returned success and wrote nothing (SQLite reads "" as a private temporary
database), as did ``":memory:"``; ``backup(<the store's own path>)`` returned success too, and a
target naming the store's ``-wal`` file could overwrite it. Each is now ``invalid_input`` naming
the target and the fix; nothing is written and the store is unchanged.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import InvalidInputError, Memory

SCOPE = "bk"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(tmp_path / "store.db", embedder="hash")
    m.remember("Alice likes tea", scope=SCOPE)
    yield m
    m.close()


def _files(folder: Path) -> set[str]:
    return set(os.listdir(folder))


@pytest.mark.parametrize("target", ["", "   ", ":memory:"], ids=["empty", "blank", "memory"])
def test_backup_refuses_a_target_that_names_no_file(mem: Memory, tmp_path: Path, target: str) -> None:
    before = _files(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(InvalidInputError) as info:
            mem.backup(target)
    finally:
        os.chdir(cwd)
    assert repr(target) in info.value.message and "backup" in info.value.message
    assert _files(tmp_path) == before


@pytest.mark.parametrize("target", [None, 123, b"copy.db"], ids=["none", "int", "bytes"])
def test_backup_refuses_a_target_that_is_not_a_path(mem: Memory, tmp_path: Path, target: object) -> None:
    before = _files(tmp_path)
    with pytest.raises(InvalidInputError, match="file path"):
        mem.backup(target)  # type: ignore[arg-type]
    assert _files(tmp_path) == before


@pytest.mark.parametrize("how", ["same", "relative", "symlink", "wal", "shm"])
def test_backup_refuses_the_store_itself(mem: Memory, tmp_path: Path, how: str) -> None:
    store = tmp_path / "store.db"
    target: str | Path = {
        "same": store,
        "relative": os.path.relpath(store),
        "symlink": tmp_path / "link.db",
        "wal": tmp_path / "store.db-wal",
        "shm": tmp_path / "store.db-shm",
    }[how]
    if how == "symlink":
        (tmp_path / "link.db").symlink_to(store)
    with pytest.raises(InvalidInputError) as info:
        mem.backup(target)
    assert "the store itself" in info.value.message and str(target) in info.value.message
    assert [i.text for i in mem.list(scope=SCOPE).items] == ["Alice likes tea"]
    assert mem.doctor().ok


def test_backup_refuses_another_applications_sqlite_file(mem: Memory, tmp_path: Path) -> None:
    """Overwriting a reverie file is a backup's job; overwriting another program's database is not."""
    app = tmp_path / "app.db"
    conn = sqlite3.connect(app)
    conn.execute("CREATE TABLE accounts (id INTEGER)")
    conn.commit()
    conn.close()
    before = app.read_bytes()
    with pytest.raises(InvalidInputError) as info:
        mem.backup(app)
    assert str(app) in info.value.message and "not a reverie store" in info.value.message
    assert app.read_bytes() == before


def test_backup_to_a_missing_folder_names_the_target(mem: Memory, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "copy.db"
    with pytest.raises(Exception) as info:
        mem.backup(target)
    assert str(target) in str(info.value)


def test_a_good_backup_still_works(mem: Memory, tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    mem.backup(str(target))
    mem.backup(target)  # over its own earlier backup: a reverie file, replaced
    with Memory(target, embedder="hash") as copy:
        assert [i.text for i in copy.list(scope=SCOPE).items] == ["Alice likes tea"]
