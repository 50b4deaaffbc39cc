"""#14.7: ranking inside a scope depends only on that scope.

FTS5's bm25() took its statistics (row count, mean length, each term's document frequency) and
the common-term cut-off (``fts_budget``) from every scope's rows: 200 writes to scope B pushed A's
items out of A's lexical results and reordered A's top-k, and A's scores told it which words are
common in B. The invariant: A's recall (ids, order and scores) is the same before and after any
writes to B, in every mode, and on the ANN path too (made reachable with a low threshold).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.ann import AnnConfig

A, B = "team/a", "team/b"
WORDS = ["tea", "coffee", "green", "black", "rain", "jazz", "chess", "paris", "train", "garden", "blue", "cats"]
QUERIES = ["green tea", "coffee in paris", "jazz and chess", "rain garden cats", "black train", "blue"]
MODES = ("lexical", "dense", "hybrid")


@contextmanager
def store(ann_threshold: int = 50_000) -> Iterator[Memory]:
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SQLiteStore(
            Path(tmp) / "s.db", durability="fast", ann=AnnConfig(threshold=ann_threshold, persist=False)
        )
        with Memory(store=sqlite, embedder="hash", clock=ManualClock(), seed=7, detect_conflicts=False) as mem:
            yield mem


def results(mem: Memory) -> dict[tuple[str, str], list[tuple[str, float]]]:
    return {
        (mode, q): [(h.item.id, h.score) for h in mem.recall(q, scope=A, k=8, mode=mode, record_use=False)]
        for mode in MODES
        for q in QUERIES
    }


def lexical(mem: Memory) -> dict[tuple[str, str, bool], list[tuple[str, float]]]:
    """The store's lexical leg for A: OR and AND queries, current rows and with history."""
    from reverie.recall.normalize import fts_query

    out = {}
    for q in QUERIES:
        for mode in ("or", "and"):
            match = fts_query(q, mode=mode)
            assert match is not None
            for current_only in (True, False):
                out[(q, mode, current_only)] = mem.store.lexical(A, match, limit=50, current_only=current_only)
    return out


sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a_texts=st.lists(sentences, min_size=3, max_size=12, unique=True),
    b_texts=st.lists(sentences, min_size=1, max_size=40),
    forget_some=st.booleans(),
)
def test_writes_to_another_scope_leave_a_scopes_recall_unchanged(
    a_texts: list[str], b_texts: list[str], forget_some: bool
) -> None:
    with store() as mem:
        mine = mem.remember_many([{"text": t} for t in a_texts], scope=A)
        mem.forget(mine[0].id, scope=A, reason="history rows rank too")
        before, before_lex = results(mem), lexical(mem)
        written = mem.remember_many([{"text": t} for t in b_texts], scope=B)
        if forget_some:  # history rows and closed rows in B must not count either
            mem.forget(written[0].id, scope=B, reason="gone")
        assert lexical(mem) == before_lex
        assert results(mem) == before


def test_two_hundred_writes_elsewhere_do_not_reorder_a_scopes_lexical_top_k() -> None:
    """The repro: B's writes made "tea" common and "jazz" rare store-wide, which reordered A."""
    with store() as mem:
        mem.remember_many(
            [{"text": "tea tea tea and a long sentence about nothing in particular"}, {"text": "jazz once"}],
            scope=A,
        )
        before = lexical(mem)
        mem.remember_many([{"text": f"tea number {i}"} for i in range(200)], scope=B)
        assert lexical(mem) == before


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(b_texts=st.lists(sentences, min_size=1, max_size=30))
def test_writes_to_another_scope_leave_a_scopes_ann_results_unchanged(b_texts: list[str]) -> None:
    with store(ann_threshold=16) as mem:
        mem.remember_many([{"text": f"{WORDS[i % 12]} {WORDS[(i * 5) % 12]} {i}"} for i in range(40)], scope=A)
        assert mem.store.nearest(A, mem.embedder.embed(["green tea"])[0], limit=5) is not None  # the ANN path
        before = results(mem)
        mem.remember_many([{"text": t} for t in b_texts], scope=B)
        assert results(mem) == before


def _lexical_for(mem: Memory, query: str) -> list[tuple[str, float]]:
    from reverie.recall.normalize import fts_query

    match = fts_query(query)
    assert match is not None
    return mem.store.lexical(A, match, limit=20)


SMALL_BUDGET = 300  # the real 4,000 works the same; a lower one keeps the test fast


def test_a_scopes_common_term_cut_off_is_the_same_beside_other_scopes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large enough to split its own query ("tea" in every row): the cut-off planned from A's
    numbers alone (FTS5's path) and beside B (the scoped path) choose and score the same rows."""
    from reverie.store.sqlite import fts_budget

    monkeypatch.setattr(fts_budget, "LEXICAL_BUDGET", SMALL_BUDGET)
    with store() as mem:
        rows = [{"text": f"tea note {i}" + (" jazz" if i % 40 == 0 else "")} for i in range(SMALL_BUDGET + 100)]
        mem.remember_many(rows, scope=A)
        with mem.store._read() as c:  # type: ignore[attr-defined]
            assert fts_budget.plan(c, '"tea" OR "jazz"') is not None  # the split really runs
        before = _lexical_for(mem, "tea jazz")
        mem.remember_many([{"text": f"jazz tea jazz {i}"} for i in range(30)], scope=B)
        assert _lexical_for(mem, "tea jazz") == before
        assert len(before) == 10  # the split: only the rows holding the rare term are candidates


def test_other_scopes_common_words_neither_split_nor_rescore_a_scopes_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """B makes "tea" common store-wide; A, where it is rare, must not see its query split or its
    scores drop (which would also tell A that "tea" is common somewhere else)."""
    from reverie.store.sqlite import fts_budget

    monkeypatch.setattr(fts_budget, "LEXICAL_BUDGET", SMALL_BUDGET)
    with store() as mem:
        mem.remember_many(
            [{"text": t} for t in ["green tea at noon", "jazz records", "tea and jazz", "chess"]], scope=A
        )
        before = _lexical_for(mem, "tea jazz")
        mem.remember_many([{"text": f"tea row {i}"} for i in range(SMALL_BUDGET + 100)], scope=B)
        assert _lexical_for(mem, "tea jazz") == before


def test_purge_keeps_a_scopes_full_text_counters_exact() -> None:
    """A purge rewrites (and closes) a row outside the ordinary paths: the scope's counters must
    follow it, or a one-scope store would leave FTS5's path and rank with a wrong row count."""
    from reverie.store.sqlite import fts_scope

    with store() as mem:
        items = mem.remember_many(
            [{"text": t} for t in ["green tea at noon", "a long note on jazz and chess"]], scope=A
        )
        mem.remember("rain", scope=B)
        mem.forget(items[1].id, scope=A, reason="erase", purge=True)
        c = mem.store._conn  # type: ignore[attr-defined]
        kept = c.execute("SELECT * FROM scope_state ORDER BY scope").fetchall()
        c.execute("BEGIN")
        try:
            fts_scope.fill_counters(c)  # a count from scratch
            recounted = c.execute("SELECT * FROM scope_state ORDER BY scope").fetchall()
        finally:
            c.execute("ROLLBACK")
        assert kept == recounted
