"""Regression: ``recall(options=RecallOptions(...))`` skipped the checks the keyword path makes.

``Memory.recall`` validated ``query`` and ``k`` (and mode, tiers, …) only when it built the
options itself; a caller passing ``options=`` reached the engine with ``k=0`` (an empty answer
instead of an error), ``k`` far above ``Limits.max_k``, or a query of any length.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import InvalidInputError, LimitExceededError, Memory
from reverie.recall.engine import RecallOptions

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
