"""Issue #14.14: a read-only mode that opens a store for inspection without write access.

``Memory(path, read_only=True)`` opens the SQLite file with ``mode=ro``: every read works,
every write raises ``ReadOnlyError`` (code ``read_only``) and changes nothing, and a read
never writes (recall records no use, no embedder is recorded). The faces' flags
(``reverie --read-only``, ``serve --read-only``, ``mcp --read-only``) are in
``test_faces_read_only_cli.py``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, ManualClock, Memory, NotFoundError, ReadOnlyError, ReverieError, StorageError

SCOPE = "user:alice"


def fingerprint(db: Path) -> dict[str, str]:
    """The bytes of the store and its WAL: what "changes nothing" means on disk.

    An empty ``-wal`` holds nothing (a WAL reader creates it, and the ``-shm`` index, on open).
    """
    out = {}
    for suffix in ("", "-wal"):
        f = Path(str(db) + suffix)
        if f.exists() and f.stat().st_size:
            out[suffix or "db"] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def seed(db: Path) -> dict[str, str]:
    """A store with a contradiction, a link, a dismissal and a paused-then-resumed scope."""
    clock = ManualClock()
    with Memory(db, embedder="hash", clock=clock, seed=1) as mem:
        paris = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
        clock.advance(timedelta(minutes=1))
        lyon = mem.remember("Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
        tea = mem.remember("Alice likes green tea", scope=SCOPE)
        jazz = mem.remember("Alice likes jazz", scope=SCOPE)
        mem.dismiss(jazz.id, scope=SCOPE)
        mem.link(tea.id, paris.id, "about", scope=SCOPE)
        conflict = mem.contradictions(scope=SCOPE)[0].edge_id
    return {"paris": paris.id, "lyon": lyon.id, "tea": tea.id, "jazz": jazz.id, "conflict": conflict}


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    db = tmp_path / "inspect.db"
    return db, seed(db)


@pytest.fixture
def ro(store: tuple[Path, dict[str, str]]) -> Iterator[Memory]:
    with Memory(store[0], embedder="hash", read_only=True) as mem:
        yield mem


def test_read_only_memory_reads_everything_and_changes_no_byte(store: tuple[Path, dict[str, str]]) -> None:
    db, ids = store
    before = fingerprint(db)
    with Memory(db, embedder="hash", read_only=True) as mem:
        assert mem.get(ids["tea"], scope=SCOPE).text == "Alice likes green tea"
        assert {i.id for i in mem.list(scope=SCOPE).items} == {ids["paris"], ids["lyon"], ids["tea"]}
        assert [h.item.id for h in mem.recall("green tea", scope=SCOPE, k=1)] == [ids["tea"]]
        assert "green tea" in mem.context("what does alice drink", scope=SCOPE)
        assert [a.edge_id for a in mem.contradictions(scope=SCOPE)] == [ids["conflict"]]
        assert len(mem.history(ids["jazz"], scope=SCOPE).versions) == 1
        assert mem.summary(scope=SCOPE)["dismissed"] == 1
        assert mem.scopes() == [SCOPE]
        assert mem.doctor().ok
        assert mem.dream(scope=SCOPE, dry_run=True).dry_run  # a plan is a read
        assert mem.archive_search("tea", scope=SCOPE) == []
    assert fingerprint(db) == before
    with Memory(db, embedder="hash") as mem:  # recall recorded no use
        tea = mem.get(ids["tea"], scope=SCOPE)
        assert (tea.use_count, tea.last_used_query) == (0, None)


WRITES: dict[str, Callable[[Memory, dict[str, str]], Any]] = {
    "remember": lambda m, i: m.remember("Alice likes coffee", scope=SCOPE),
    "remember_checked": lambda m, i: m.remember_checked("Alice lives in Rome", scope=SCOPE),
    "remember_manual": lambda m, i: m.remember_manual("Alice is 30", scope=SCOPE),
    "remember_many": lambda m, i: m.remember_many([{"text": "a"}, {"text": "b"}], scope=SCOPE),
    "remember_many_checked": lambda m, i: m.remember_many_checked([{"text": "c"}], scope=SCOPE),
    "corroborate": lambda m, i: m.remember("Alice likes green tea", scope=SCOPE),
    "revise": lambda m, i: m.revise(i["tea"], "Alice likes black tea", scope=SCOPE),
    "forget": lambda m, i: m.forget(i["tea"], scope=SCOPE),
    "purge": lambda m, i: m.forget(i["tea"], scope=SCOPE, purge=True),
    "dismiss": lambda m, i: m.dismiss(i["tea"], scope=SCOPE),
    "undismiss": lambda m, i: m.undismiss("Alice likes jazz", scope=SCOPE),
    "link": lambda m, i: m.link(i["tea"], i["lyon"], "supports", scope=SCOPE),
    "set_scores": lambda m, i: m.set_scores(i["tea"], scope=SCOPE, importance=0.9),
    "set_tier": lambda m, i: m.set_tier(i["tea"], "durable", scope=SCOPE),
    "promote": lambda m, i: m.promote(i["tea"], scope=SCOPE),
    "flag": lambda m, i: m.flag(i["tea"], scope=SCOPE, add=["hub"]),
    "pause_learning": lambda m, i: m.pause_learning(SCOPE),
    "resume_learning": lambda m, i: m.resume_learning(SCOPE),
    "record_use": lambda m, i: m.record_use(SCOPE, [(i["tea"], 1.0)], "tea"),
    "resolve": lambda m, i: m.resolve(i["conflict"], keep=i["lyon"], scope=SCOPE),
    "detect_conflicts": lambda m, i: m.detect_conflicts(i["tea"], scope=SCOPE),
    "dream": lambda m, i: m.dream(scope=SCOPE),
    "reindex": lambda m, i: m.reindex(),
    "rebuild": lambda m, i: m.rebuild(),
    "conversation": lambda m, i: m.conversation("chat-1", scope=SCOPE).add("Alice: hello", speaker="Alice"),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_every_write_on_a_read_only_store_raises_read_only_error(
    name: str, store: tuple[Path, dict[str, str]], ro: Memory
) -> None:
    db, ids = store
    before = fingerprint(db)
    try:
        WRITES[name](ro, ids)
    except ReadOnlyError as exc:
        assert exc.code == "read_only" and "read-only" in exc.message
    else:
        # detect_conflicts on an item whose conflicts are all linked already has nothing to write
        assert name == "detect_conflicts", f"{name} wrote to a read-only store"
    assert fingerprint(db) == before
    assert ro.doctor().ok


def test_detect_conflicts_that_would_link_is_refused_read_only(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    with Memory(db, embedder="hash", detect_conflicts=False) as mem:
        a = mem.remember("Bob lives in Oslo", scope=SCOPE, key="bob.city", value="Oslo")
        mem.remember("Bob lives in Bergen", scope=SCOPE, key="bob.city", value="Bergen")
    with Memory(db, embedder="hash", read_only=True) as mem, pytest.raises(ReadOnlyError):
        mem.detect_conflicts(a.id, scope=SCOPE)


def test_recall_on_a_store_that_never_recorded_an_embedder_works_read_only(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    Memory(db, embedder="hash").close()  # schema only: no vectors, no embedder recorded yet
    with Memory(db, embedder="hash", read_only=True) as mem:
        assert mem.recall("anything", scope=SCOPE) == []
    with Memory(db, embedder="hash") as mem:
        assert mem.store.embedder() is None  # the read recorded nothing


def test_read_only_refuses_a_missing_file_and_creates_none(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    with pytest.raises(NotFoundError, match="no such file"):
        Memory(typo, embedder="hash", read_only=True)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(NotFoundError, match="in-memory"):
        Memory(":memory:", embedder="hash", read_only=True)


def test_read_only_refuses_a_store_backend_it_cannot_open(tmp_path: Path) -> None:
    from reverie.store.reference import ReferenceStore

    with pytest.raises(ReverieError, match="read_only"):
        Memory(store=ReferenceStore(), read_only=True)


_PROBE = """
import sys
from reverie import Memory, ReverieError
path = sys.argv[1]
try:
    Memory(path, embedder="hash").close()
    print("writable")
