"""Ingest with extraction must not read every edge of the scope per claim (it grew quadratically).

Regression for the 8x slower conversation ingest: write-time conflict detection built its alias
groups from ``store.edges(scope)`` — every edge, ``about`` and ``derived_from`` included — once
per claim, and a person ``Book`` read every edge of every name item (all the ``about`` edges) on
each new name. The stores here are the real SQLite and reference stores, subclassed only to count
the edge rows their reads return; a read that grows with unrelated edges shows as a larger count.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from counting_stores import CountingReference, CountingSQLite
from reverie import ManualClock, Memory
from reverie.conversation.people.book import Book
from reverie.conversation.people.enroll import Enroller
from reverie.store.sqlite import SQLiteStore
from strategies import START

SCOPE = "team:acme"


@pytest.fixture(params=["sqlite", "reference"])
def counted(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    store: Any = CountingSQLite(tmp_path / "r.db") if request.param == "sqlite" else CountingReference()
    mem = Memory(store=store, embedder="hash", clock=ManualClock(START), seed=0)
    yield mem, store
    mem.close()


def _people_with_claims(mem: Memory, n: int) -> tuple[str, str]:
    """Alice (alias Ally) and ``n`` claims about her, each with an ``about`` and a ``derived_from`` edge."""
    alice = mem.remember("Alice", scope=SCOPE, kind="person").id
    ally = mem.remember("Ally", scope=SCOPE, kind="person").id
    mem.link(ally, alice, "alias", scope=SCOPE)
    add_claims(mem, alice, n)
    return alice, ally


def add_claims(mem: Memory, person: str, n: int, start: int = 0) -> None:
    source = mem.remember("a chat message", scope=SCOPE).id
    for i in range(start, start + n):
        claim = mem.remember(f"Alice visited museum number {i}", scope=SCOPE).id
        mem.link(claim, person, "about", scope=SCOPE)
        mem.link(claim, source, "derived_from", scope=SCOPE)


def _rows_for(store: Any, write: Any) -> int:
    before = store.rows
    write()
    return int(store.rows - before)


def test_claim_write_reads_no_more_edges_as_about_edges_grow(counted: Any) -> None:
    mem, store = counted
    alice, _ = _people_with_claims(mem, 3)
    few = _rows_for(store, lambda: mem.remember("Ally plays the cello", scope=SCOPE))
    add_claims(mem, alice, 40, start=3)
    many = _rows_for(store, lambda: mem.remember("Ally bakes sourdough bread", scope=SCOPE))
    assert many == few, f"one claim read {few} edge rows beside 3 claims, {many} beside 43"


def test_alias_groups_still_join_names_for_conflict_detection(counted: Any) -> None:
    mem, _ = counted
    _people_with_claims(mem, 2)
    lookup = mem._conflicts.alias_lookup(SCOPE)  # the lookup write-time detection uses
    assert lookup is not None and lookup("ally") == frozenset({"alice", "ally"})


def test_person_book_reads_only_alias_edges(counted: Any) -> None:
    mem, store = counted
    alice, _ = _people_with_claims(mem, 30)
    rows = _rows_for(store, lambda: Book(store, SCOPE))
    assert rows == 1, f"building the book read {rows} edge rows; the scope has one alias edge"
    book = Book(store, SCOPE)
    group = book.group(alice)
    assert group is not None and sorted(n.text for n in group.names) == ["Alice", "Ally"]
    assert len(book.claims_about(group)) == 30


def test_edges_by_type_returns_only_current_edges_of_that_type_in_scope(any_mem: Memory) -> None:
    mem = any_mem
    a, b, c = (mem.remember(t, scope=SCOPE).id for t in ("Alice", "Ally", "Al"))
    first = mem.link(b, a, "alias", scope=SCOPE)
    second = mem.link(c, a, "alias", scope=SCOPE)
    mem.link(b, a, "supports", scope=SCOPE)
    other = mem.remember("Bob", scope="team:other").id
    other2 = mem.remember("Rob", scope="team:other").id
    mem.link(other2, other, "alias", scope="team:other")
    mem.unlink(second.id, scope=SCOPE, reason="wrong name")
    store = mem.store
    current = store.edges_by_type(SCOPE, "alias")  # type: ignore[attr-defined]
    assert [e.id for e in current] == [first.id]
    every = store.edges_by_type(SCOPE, "alias", include_closed=True)  # type: ignore[attr-defined]
    assert [e.id for e in every] == sorted([first.id, second.id])
    assert store.edges_by_type(SCOPE, "contradicts") == []  # type: ignore[attr-defined]
    assert [e.type for e in store.edges_by_type("team:other", "alias")] == ["alias"]  # type: ignore[attr-defined]


def test_edges_by_type_hides_edges_to_items_a_principal_may_not_see(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with Memory(path, embedder="hash", clock=ManualClock(START), seed=0) as owner:
        a = owner.remember("Alice", scope=SCOPE).id
        b = owner.remember("Ally", scope=SCOPE).id
        secret = owner.remember("Al", scope=SCOPE, visibility=["bob"]).id
        seen = owner.link(b, a, "alias", scope=SCOPE)
        owner.link(secret, a, "alias", scope=SCOPE)
    with Memory(path, embedder="hash", clock=ManualClock(START), principal="carol") as carol:
        assert [e.id for e in carol.store.edges_by_type(SCOPE, "alias")] == [seen.id]  # type: ignore[attr-defined]


def test_enrolling_names_one_by_one_does_not_reread_every_name(counted: Any) -> None:
    mem, store = counted
    enroller = Enroller(mem._core, SCOPE)  # the enroller extraction uses, on the memory's own host
    names = [f"Person{chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(30)]
    before = store.item_rows
    ids = [enroller.ensure(n, conversation="c") for n in names]
    rows = store.item_rows - before
    assert rows <= 2, f"enrolling {len(ids)} names read {rows} name rows (rebuilding the book each time)"
    fresh = Book(store, SCOPE)
    assert [(g.id, [n.id for n in g.names]) for g in enroller.book.groups] == [
        (g.id, [n.id for n in g.names]) for g in fresh.groups
    ]


def test_a_new_alias_joins_its_person_in_the_enrollers_book(counted: Any) -> None:
    mem, store = counted
    enroller = Enroller(mem._core, SCOPE)
    bob = enroller.ensure("Bob Smith", conversation="c")
    alias = enroller.ensure("Bob", conversation="c")
    assert enroller.person_of(alias) == bob
    fresh = Book(store, SCOPE)
    assert [(g.id, [n.text for n in g.names]) for g in enroller.book.groups] == [
        (g.id, [n.text for n in g.names]) for g in fresh.groups
    ]


def test_sqlite_reads_edges_of_one_type_through_its_index(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    try:
        conn.execute("DROP INDEX edges_by_type")  # a file written before the index existed
        conn.commit()
    finally:
        conn.close()
    store = SQLiteStore(path)  # reopening adds it again
    try:
        plan = store._conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM edges WHERE scope = ? AND type = ? AND closed_at IS NULL ORDER BY id",
            (SCOPE, "alias"),
        ).fetchall()
    finally:
        store.close()
    assert any("edges_by_type" in str(row[-1]) for row in plan), plan
