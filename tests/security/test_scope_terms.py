"""Per-scope term statistics (``fts_terms``): the scoped bm25 path reads each term's document
frequency from a table kept in the write transaction instead of counting the matching rows.

Invariants: the table always holds exactly what counting the rows gives (after writes, forgets,
revisions, purges, and ``rebuild``), and ranking from it is bit-identical to ranking from the
rows (``by_terms`` against ``by_rows``, the code that ranked scope-only queries before).
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, NotFoundError
from reverie.model import commands as cmd
from reverie.store.protocol import Batch
from reverie.store.sqlite import SQLiteStore, fts_budget, fts_scope

A, B = "team/a", "team/b"
WORDS = ["tea", "coffee", "green", "black", "rain", "jazz", "chess", "paris", "train", "garden", "blue", "the"]


def counted(c: sqlite3.Connection) -> Counter[tuple[str, int, str]]:
    """``fts_terms`` as counting every row would give it."""
    out: Counter[tuple[str, int, str]] = Counter()
    for table, tbl in (("fts", 0), ("fts_history", 1)):
        for scope, text, extra in c.execute(
            f"SELECT i.scope, f.text, f.extra FROM {table} f JOIN items i ON i.n = f.rowid"
        ):
            for term in set(fts_budget.tokens(text or "")) | set(fts_budget.tokens(extra or "")):
                out[(scope, tbl, term)] += 1
    return out


def stored(c: sqlite3.Connection) -> Counter[tuple[str, int, str]]:
    return Counter({(s, t, term): d for s, t, term, d in c.execute("SELECT scope, tbl, term, docs FROM fts_terms")})


texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
ops = st.lists(st.tuples(st.sampled_from(["a", "b", "forget", "revise", "purge"]), texts), min_size=1, max_size=25)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=ops, query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))
def test_term_table_matches_the_rows_and_ranks_bit_identically(
    history: list[tuple[str, str]], query: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "t.db"
        store = SQLiteStore(db, durability="fast")
        with Memory(store=store, embedder="hash", clock=ManualClock(), seed=5, detect_conflicts=False) as mem:
            for op, text in history:
                current = mem.list(scope=A, limit=100).items
                if op in ("a", "b") or not current:
                    mem.remember(text, scope=A if op != "b" else B)
                elif op == "forget":
                    mem.forget(current[0].id, scope=A)
                elif op == "revise":
                    mem.revise(current[0].id, text + " revised", scope=A)
                else:
                    mem.forget(current[0].id, scope=A, purge=True)
            c = sqlite3.connect(db)
            assert stored(c) == counted(c)
            for table in ("fts", "fts_history"):
                stats = fts_scope.stats(c, table, A)
                if stats.docs <= 0:
                    continue
                for budget in (fts_budget.LEXICAL_BUDGET, 2):  # 2: the common-term split runs too
                    saved, fts_budget.LEXICAL_BUDGET = fts_budget.LEXICAL_BUDGET, budget
                    try:
                        for joiner in (" OR ", " AND "):
                            new = fts_scope.by_terms(c, table, query, joiner, A, 8, stats)
                            old = fts_scope.by_rows(c, table, query, joiner, A, 8, stats)
                            assert new == old
                    finally:
                        fts_budget.LEXICAL_BUDGET = saved
            c.close()
            mem.rebuild()
            c = sqlite3.connect(db)
            assert stored(c) == counted(c)
            c.close()


def test_a_schema_4_file_gets_its_term_table_filled(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("green tea in paris", scope=A)
        mem.remember("black coffee", scope=B)
    c = sqlite3.connect(db)
    c.execute("DELETE FROM fts_terms")
    c.execute("UPDATE settings SET v = '4' WHERE k = 'schema_version'")
    c.commit()
    c.close()
    with Memory(db, embedder="hash"):
        pass
    c = sqlite3.connect(db)
    assert stored(c) == counted(c) != Counter()
    c.close()


# -- moves summed per transaction (``fts_scope.Pending``): the batch edge cases ---------------


def _matches(db: Path) -> None:
    """The term table equals counting the rows, live and after ``rebuild``."""
    c = sqlite3.connect(db)
    try:
        assert stored(c) == counted(c)
        assert 0 not in stored(c).values(), "a term whose moves cancelled left a zero row"
    finally:
        c.close()


def _remember(scope: str, text: str) -> cmd.Remember:
    return cmd.Remember(scope=scope, text=text, kind="claim", source="user")


def test_a_term_added_and_removed_in_one_step_leaves_no_row_and_a_failed_step_leaves_none(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Memory(store=SQLiteStore(db, durability="fast"), embedder="hash", clock=ManualClock(), seed=1) as mem:
        core = mem._core
        mem.remember("green tea in paris", scope=B)  # a second scope: A ranks by its own statistics
        mem.remember_many([{"text": "rain in paris"}, {"text": "jazz and tea"}], scope=A)
        query = '"mango" OR "paris" OR "tea"'
        seen: list[list[tuple[str, float]]] = []

        def add_then_forget(b: Batch) -> None:
            made = b.run([_remember(A, "zebra crossing in paris")])[0].item_id
            assert made is not None
            b.run([cmd.Forget(A, made)])  # "zebra": +1 then -1 in ``fts``, +1 in ``fts_history``

        def add_then_fail(b: Batch) -> None:
            b.run([_remember(A, "kiwi smoothie")])
            raise NotFoundError("this step is refused: its writes and their term moves roll back")

        def add_then_read(b: Batch) -> None:
            b.run([_remember(A, "mango lassi with tea")])
            # A read inside the transaction sees the moves written so far (``_read`` flushes).
            seen.append(core.store.lexical(A, query, limit=5))

        out = core.store.execute_steps(
            [add_then_forget, add_then_fail, add_then_read], now=core.clock.now(), new_id=core.new_id, vectors={}
        )
        assert isinstance(out[1], NotFoundError)
        assert seen == [mem.store.lexical(A, query, limit=5)], "a read inside the write missed its own term moves"
        c = sqlite3.connect(db)
        assert not any(term == "kiwi" for _, _, term in stored(c)), "a rolled-back step's terms were written"
        assert stored(c)[(A, 0, "zebra")] == 0 and stored(c)[(A, 1, "zebra")] == 1
        c.close()
        _matches(db)
        mem.rebuild()
        _matches(db)


def test_a_refused_batch_writes_none_of_its_term_moves_later(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Memory(store=SQLiteStore(db, durability="fast"), embedder="hash", clock=ManualClock(), seed=2) as mem:
        core = mem._core
        batch = [_remember(A, "ghost orchid"), cmd.Forget(A, "0190e3a4-0000-7000-8000-000000000000")]
        with pytest.raises(NotFoundError):
            core.store.execute(batch, now=core.clock.now(), new_id=core.new_id, vectors={})
        mem.remember("black coffee", scope=A)  # the next commit must not carry the refused batch's moves
        _matches(db)


def test_a_purge_in_the_same_transaction_as_new_rows_keeps_the_counts(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Memory(store=SQLiteStore(db, durability="fast"), embedder="hash", clock=ManualClock(), seed=3) as mem:
        core = mem._core
        old = mem.remember("secret plan for paris in the rain", scope=A)
        mem.revise(old.id, "secret plan for paris in spring", scope=A)
        mem.remember("jazz in paris", scope=B)
        batch = [
            _remember(A, "paris rain jazz"),
            cmd.Purge(A, mem.list(scope=A, limit=10).items[0].id, reason="leaked"),
            _remember(A, "secret garden tea"),
        ]
        core.store.execute(batch, now=core.clock.now(), new_id=core.new_id, vectors={})
        _matches(db)
        mem.rebuild()
        _matches(db)


def test_batched_moves_of_non_ascii_and_quoted_terms(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    texts = ['café "crème" brûlée', "東京 タワー and tea", "naïve résumé 😀 back\\slash", "C++ and C# notes", "tea"]
    with Memory(store=SQLiteStore(db, durability="fast"), embedder="hash", clock=ManualClock(), seed=4) as mem:
        items = mem.remember_many([{"text": t, "tags": ["ünï", 'q"uote']} for t in texts], scope=A)
        mem.remember_many([{"text": t} for t in texts[:2]], scope=B)
        for item in items[:3]:
            mem.forget(item.id, scope=A)
        _matches(db)
        mem.rebuild()
        _matches(db)
