"""PostgreSQL recall reads outside transactions (``PostgresStore._read``) and answers as before.

Pins three things: on one seeded store, PostgreSQL's answers are SQLite's, hit for hit (ids,
order, scores, ``why``, contradictions), cold and from its caches; a recall of current truth
opens no transaction of its own (BEGIN / set_config / COMMIT were most of its round trips);
and the scopes a read names never show a later transaction more than it named, nor outlive the
read's statement on the server session (``test_pg_pooler_safety.py``).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg

from reverie import ManualClock, Memory
from reverie.store.postgres.roles import create_app_role
from strategies import START

QUERIES = [
    "what is Alice allergic to",
    "tea",
    "where does Bob live",
    "Lisbon move",
    "bees honey",
    "o'clock",
    "nothing matches this",
]
ROLE, PASSWORD = "reverie_read_test", "read-secret"


def _seed(mem: Memory, clock: ManualClock) -> None:
    """History, a contradiction, a dismissal, an edge, another scope and a few dozen similar items."""
    a = mem.remember("Alice is allergic to peanuts", scope="s", key="alice.allergy", value="peanuts", importance=0.9)
    mem.remember("Alice is not allergic to peanuts", scope="s", key="alice.allergy", value="none")
    tea = mem.remember("Bob likes green tea", scope="s", tags=["drinks"])
    clock.advance(days=3)
    mem.revise(tea.id, "Bob likes black tea", scope="s")
    bees = mem.remember("Bob keeps bees in Lisbon", scope="s")
    mem.remember("Bob lives in Porto", scope="s", key="bob.city", value="Porto")
    mem.dismiss(mem.remember("Bob lives on the moon", scope="s").id, scope="s")
    mem.link(a.id, bees.id, type="about", scope="s")
    mem.remember("Carol moved to Lisbon", scope="other")
    for k in range(40):
        clock.advance(hours=5)
        mem.remember(f"Bob drinks tea at {k % 12} o'clock with honey from his bees, day {k}", scope="s")
    clock.advance(days=10)


def _answers(mem: Memory, clock: ManualClock) -> list[Any]:
    out: list[Any] = []
    for q in QUERIES:
        for opts in (
            {},
            {"k": 3, "mode": "lexical"},
            {"k": 5, "mode": "dense"},
            {"include_history": True},
            {"as_of": START + timedelta(days=1)},
            {"contradictions": "filter", "k": 20},
        ):
            hits = mem.recall(q, scope="s", record_use=False, **opts)  # type: ignore[arg-type]
            out.append([(h.item.id, h.score, h.why, h.contradicted_by) for h in hits])
    return out


def _open(location: str | Path, clock: ManualClock) -> Memory:
    return Memory(location, embedder="hash", clock=clock, seed=7, detect_conflicts=True)


def test_postgres_recall_gives_sqlites_answers_cold_and_cached(tmp_path: Path, pg_url: str) -> None:
    answers = []
    for location in (tmp_path / "s.db", pg_url):
        clock = ManualClock(START)
        with _open(location, clock) as mem:
            _seed(mem, clock)
            first = _answers(mem, clock)
            assert _answers(mem, clock) == first  # from the scope's caches: the same
        with _open(location, clock) as mem:  # a new process's view: caches empty
            assert _answers(mem, clock) == first
        answers.append(first)
    assert answers[0] == answers[1]
    assert any(hits for hits in answers[1]) and any(h[3] for hits in answers[1] for h in hits)


def test_recall_of_current_truth_opens_no_transaction(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem: Memory = memories.open(pg_url)
    mem.remember_many([f"note {i} about tea and bees" for i in range(30)], scope="s")
    mem.recall("tea", scope="s", record_use=False)  # warm: the scope's figures and vectors read once
    store: Any = mem.store
    txn, begun, seen = store._txn, [], []

    def counting(*args: Any, **kwargs: Any) -> Any:
        begun.append(store._txn_scopes is None)
        return txn(*args, **kwargs)

    store._txn, store._statement_hook = counting, seen.append
    try:
        assert mem.recall("tea bees", scope="s", k=5, record_use=False)
    finally:
        store._txn, store._statement_hook = txn, None
    assert not any(begun)
    assert not [s for s in seen if "set_config" in s]  # named in each statement's own round trip (``_named``)
    assert len([s for s in seen if " FROM edges " in s]) == 1  # the hits' edges: one statement (edgerun.py)
    assert len(seen) <= 9  # was 38 statements and 19 transactions (bench/pg_recall_ab.py)


def test_edges_read_with_their_items_are_read_again_after_any_other_call(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem: Memory = memories.open(pg_url)
    a, b, c = mem.remember_many(["Alice likes tea", "Bob likes coffee", "Carol likes water"], scope="s")
    first = mem.link(a.id, b.id, type="about", scope="s")
    store: Any = mem.store
    seen: list[str] = []
    store._statement_hook = seen.append
    assert set(store.get_many("s", [a.id, b.id, c.id])) == {a.id, b.id, c.id}
    assert [e.id for e in store.edges("s", a.id)] == [first.id]
    assert [e.id for e in store.edges("s", b.id)] == [first.id]
    assert store.edges("s", c.id) == []
    assert len([s for s in seen if " FROM edges " in s]) == 1  # one statement for the three
    second = mem.link(b.id, c.id, type="supports", scope="s")  # a write ends the run
    assert [e.id for e in store.edges("s", c.id)] == [second.id]
    assert sorted(e.id for e in store.edges("s", b.id)) == sorted([first.id, second.id])
    store.get_many("s", [a.id, c.id])
    store.item("s", b.id)  # any other read ends the run too
    seen.clear()
    assert [e.id for e in store.edges("s", a.id)] == [first.id]
    assert [e.id for e in store.edges("s", c.id)] == [second.id]
    assert len([s for s in seen if " FROM edges " in s]) == 2  # one each: no run
    store._statement_hook = None


def _rows_seen_naming_no_scope(mem: Memory) -> int:
    """The log's rows a store transaction naming no scope sees (row-level security: none)."""
    store: Any = mem.store
    with store._txn([]):
        return int(store.q("SELECT count(*) FROM events")[0][0])


