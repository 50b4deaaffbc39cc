"""The similarity join stays bounded on a scope whose texts share one small vocabulary.

Every item below is the same eight words plus one word of its own: any two are near-duplicates
(frame Jaccard 8/10), and all of them meet in one prefix-token group — the join's worst case
(bench/README.md, dream: 2.9M candidate pairs at 100k items before the bound).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import Memory
from reverie.dream import DreamConfig
from reverie.dream.neighbours import near_duplicates, token_ranks
from reverie.dream.text import frame, jaccard

from .kit import S

_COMMON = "alpha bravo charlie delta echo foxtrot golf hotel"


def _texts(n: int) -> list[str]:
    return [f"{_COMMON} word{i:04d}" for i in range(n)]


def _join(n: int, cfg: DreamConfig) -> tuple[int, int, int]:
    """(pairs found, candidates generated, groups skipped) for n shared-vocabulary frames."""
    frames = [frame(t) for t in _texts(n)]
    same = np.ones((n, 8), dtype=np.float32) / np.sqrt(8)  # every cosine is 1: the lexical join decides
    pairs, stats = near_duplicates(frames, token_ranks(frames), same, np.ones(n, bool), cfg, lambda a, b: None)
    return len(pairs), stats.candidates, stats.groups_skipped


def test_without_a_binding_budget_the_join_finds_every_pair() -> None:
    found, candidates, skipped = _join(120, DreamConfig(dup_dense=0.0, max_pairs_per_item=10_000))
    assert found == 120 * 119 // 2
    assert candidates == 120 * 119 // 2  # one shared prefix token ("alpha"): each pair generated once
    assert skipped == 0


def test_the_pair_budget_bounds_the_candidates_a_pass_generates() -> None:
    n, per_item = 120, 4
    found, candidates, skipped = _join(n, DreamConfig(dup_dense=0.0, max_pairs_per_item=per_item))
    assert candidates <= per_item * n
    assert skipped == 1  # the one shared group would need 7,140 pairs: skipped and counted, not half-joined
    assert found == 0


def test_an_oversized_token_group_generates_no_candidates() -> None:
    found, candidates, skipped = _join(120, DreamConfig(dup_dense=0.0, max_token_group=100))
    assert (found, candidates, skipped) == (0, 0, 1)


def test_a_pass_reports_the_groups_the_budget_skipped(open_db: Callable[..., Memory]) -> None:
    mem = open_db("vocab")
    mem.remember_many(_texts(60), scope=S)
    bounded = mem.dream(scope=S, dry_run=True, config=DreamConfig(max_pairs_per_item=2))
    assert bounded.stats["candidate_pairs"] <= 2 * 60
    assert bounded.stats["token_groups_skipped"] == 1
    assert bounded.stats["near_duplicate_pairs"] == 0
    assert any("max_pairs_per_item=2" in note for note in bounded.notes)
    full = mem.dream(scope=S, dry_run=True)
    assert full.stats["candidate_pairs"] == 60 * 59 // 2
    assert full.stats["token_groups_skipped"] == 0


_VOCAB = [f"w{i}" for i in range(16)]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=12), min_size=2, max_size=30),
    st.sampled_from([0.5, 0.7, 0.8, 0.9, 1.0]),
)
def test_length_and_position_filters_drop_no_pair_brute_force_finds(sentences: list[list[str]], t: float) -> None:
    # Long frames over a small vocabulary: pairs share many prefix tokens at many positions,
    # so a wrong positional bound (or length window) would lose pairs here.
    frames = [frame(" ".join(s)) for s in sentences]
    n = len(frames)
    same = np.ones((n, 8), dtype=np.float32) / np.sqrt(8)
    cfg = DreamConfig(dup_dense=0.0, dup_lexical=t, max_pairs_per_item=10_000)
    found, _ = near_duplicates(frames, token_ranks(frames), same, np.ones(n, bool), cfg, lambda a, b: None)
    brute = {(i, j) for i, j in itertools.combinations(range(n), 2) if jaccard(frames[i], frames[j]) >= t - 1e-9}
    assert [(p.a, p.b) for p in found] == sorted(brute)
