"""The pass's join reads frames as one flat array of ranks, and finds what the frames give.

``consolidate`` turns each item's frame into token ranks as it goes (``rank_frames``) instead
of keeping 100k frames and 100k sorted lists alive; these tests pin that the flat form is
exactly the per-frame one, and that the join over it finds exactly the pairs brute force does,
long frames (compared as sets, past the padded matrix) included.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.dream import DreamConfig
from reverie.dream.neighbours import (
    _WIDE,
    Ranked,
    _prefix_entries,
    near_duplicates,
    rank_frames,
    ranked_near_duplicates,
    token_ranks,
)
from reverie.dream.text import frame, jaccard

_WORDS = [f"w{i}" for i in range(24)] + ["tea", "coffee", "alice", "flag", "on", "off", "the", "not"]
_FRAMES = st.lists(st.lists(st.sampled_from(_WORDS), max_size=14).map(lambda ws: frame(" ".join(ws))), max_size=30)


@settings(max_examples=120, deadline=None)
@given(_FRAMES)
def test_rank_frames_equals_token_ranks_and_each_frame_sorted_by_rank(frames: list[frozenset[str]]) -> None:
    ranked, ranks = rank_frames(iter(frames))  # a generator, as the pass gives it
    expected = token_ranks(frames)
    assert list(ranks.items()) == list(expected.items())  # same ranks, same order
    assert ranked.rows == len(frames)
    for i, f in enumerate(frames):
        assert ranked.row(i).tolist() == sorted(expected[t] for t in f)
    same = Ranked.of(frames, expected)
    for got, want in ((ranked.ranks, same.ranks), (ranked.lengths, same.lengths), (ranked.starts, same.starts)):
        assert got.dtype == want.dtype == np.int64
        assert got.tolist() == want.tolist()


@settings(max_examples=80, deadline=None)
@given(_FRAMES, st.sampled_from([0.5, 0.6, 0.7, 0.8, 0.9, 1.0]))
def test_prefixes_match_the_scalar_formula(frames: list[frozenset[str]], t: float) -> None:
    ranked, _ = rank_frames(frames)
    tok, row, pos = _prefix_entries(ranked, DreamConfig(dup_lexical=t))
    expected = []
    for r in range(ranked.rows):
        ranks = ranked.row(r).tolist()
        n = len(ranks)
        prefix = min(n, n - math.ceil(t * n - 1e-9) + 1) if n else 0
        expected += [(ranks[k], r, k) for k in range(prefix)]
    assert list(zip(tok.tolist(), row.tolist(), pos.tolist(), strict=True)) == expected


def test_prefixes_of_every_length_match_the_scalar_formula() -> None:
    # Products such as 0.28 · 25 = 7.000000000000001 are where the formula's 1e-9 matters.
    frames = [frozenset(f"w{k}" for k in range(n)) for n in range(120)]
    ranked, _ = rank_frames(frames)
    for t in (0.28, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0):
        _, row, _ = _prefix_entries(ranked, DreamConfig(dup_lexical=t))
        counts = np.bincount(row, minlength=len(frames)).tolist()
        assert counts == [min(n, n - math.ceil(t * n - 1e-9) + 1) if n else 0 for n in range(120)]


@settings(max_examples=60, deadline=None)
@given(_FRAMES, st.integers(0, 2**32 - 1))
def test_the_pass_join_equals_the_frames_join(frames: list[frozenset[str]], seed: int) -> None:
    n = len(frames)
    vectors = np.random.default_rng(seed).normal(size=(n, 4)).astype(np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    has = np.random.default_rng(seed + 1).random(n) > 0.1
    cfg = DreamConfig(dup_dense=0.0, dup_lexical=0.5, max_pairs_per_item=10_000)

    def guard(a: int, b: int) -> str | None:
        return "odd" if (a + b) % 2 else None

    ranked, ranks = rank_frames(iter(frames))
    assert ranked_near_duplicates(ranked, vectors, has, cfg, guard) == near_duplicates(
        frames, ranks, vectors, has, cfg, guard
    )
    same = np.ones((n, 4), dtype=np.float32) / 2  # every cosine is 1: the lexical join decides
    found, _ = ranked_near_duplicates(ranked, same, np.ones(n, bool), cfg, guard)
    brute = [(i, j) for i, j in itertools.combinations(range(n), 2) if jaccard(frames[i], frames[j]) >= 0.5 - 1e-9]
    assert [(p.a, p.b) for p in found] == brute


def test_long_frames_past_the_padded_matrix_are_joined_exactly() -> None:
    # Frames longer than _WIDE are compared as sets: mix them with short ones and check
    # every pair against brute force.
    base = [f"t{i}" for i in range(_WIDE + 12)]
    texts = [
        " ".join(base),
        " ".join([*base[:-3], "x1", "x2"]),
        " ".join([*base[5:], "y1"]),
        " ".join(base[:10]),
        " ".join([*base[:9], "z"]),
        "alpha bravo",
    ]
    frames = [frame(t) for t in texts]
    n = len(frames)
    same = np.ones((n, 8), dtype=np.float32) / np.sqrt(8)
    cfg = DreamConfig(dup_dense=0.0, dup_lexical=0.8, max_pairs_per_item=10_000)
    ranked, _ = rank_frames(frames)
    found, _ = ranked_near_duplicates(ranked, same, np.ones(n, bool), cfg, lambda a, b: None)
    brute = {
        (i, j): jaccard(frames[i], frames[j])
        for i, j in itertools.combinations(range(n), 2)
        if jaccard(frames[i], frames[j]) >= 0.8 - 1e-9
    }
    assert {(p.a, p.b): p.overlap for p in found} == {k: round(v, 6) for k, v in brute.items()}
    assert set(brute) == {(0, 1), (0, 2), (1, 2), (3, 4)}  # long pairs and short ones in play


def test_no_items_and_only_empty_frames_join_to_nothing() -> None:
    for frames in ([], [frozenset[str](), frozenset[str]()]):
        ranked, ranks = rank_frames(frames)
        assert ranks == {} and ranked.rows == len(frames)
        vectors = np.zeros((len(frames), 4), dtype=np.float32)
        pairs, _ = ranked_near_duplicates(ranked, vectors, np.ones(len(frames), bool), DreamConfig(), lambda a, b: None)
        assert pairs == []
