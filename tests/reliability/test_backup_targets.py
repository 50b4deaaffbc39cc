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


def test_backup_refuses_another_reverie_store_that_holds_data(mem: Memory, tmp_path: Path) -> None:
    """Regression (outside probe 5 #2): ``backup("team.db")`` replaced a sibling store's claims with ours."""
    team = tmp_path / "team.db"
    with Memory(team, embedder="hash") as other:
        other.remember("Team ships on Fridays", scope="team")
    before = team.read_bytes()
    with pytest.raises(InvalidInputError) as info:
        mem.backup(team)
    message = info.value.message
    assert str(team) in message and "another reverie store" in message and "overwrite=True" in message
    assert team.read_bytes() == before
    with Memory(team, embedder="hash") as other:
        assert [i.text for i in other.list(scope="team").items] == ["Team ships on Fridays"]


def test_backup_over_another_store_with_overwrite_replaces_it(mem: Memory, tmp_path: Path) -> None:
    team = tmp_path / "team.db"
    with Memory(team, embedder="hash") as other:
        other.remember("Team ships on Fridays", scope="team")
    mem.backup(team, overwrite=True)
    with Memory(team, embedder="hash") as copy:
        assert [i.text for i in copy.list(scope=SCOPE).items] == ["Alice likes tea"]
        assert copy.list(scope="team").items == []


def test_backup_replaces_an_earlier_backup_of_this_store_after_more_writes(mem: Memory, tmp_path: Path) -> None:
    """Rotating backups into one file stays the ordinary case: the old copy's log is a prefix of ours."""
    target = tmp_path / "nightly.db"
    mem.backup(target)
    mem.remember("Alice moved to Lyon", scope=SCOPE)
    mem.backup(target)
    with Memory(target, embedder="hash") as copy:
        assert sorted(i.text for i in copy.list(scope=SCOPE).items) == ["Alice likes tea", "Alice moved to Lyon"]


def test_backup_into_an_empty_reverie_store_is_allowed(mem: Memory, tmp_path: Path) -> None:
    target = tmp_path / "empty.db"
    Memory(target, embedder="hash").close()
    mem.backup(target)
    with Memory(target, embedder="hash") as copy:
        assert [i.text for i in copy.list(scope=SCOPE).items] == ["Alice likes tea"]


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_backup_refuses_a_companion_of_another_database(mem: Memory, tmp_path: Path, suffix: str) -> None:
    team = tmp_path / "team.db"
    with Memory(team, embedder="hash") as other:
        other.remember("Team ships on Fridays", scope="team")
    target = tmp_path / f"team.db{suffix}"
    target.write_bytes(b"companion bytes")
    with pytest.raises(InvalidInputError) as info:
        mem.backup(target)
    assert str(target) in info.value.message
    assert target.read_bytes() == b"companion bytes"
