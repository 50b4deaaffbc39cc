"""Regression: ``recall(options=RecallOptions(...))`` skipped the checks the keyword path makes.

``Memory.recall`` validated ``query`` and ``k`` (and mode, tiers, …) only when it built the
options itself; a caller passing ``options=`` reached the engine with ``k=0`` (an empty answer
instead of an error), ``k`` far above ``Limits.max_k``, or a query of any length.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import InvalidInputError, LimitExceededError, Limits, Memory
from reverie.recall.engine import RecallOptions, max_pool

S = "user:opts"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "m.db", embedder="hash", seed=1) as m:
        m.remember("Alice keeps a red bicycle", scope=S, kind="observation")
        yield m


@pytest.mark.parametrize("k", [0, -3, True, 2.5])
def test_options_with_invalid_k_are_refused(mem: Memory, k: object) -> None:
    with pytest.raises(InvalidInputError, match="k must be"):
        mem.recall("bicycle", scope=S, options=RecallOptions(k=k))  # type: ignore[arg-type]


def test_options_with_k_above_the_limit_are_refused(mem: Memory) -> None:
    with pytest.raises(LimitExceededError, match="max_k"):
        mem.recall("bicycle", scope=S, options=RecallOptions(k=mem.limits.max_k + 1))


def test_options_do_not_bypass_the_query_checks(mem: Memory) -> None:
    with pytest.raises(LimitExceededError, match="max_query_chars"):
        mem.recall("bicycle " * mem.limits.max_query_chars, scope=S, options=RecallOptions())
    with pytest.raises(InvalidInputError):
        mem.recall(None, scope=S, options=RecallOptions())  # type: ignore[arg-type]


def test_options_with_an_unknown_mode_are_refused(mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="mode"):
        mem.recall("bicycle", scope=S, options=RecallOptions(mode="fuzzy"))  # type: ignore[arg-type]


def test_valid_options_are_used_as_given(mem: Memory) -> None:
    hits = mem.recall("bicycle", scope=S, record_use=False, options=RecallOptions(k=1, pool=7))
    assert [h.item.text for h in hits] == ["Alice keeps a red bicycle"]


# Regression: ``pool`` (candidates per leg) was not checked at all, so ``pool=0`` answered nothing,
# a negative pool reached the store's LIMIT and a huge one read and scored the whole scope.
@pytest.mark.parametrize("pool", [0, -5, True, 2.5, "100", None])
def test_options_with_an_invalid_pool_are_refused(mem: Memory, pool: object) -> None:
    with pytest.raises(InvalidInputError, match="pool must be a positive int") as info:
        mem.recall("bicycle", scope=S, options=RecallOptions(pool=pool))  # type: ignore[arg-type]
    assert type(info.value) is InvalidInputError


def test_options_with_a_pool_past_its_bound_are_limit_exceeded(mem: Memory) -> None:
    bound = max_pool(mem.limits)
    assert bound == 5 * mem.limits.max_k, "the widest pool the keyword path gives any k it accepts"
    mem.recall("bicycle", scope=S, record_use=False, options=RecallOptions(pool=bound))  # at the bound
    with pytest.raises(LimitExceededError) as info:
        mem.recall("bicycle", scope=S, options=RecallOptions(pool=bound + 1))
    assert info.value.code == "limit_exceeded" and "Limits.max_k" in info.value.message, info.value.message


def test_the_pool_bound_follows_a_smaller_max_k_but_never_drops_below_the_keyword_default(tmp_path: Path) -> None:
    with Memory(tmp_path / "small.db", embedder="hash", limits=Limits(max_k=3)) as small:
        small.remember("Alice keeps a red bicycle", scope=S)
        assert max_pool(small.limits) == 100  # recall(q, scope=s, k=3) itself uses pool 100
        assert small.recall("bicycle", scope=S, options=RecallOptions(k=3, pool=100))
        with pytest.raises(LimitExceededError):
            small.recall("bicycle", scope=S, options=RecallOptions(k=3, pool=101))