except ReverieError as exc:
    print("refused", exc.code)
with Memory(path, embedder="hash", read_only=True) as mem:
    print(mem.list(scope="user:alice").items[0].text)
    try:
        mem.remember("x", scope="user:alice")
    except ReverieError as exc:
        print("write", exc.code)
"""


def _as_unprivileged(args: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``args`` as ``nobody`` when we are root (root writes a 0444 file regardless of its mode).

    Through ``setpriv`` rather than ``subprocess``'s ``user=``: here the interpreter lives under
    /root, which ``user=`` could not exec from, and ``setpriv`` could.
    """
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot drop the privilege that ignores file modes")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    return subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120, env=env)


def test_a_file_the_user_cannot_write_opens_read_only(tmp_path: Path) -> None:
    """chmod 0444: a normal open is refused (the permission is real), a read-only open reads it."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-ro-"))  # tmp_path is 0700: nobody could not enter it
    try:
        folder.chmod(0o777)  # WAL readers create the -shm index beside the file
        db = folder / "locked.db"
        with Memory(db, embedder="hash") as mem:
            mem.remember("Alice likes green tea", scope=SCOPE)
        db.chmod(0o444)
        result = _as_unprivileged([sys.executable, "-c", _PROBE, str(db)])
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == ["refused storage", "Alice likes green tea", "write read_only"]
    finally:
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()


def test_a_store_in_a_folder_the_user_cannot_write_is_refused_with_the_fix(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="reverie-ro-"))
    try:
        db = folder / "locked.db"
        with Memory(db, embedder="hash") as mem:
            mem.remember("Alice likes green tea", scope=SCOPE)
        db.chmod(0o444)
        folder.chmod(0o555)
        probe = "import sys\nfrom reverie import Memory, ReverieError\ntry:\n    Memory(sys.argv[1], read_only=True)\n"
        probe += "except ReverieError as exc:\n    print(exc.code, exc.message)\n"
        result = _as_unprivileged([sys.executable, "-c", probe, str(db)])
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("storage cannot open")
        assert "copy the file into a writable folder" in result.stdout
    finally:
        folder.chmod(0o755)
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()


def test_storage_error_is_not_the_read_only_branch() -> None:
    """A refused write on a read-only store is not a storage failure: nothing failed."""
    assert not issubclass(ReadOnlyError, StorageError)
    assert ReadOnlyError("x").to_dict() == {"code": "read_only", "error": "x"}


def test_a_damaged_schema_version_is_refused_read_only_as_on_a_writable_open(tmp_path: Path) -> None:
    import sqlite3

    from reverie import CorruptStoreError

    db = tmp_path / "damaged.db"
    Memory(db, embedder="hash").close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE settings SET v = 'abc' WHERE k = 'schema_version'")
    conn.close()
    with pytest.raises(CorruptStoreError, match="no positive integer"):
        Memory(db, embedder="hash", read_only=True)


def test_a_file_that_is_not_a_reverie_store_is_refused_read_only(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
    conn.close()
    before = other.read_bytes()
    # Another application's database: refused as by a read-write open (outside probe #10), never with
    # "open it once for writing", which would write reverie's tables into it.
    with pytest.raises(InvalidInputError, match="not a reverie store") as info:
        Memory(other, embedder="hash", read_only=True)
    assert "open it once for writing" not in info.value.message
    assert other.read_bytes() == before
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    with pytest.raises(StorageError, match="not a current reverie store"):
        Memory(empty, embedder="hash", read_only=True)
