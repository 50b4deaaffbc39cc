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

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
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
