"""Promise: a ``Memory`` gives back everything it took when closed.

50 cycles of open / write / recall / close grow the process's open file descriptors by at most
2 and its threads by at most 1 (counted by the kernel, ``/proc/self``, so native threads count
too), and emit no ``ResourceWarning``. After ``close`` no connection is left on the file (SQLite
removes the ``-wal`` / ``-shm`` files only when the last one closes), ``close`` is idempotent,
and every public method raises ``ClosedError``.
"""

from __future__ import annotations

import gc
import inspect
import os
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reverie import ClosedError, Memory


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def cycle(db: Path, i: int) -> None:
    mem = Memory(db, embedder="hash")
    item = mem.remember(f"cycle {i}: the kettle is in the second cupboard", scope="res", tags=["kitchen"])
    hits = mem.recall("where is the kettle", scope="res", k=60)  # hybrid, and records the use (a write)
    assert item.id in {h.item.id for h in hits}
    assert mem.list(scope="res", limit=1000).items
    mem.close()


def test_50_open_write_recall_close_cycles_leak_no_fds_or_threads(tmp_path: Path) -> None:
    db = tmp_path / "res.db"
    cycle(db, -1)  # warm-up: imports, numpy / BLAS pools, regex caches
    gc.collect()
    fds, threads = open_fds(), os_threads()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(50):
            cycle(db, i)
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert open_fds() - fds <= 2, f"{open_fds() - fds} file descriptors leaked over 50 cycles"
    assert os_threads() - threads <= 1, f"{os_threads() - threads} threads leaked over 50 cycles"
    with Memory(db, embedder="hash") as mem:
        assert len(mem.list(scope="res", limit=1000).items) == 51
        assert mem.doctor().ok


def test_close_releases_the_file(tmp_path: Path) -> None:
    db = tmp_path / "close.db"
    mem = Memory(db, embedder="hash")
    mem.remember("written in WAL mode", scope="res")
    mem.recall("written", scope="res")
    mem.backup(tmp_path / "copy.db")
    assert Path(f"{db}-wal").exists()
    mem.close()
    # SQLite checkpoints and deletes the WAL and shared-memory files when the *last* connection
    # closes: their absence proves close() left no connection (not even a backup's) open.
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()


def test_close_is_idempotent_and_context_manager_closes(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "twice.db", embedder="hash")
    mem.close()
    mem.close()
    with Memory(tmp_path / "ctx.db", embedder="hash") as inner:
        inner.remember("inside", scope="res")
    with pytest.raises(ClosedError):
        inner.list(scope="res")