def test_a_transaction_sees_only_what_it_names_after_a_read_named_a_scope(pg_url: str) -> None:
    with Memory(pg_url, embedder="hash") as owner:
        a = owner.remember("Alice is allergic to peanuts", scope="user:alice")
        owner.remember("Bob keeps bees", scope="user:bob")
    create_app_role(pg_url, ROLE, PASSWORD)
    app_url = pg_url.replace("postgresql://postgres:@", f"postgresql://{ROLE}:{PASSWORD}@", 1)
    with Memory(app_url, embedder="hash") as mem:
        assert mem.get(a.id, scope="user:alice") is not None  # a read: the session names user:alice
        assert _rows_seen_naming_no_scope(mem) == 0  # a transaction naming no scope sees none, as before
        assert [i.text for i in mem.list(scope="user:bob").items] == ["Bob keeps bees"]  # a transaction
        assert [h.item.text for h in mem.recall("bees", scope="user:bob", record_use=False)] == ["Bob keeps bees"]
        assert _rows_seen_naming_no_scope(mem) == 0
        assert mem.store.scopes() == ["user:alice", "user:bob"]  # names through the view (schema 9), no rows
        conn: psycopg.Connection[Any] = mem.store._conn  # type: ignore[attr-defined]
        row = conn.execute("SELECT current_setting('reverie.scopes', true)").fetchone()
        assert row is not None and row[0] == ""  # each read's naming ended with its statement (pooler-safe)


def test_a_read_nested_in_another_keeps_the_outer_reads_scope_named(pg_url: str) -> None:
    with Memory(pg_url, embedder="hash") as owner:
        owner.remember("Alice is allergic to peanuts", scope="user:alice")
        owner.remember("Bob keeps bees", scope="user:bob")
    create_app_role(pg_url, ROLE, PASSWORD)
    app_url = pg_url.replace("postgresql://postgres:@", f"postgresql://{ROLE}:{PASSWORD}@", 1)
    with Memory(app_url, embedder="hash") as mem:
        store: Any = mem.store
        with store._read(["user:alice"]):
            with store._read(["user:bob"]):
                assert store.q("SELECT count(*) FROM items WHERE scope = %s", ("user:bob",)) == [(1,)]
            assert store.q("SELECT count(*) FROM items WHERE scope = %s", ("user:alice",)) == [(1,)]
        with store._read(["user:bob"]):  # a read of its own names only its scope
            assert store.q("SELECT count(*) FROM items WHERE scope = %s", ("user:alice",)) == [(0,)]
