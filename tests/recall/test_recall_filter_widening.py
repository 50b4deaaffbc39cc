"""A ``where`` filter finds the claims it admits, however many others share their words (probe 5 #3).

Regression: the filter was applied to a candidate pool already cut to the legs' best ``pool``
(100 for k = 5), and the corrective pass only quadrupled it. In a scope whose notes all use the
query's words, the one claim the filter admits ranked below the cut in every leg, so
``recall("deploy server", where=Q.author("Zed"))`` answered nothing although the claim holds both
words. The engine now widens the pool until the filter admits ``k`` candidates or the legs run
out (bound: ``engine.FILTER_POOL_MAX`` per leg). Both backends: the engine does it over the store
protocol, so SQLite and PostgreSQL give the same answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import ManualClock, Memory, Q
from strategies import START

S = "ops"
QUERY = "deploy server"
#: More notes than the corrective pass reads (4 × 100 per leg), all better matches than the claim.
NOTES = 600


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "r.db")
    else:
        yield request.getfixturevalue("pg_url")


def _busy_scope(mem: Memory) -> list[str]:
    """``NOTES`` short notes that repeat the query's words, then Zed's policies worded with them too."""
    notes = [{"text": f"deploy server deploy server note {i}"} for i in range(NOTES)]
    mem.remember_many(notes, scope=S, check_conflicts=False)
    zed = [
        mem.remember(
            f"Zed: deploy the server after the build number {i} has passed its checks",
            scope=S,
            author="Zed",
            kind="policy",
        ).id
        for i in range(3)
    ]
    return zed


@pytest.mark.parametrize("mode", ["lexical", "hybrid", "dense"])
def test_where_filter_finds_the_only_claims_it_admits_below_the_pool(store_url: str, mode: str) -> None:
    clock = ManualClock(START)
    with Memory(store_url, embedder="hash", clock=clock, seed=0) as mem:
        zed = _busy_scope(mem)
        unfiltered = [h.item.id for h in mem.recall(QUERY, scope=S, k=5, mode=mode, record_use=False)]
        assert not set(zed) & set(unfiltered)  # the notes outrank them: the filter has to dig
        for where in (Q.author("Zed"), Q.kind("policy")):
            hits = mem.recall(QUERY, scope=S, k=5, mode=mode, where=where, record_use=False)
            assert sorted(h.item.id for h in hits) == sorted(zed), (mode, where)


def test_where_filter_takes_the_best_k_of_the_admitted_claims(store_url: str) -> None:
    """More admitted claims than ``k`` below the pool: the answer is ``k`` of them, none else."""
    clock = ManualClock(START)
    with Memory(store_url, embedder="hash", clock=clock, seed=0) as mem:
        zed = _busy_scope(mem)
        hits = mem.recall(QUERY, scope=S, k=2, mode="lexical", where=Q.author("Zed"), record_use=False)
        assert len(hits) == 2 and {h.item.id for h in hits} <= set(zed)


def test_where_filter_with_as_of_digs_below_the_pool(store_url: str) -> None:
    """A look at the past filters on the state then, and widens the same way."""
    clock = ManualClock(START)
    with Memory(store_url, embedder="hash", clock=clock, seed=0) as mem:
        zed = _busy_scope(mem)
        then = clock.now()
        clock.advance(days=1)
        mem.remember("deploy server deploy server today", scope=S, author="Zed", kind="policy")
        hits = mem.recall(QUERY, scope=S, k=5, mode="lexical", where=Q.author("Zed"), as_of=then)
        assert sorted(h.item.id for h in hits) == sorted(zed)