ID = str(uuid.UUID(int=1))
CALLS: dict[str, Callable[[Memory], Any]] = {
    "archive_search": lambda m: m.archive_search("q", scope="s"),
    "atomic": lambda m: m.atomic(scope="s").__enter__(),
    "as_principal": lambda m: m.as_principal("agent:a"),
    "backup": lambda m: m.backup("/tmp/never-written.db"),
    "cascade_retract": lambda m: m.cascade_retract(ID, scope="s"),
    "context": lambda m: m.context("q", scope="s"),
    "export_slice": lambda m: m.export_slice(scope="s"),
    "import_slice": lambda m: m.import_slice(
        {"format": "reverie.slice", "version": 1, "scope": "s", "exported_at": "2025-01-01T00:00:00Z"}, scope="s"
    ),
    "conversation": lambda m: m.conversation("c", scope="s"),
    "contradictions": lambda m: m.contradictions(scope="s"),
    "detect_conflicts": lambda m: m.detect_conflicts(ID, scope="s"),
    "dismiss": lambda m: m.dismiss(ID, scope="s"),
    "doctor": lambda m: m.doctor(),
    "dream": lambda m: m.dream(scope="s"),
    "dream_runs": lambda m: m.dream_runs(scope="s"),
    "edges": lambda m: m.edges(scope="s"),
    "events": lambda m: m.events(scope="s"),
    "flag": lambda m: m.flag(ID, scope="s", add=["hub"]),
    "set_visibility": lambda m: m.set_visibility(ID, scope="s", visibility=["agent:a"]),
    "forget": lambda m: m.forget(ID, scope="s"),
    "get": lambda m: m.get(ID, scope="s"),
    "history": lambda m: m.history(ID, scope="s"),
    "link": lambda m: m.link(ID, str(uuid.UUID(int=2)), "supports", scope="s"),
    "list": lambda m: m.list(scope="s"),
    "pause_learning": lambda m: m.pause_learning("s"),
    "people": lambda m: m.people(scope="s"),
    "person": lambda m: m.person("Dana", scope="s"),
    "promote": lambda m: m.promote(ID, scope="s"),
    "rebuild": lambda m: m.rebuild(),
    "recap": lambda m: m.recap(scope="s"),
    "recall": lambda m: m.recall("q", scope="s"),
    "record_use": lambda m: m.record_use("s", [(ID, 1.0)], "q"),
    "reindex": lambda m: m.reindex(),
    "remember": lambda m: m.remember("x", scope="s"),
    "remember_checked": lambda m: m.remember_checked("x", scope="s"),
    "remember_imported": lambda m: m.remember_imported("x", scope="s", original_source="observed"),
    "conversation_replay": lambda m: m.conversation_replay(scope="s"),
    "remember_manual": lambda m: m.remember_manual("x", scope="s"),
    "remember_many": lambda m: m.remember_many(["x"], scope="s"),
    "remember_many_checked": lambda m: m.remember_many_checked(["x"], scope="s"),
    "alerts": lambda m: m.alerts(scope="s"),
    "conversations": lambda m: m.conversations(scope="s"),
    "dismiss_alert": lambda m: m.dismiss_alert("al_0123456789abcdef", scope="s"),
    "dismiss_contradiction": lambda m: m.dismiss_contradiction(ID, scope="s"),
    "remember_system": lambda m: m.remember_system("x", scope="s"),
    "resolve": lambda m: m.resolve(ID, keep=ID, scope="s"),
    "resume_learning": lambda m: m.resume_learning("s"),
    "revise": lambda m: m.revise(ID, "y", scope="s"),
    "revise_checked": lambda m: m.revise_checked(ID, "y", scope="s"),
    "scopes": lambda m: m.scopes(),
    "set_scores": lambda m: m.set_scores(ID, scope="s", authority=1.0),
    "set_tier": lambda m: m.set_tier(ID, "durable", scope="s"),
    "set_tiers": lambda m: m.set_tiers({ID: "durable"}, scope="s"),
    "summary": lambda m: m.summary(scope="s"),
    "thinking_queue": lambda m: m.thinking_queue(scope="s"),
    "undismiss": lambda m: m.undismiss("x", scope="s"),
    "unlink": lambda m: m.unlink(ID, scope="s"),
    "value_by_cohort": lambda m: m.value_by_cohort(scope="s"),
}


def test_every_public_method_is_in_the_closed_table() -> None:
    public = {n for n, f in vars(Memory).items() if not n.startswith("_") and inspect.isfunction(f)}
    missing = public - set(CALLS) - {"close"}
    assert not missing, f"add these Memory methods to CALLS in {__file__}: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_call_after_close_raises_closed_error(tmp_path: Path, name: str) -> None:
    mem = Memory(tmp_path / "closed.db", embedder="hash")
    mem.remember("x", scope="s")
    mem.close()
    with pytest.raises(ClosedError):
        CALLS[name](mem)
    assert not Path("/tmp/never-written.db").exists()


def test_every_test_runs_under_a_timeout_and_faulthandler(pytestconfig: pytest.Config) -> None:
    """The suite's own guard against a hang: pytest-timeout is loaded with a finite per-test
    timeout, and faulthandler dumps every thread's stack shortly before that timeout fires."""
    assert pytestconfig.pluginmanager.hasplugin("timeout"), "pytest-timeout is not installed (dev extra)"
    timeout = float(pytestconfig.getini("timeout"))
    faulthandler = float(pytestconfig.getini("faulthandler_timeout"))
    assert 0 < faulthandler < timeout <= 600, (faulthandler, timeout)
    assert "error" in pytestconfig.getini("filterwarnings"), "warnings must be errors (an unclosed connection fails)"
