"""Write-time conflict detection runs after the write commits: its failure must not look like
the write's.

The storage fault is real SQLite behaviour injected at one statement: the store's statement
hook raises ``sqlite3.OperationalError`` (as a full disk or an I/O error would) on the
``contradicts`` edge insert only. The claim is committed, so ``remember`` returns it, flagged
``conflicts_unchecked``; the next dream pass runs detection and clears the flag.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reverie import ManualClock, Memory
from reverie.store.sqlite import SQLiteStore
from strategies import START

SCOPE = "team:ops"


def _fail_edge_inserts(sql: str) -> None:
    if sql.startswith("INSERT OR REPLACE INTO edges"):
        raise sqlite3.OperationalError("disk I/O error")


def test_a_failed_post_commit_detection_returns_the_write_and_leaves_it_for_the_dream_pass(tmp_path: Path) -> None:
    clock = ManualClock(START)
    store = SQLiteStore(tmp_path / "d.db", durability="fast")
    with Memory(store=store, embedder="hash", clock=clock, seed=0) as mem:
        on = mem.remember("The feature flag dark_mode is on", scope=SCOPE)
        store._crash_hook = _fail_edge_inserts
        off = mem.remember("The feature flag dark_mode is off", scope=SCOPE)  # returns: it is committed
        store._crash_hook = None
        assert mem.get(off.id, scope=SCOPE).text == "The feature flag dark_mode is off"
        assert "conflicts_unchecked" in off.flags and "conflicts_unchecked" in mem.get(off.id, scope=SCOPE).flags
        assert mem.contradictions(scope=SCOPE) == []  # detection did not get to write its edge
        report = mem.dream(scope=SCOPE)
        assert off.id in report.ids("recheck")
        pairs = [{c.a.id, c.b.id} for c in mem.contradictions(scope=SCOPE)]
        assert {on.id, off.id} in pairs
        assert "conflicts_unchecked" not in mem.get(off.id, scope=SCOPE).flags
        assert mem.doctor().ok
