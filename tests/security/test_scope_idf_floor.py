"""Regression (found by scripts/soak): the scope-statistics bm25 took ``log`` of a non-positive
ratio when a term's count ran ahead of the scope's row count (two reads, writers between them),
and write-time conflict detection failed with "math domain error". FTS5 floors idf at 1e-6;
so does ``fts_budget.bm25_idf``; the scope path must too.
"""

from __future__ import annotations

from reverie.store.sqlite.fts_budget import bm25_idf
from reverie.store.sqlite.fts_scope import idf


def test_idf_floors_when_term_counts_run_ahead_of_the_row_count() -> None:
    assert idf(10, 12) == 1e-6  # ratio < 0: was ValueError
    assert idf(10, 10) == 1e-6
    assert idf(1000, 3) == bm25_idf(1000, 3)  # the ordinary case is unchanged
