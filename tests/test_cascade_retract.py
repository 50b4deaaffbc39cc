"""``cascade_retract`` takes back a claim and everything resting on it, in one transaction.

Regressions (issue #13, item 9): it followed ``parents`` only (a ``derived_from`` edge was
ignored), stopped at a link that was already closed (leaving live descendants behind), and ran
one transaction per forget (a failure half-way left part of the chain retracted).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from reverie import ManualClock, Memory, StorageError
from reverie.store.sqlite import SQLiteStore
from strategies import START

S = "user:alice"


def test_derived_from_edges_are_followed(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    root = mem.remember("The API base URL is api.example.com", scope=S).id
    derived = mem.remember("The staging client calls api.example.com", scope=S).id
    mem.link(derived, root, "derived_from", scope=S)
    assert mem.cascade_retract(root, scope=S, reason="the domain moved") == [root, derived]
    assert not mem.get(derived, scope=S).is_current


def test_a_closed_link_in_the_chain_is_passed_through(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    root = mem.remember("The API base URL is api.example.com", scope=S).id
    middle = mem.remember("The client config points at api.example.com", scope=S, parents=[root]).id
    leaf = mem.remember("Integration tests hit api.example.com", scope=S, parents=[middle]).id
    mem.forget(middle, scope=S, reason="the client config was rewritten")
    assert mem.cascade_retract(root, scope=S) == [root, leaf]
    assert not mem.get(leaf, scope=S).is_current


def test_the_whole_set_is_one_transaction(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "r.db", durability="fast")
    with Memory(store=store, embedder="hash", clock=ManualClock(START), seed=0) as mem:
        root = mem.remember("The API base URL is api.example.com", scope=S).id
        kids = [mem.remember(f"Service {n} calls api.example.com", scope=S, parents=[root]).id for n in range(4)]
        events = len(mem.events(scope=S))
        seen: list[str] = []

        def fail_third_forget(sql: str) -> None:  # a real SQLite error at one statement
            if sql.startswith("UPDATE items") or sql.startswith("INSERT OR REPLACE INTO items"):
                seen.append(sql)
                if len(seen) == 3:
                    raise sqlite3.OperationalError("disk I/O error")

        store._crash_hook = fail_third_forget  # type: ignore[attr-defined]
        with pytest.raises(StorageError):
            mem.cascade_retract(root, scope=S)
        store._crash_hook = None  # type: ignore[attr-defined]
        assert len(seen) >= 3, "the hook never reached the third write: the test proves nothing"
        assert all(mem.get(i, scope=S).is_current for i in [root, *kids])  # all or nothing
        assert len(mem.events(scope=S)) == events
        assert mem.doctor().ok
