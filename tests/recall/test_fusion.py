"""Reciprocal Rank Fusion: exact scores, deterministic ties, and the properties callers rely on."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie.recall.fusion import DEFAULT_RRF_K, FusedHit, rrf


def test_scores_are_sum_of_reciprocal_ranks() -> None:
    hits = rrf({"lexical": ["a", "b"], "dense": ["b", "c"]})
    by_id = {hit.id: hit for hit in hits}
    assert by_id["b"].score == pytest.approx(1 / 62 + 1 / 61)
    assert by_id["a"].score == pytest.approx(1 / 61)
    assert by_id["c"].score == pytest.approx(1 / 62)
    assert [hit.id for hit in hits] == ["b", "a", "c"]


def test_ranks_are_one_based_per_leg_where_present() -> None:
    hits = rrf({"lexical": ["a", "b"], "dense": ["b"]})
    assert isinstance(hits[0], FusedHit)
    assert (hits[0].id, hits[0].ranks) == ("b", {"lexical": 2, "dense": 1})
    assert hits[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert hits[1].ranks == {"lexical": 1}
    assert hits[0].best_rank == 1


def test_default_k_is_sixty() -> None:
    assert DEFAULT_RRF_K == 60
    assert rrf({"x": ["a"]})[0].score == pytest.approx(1 / 61)
    assert rrf({"x": ["a"]}, k=0)[0].score == pytest.approx(1.0)


def test_weights_scale_each_leg() -> None:
    hits = rrf({"lexical": ["a"], "dense": ["b"]}, weights={"dense": 2.0})
    assert [hit.id for hit in hits] == ["b", "a"]
    assert hits[0].score == pytest.approx(2 / 61)
    assert hits[1].score == pytest.approx(1 / 61)  # a leg missing from weights weighs 1


def test_equal_scores_break_by_best_rank_then_id() -> None:
    # With k=0 all three score exactly 1.0: z = 1/1, y = 1/1, a = 1/2 + 1/2.
    hits = rrf({"x": ["z", "a"], "y": ["y", "a"]}, k=0)
    assert {hit.score for hit in hits} == {1.0}
    assert [hit.id for hit in hits] == ["y", "z", "a"]  # best rank 1 before best rank 2, then by id
    tie = rrf({"x": ["m"], "y": ["k"]})
    assert [hit.id for hit in tie] == ["k", "m"]


def test_duplicates_within_a_leg_count_once_at_first_position() -> None:
    hits = rrf({"lexical": ["a", "b", "a", "a"]})
    assert [(hit.id, hit.ranks) for hit in hits] == [("a", {"lexical": 1}), ("b", {"lexical": 2})]
    assert hits[0].score == pytest.approx(1 / 61)


def test_empty_input_gives_empty_output() -> None:
    assert rrf({}) == []
    assert rrf({"lexical": [], "dense": []}) == []


@pytest.mark.parametrize(
    ("k", "weights"),
    [(-1, None), (60, {"dense": -0.5}), (60, {"dense": math.nan}), (60, {"dense": math.inf})],
)
def test_rejects_negative_k_and_bad_weights(k: int, weights: dict[str, float] | None) -> None:
    with pytest.raises(ValueError):
        rrf({"dense": ["a"]}, k=k, weights=weights)


def test_order_does_not_depend_on_leg_order() -> None:
    legs = {"a": ["1", "2", "3"], "b": ["3", "2", "1"], "c": ["2", "4"]}
    forward = rrf(legs)
    backward = rrf(dict(reversed(list(legs.items()))))
    assert forward == backward


ids = st.text(alphabet="abcdefgh", min_size=1, max_size=2)
legs = st.dictionaries(st.sampled_from(["lexical", "dense", "graph", "recent"]), st.lists(ids, max_size=12))
positive_weights = st.floats(min_value=0.01, max_value=10.0, allow_nan=False)


@given(rankings=legs, winner=ids, k=st.integers(0, 100), data=st.data())
def test_an_id_first_in_every_leg_is_first(
    rankings: dict[str, list[str]], winner: str, k: int, data: st.DataObject
) -> None:
    rankings = {leg: [winner, *ranked] for leg, ranked in rankings.items()}
    weights = data.draw(st.fixed_dictionaries({leg: positive_weights for leg in rankings}))
    hits = rrf(rankings, k=k, weights=weights)
    if rankings:
        assert hits[0].id == winner


@given(rankings=legs, extra=st.lists(ids, max_size=12), k=st.integers(0, 100))
def test_adding_a_leg_never_reduces_a_score(rankings: dict[str, list[str]], extra: list[str], k: int) -> None:
    before = {hit.id: hit.score for hit in rrf(rankings, k=k)}
    after = {hit.id: hit.score for hit in rrf({**rankings, "extra-leg": extra}, k=k)}
    assert all(after[item_id] >= score for item_id, score in before.items())


@given(rankings=legs, k=st.integers(0, 100))
def test_output_is_sorted_and_covers_every_id_once(rankings: dict[str, list[str]], k: int) -> None:
    hits = rrf(rankings, k=k)
    assert sorted(hit.id for hit in hits) == sorted({i for ranked in rankings.values() for i in ranked})
    keys = [(-hit.score, hit.best_rank, hit.id) for hit in hits]
    assert keys == sorted(keys)
