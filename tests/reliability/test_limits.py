"""Promise 4, bounds: a smaller ``Limits`` never breaks a call made with defaults, and every bound
refuses with the same error.

- A count the caller did not give (``k`` of recall / context / thinking_queue, ``limit`` of list /
  contradictions / dream_runs) is the built-in default *clamped* to ``Limits.max_k``: lowering the bound must
  not make ``mem.recall(q, scope=s)`` fail. A count the caller did give is never shrunk silently:
  one above the bound raises ``LimitExceededError`` naming the ``Limits`` field.
- Every length bound in ``Limits`` — including ``max_key_chars`` and ``max_scope_chars`` — raises
  ``LimitExceededError`` (code ``limit_exceeded``), which is an ``InvalidInputError``: a caller
  catching the README's "refused input" error catches it, one switching on the code can tell
  "too big, split or raise the limit" from "malformed".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reverie import InvalidInputError, LimitExceededError, Limits, Memory
from reverie.errors import InvalidScopeError

SCOPE = "limits"
SMALL = Limits(max_k=3)


@pytest.fixture
def small(open_mem: Callable[..., Memory]) -> Memory:
    """A memory whose ``max_k`` (3) is below every built-in default count (10, 50, 100)."""
    mem = open_mem(limits=SMALL)
    for i in range(8):
        mem.remember(f"the red kettle number {i} is on shelf {i}", scope=SCOPE, importance=0.9)
    a = mem.remember("Alice drinks tea", scope=SCOPE, key="alice.drink", value="tea")
    b = mem.remember("Alice drinks coffee", scope=SCOPE, key="alice.drink", value="coffee")
    mem.link(a.id, b.id, "contradicts", scope=SCOPE)
    return mem


DEFAULT_CALLS: dict[str, Callable[[Memory], Any]] = {
    "recall": lambda m: m.recall("red kettle shelf", scope=SCOPE),
    "context": lambda m: m.context("red kettle shelf", scope=SCOPE),
    "list": lambda m: m.list(scope=SCOPE).items,
    "thinking_queue": lambda m: m.thinking_queue(scope=SCOPE),
    "contradictions": lambda m: m.contradictions(scope=SCOPE),
    "dream_runs": lambda m: m.dream_runs(scope=SCOPE),
}


@pytest.mark.parametrize("name", sorted(DEFAULT_CALLS))
def test_default_counts_clamp_to_a_smaller_max_k(small: Memory, name: str) -> None:
    result = DEFAULT_CALLS[name](small)
    if name != "context":
        assert len(result) <= SMALL.max_k
    if name in ("recall", "list", "thinking_queue"):
        assert len(result) == SMALL.max_k  # clamped, not emptied: there are more than 3 candidates


def test_a_clamped_list_still_pages_through_everything(small: Memory) -> None:
    seen, cursor = [], None
    while True:
        page = small.list(scope=SCOPE, cursor=cursor)
        assert len(page.items) <= SMALL.max_k
        seen += [i.id for i in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert len(seen) == len(set(seen)) == 10


EXPLICIT_CALLS: dict[str, Callable[[Memory, int], Any]] = {
    "recall": lambda m, n: m.recall("kettle", scope=SCOPE, k=n),
    "context": lambda m, n: m.context("kettle", scope=SCOPE, k=n),
    "list": lambda m, n: m.list(scope=SCOPE, limit=n),
    "thinking_queue": lambda m, n: m.thinking_queue(scope=SCOPE, k=n),
    "contradictions": lambda m, n: m.contradictions(scope=SCOPE, limit=n),
    "dream_runs": lambda m, n: m.dream_runs(scope=SCOPE, limit=n),
}


@pytest.mark.parametrize("name", sorted(EXPLICIT_CALLS))
def test_an_explicit_count_is_accepted_at_the_bound_and_refused_past_it(small: Memory, name: str) -> None:
    EXPLICIT_CALLS[name](small, SMALL.max_k)
    with pytest.raises(LimitExceededError) as info:
        EXPLICIT_CALLS[name](small, SMALL.max_k + 1)
    assert "Limits.max_k (3)" in info.value.message and info.value.code == "limit_exceeded"


@pytest.mark.parametrize("name", sorted(EXPLICIT_CALLS))
@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "3"])
def test_a_count_that_is_not_a_positive_int_is_invalid_input(small: Memory, name: str, bad: Any) -> None:
    with pytest.raises(InvalidInputError) as info:
        EXPLICIT_CALLS[name](small, bad)
    assert type(info.value) is InvalidInputError and "positive int" in info.value.message


LENGTHS: dict[str, tuple[str, Callable[[Memory, int], Any]]] = {
    "key": ("max_key_chars", lambda m, n: m.remember("x", scope=SCOPE, key="k" * n, value="v")),
    "scope": ("max_scope_chars", lambda m, n: m.remember("x", scope="s" * n)),
    "text": ("max_text_chars", lambda m, n: m.remember("t" * n, scope=SCOPE)),
    "tag": ("max_tag_chars", lambda m, n: m.remember("x", scope=SCOPE, tags=["t" * n])),
    "query": ("max_query_chars", lambda m, n: m.recall("q" * n, scope=SCOPE)),
}


@pytest.mark.parametrize("field", sorted(LENGTHS))
def test_every_length_bound_raises_limit_exceeded_naming_the_field(mem: Memory, field: str) -> None:
    bound_name, call = LENGTHS[field]
    bound = getattr(mem.limits, bound_name)
    call(mem, bound)  # at the bound: accepted
    with pytest.raises(LimitExceededError) as info:
        call(mem, bound + 1)
    err = info.value
    assert isinstance(err, InvalidInputError), "a refused input is always an InvalidInputError"
    assert err.code == "limit_exceeded" and f"Limits.{bound_name}" in err.message, err.message


def test_a_malformed_key_or_scope_is_still_invalid_not_over_the_limit(mem: Memory) -> None:
    with pytest.raises(InvalidInputError) as key:
        mem.remember("x", scope=SCOPE, key="has space", value="v")
    assert type(key.value) is InvalidInputError
    with pytest.raises(InvalidScopeError):
        mem.remember("x", scope="has space")


# -- the event log ---------------------------------------------------------------------------------
def test_limits_has_a_max_events_bound_validated_like_the_others() -> None:
    assert Limits().max_events == 100_000
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match=r"Limits\.max_events"):
            Limits(max_events=bad)  # type: ignore[arg-type]


def test_events_without_a_limit_clamp_to_a_smaller_max_events(open_mem: Callable[..., Memory]) -> None:
    """Regression: ``events`` had its own fixed bound (100000) outside ``Limits`` and a default page
    (1000) that no ``Limits`` could lower; now the default is clamped like ``max_k``'s counts."""
    mem = open_mem(limits=Limits(max_events=2))
    for i in range(5):
        mem.remember(f"note {i}", scope=SCOPE)
    first = mem.events(scope=SCOPE)
    assert len(first) == 2
    seen, after = [], 0
    while batch := mem.events(scope=SCOPE, after_seq=after):
        seen += [e.seq for e in batch]
        after = batch[-1].seq
    assert len(seen) == len(set(seen)) == 5


def test_an_explicit_events_limit_past_max_events_is_limit_exceeded(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(limits=Limits(max_events=2))
    mem.remember("a note", scope=SCOPE)
    assert len(mem.events(scope=SCOPE, limit=2)) == 1  # at the bound: accepted
    with pytest.raises(LimitExceededError) as info:
        mem.events(scope=SCOPE, limit=3)
    assert info.value.code == "limit_exceeded" and "Limits.max_events (2)" in info.value.message
    assert "after_seq" in info.value.message, "the message says how to read on"


def test_the_default_max_events_still_refuses_a_limit_past_it(mem: Memory) -> None:
    with pytest.raises(LimitExceededError, match=r"Limits\.max_events"):
        mem.events(scope=SCOPE, limit=mem.limits.max_events + 1)


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "3"])
def test_an_events_limit_that_is_not_a_positive_int_is_invalid_input(mem: Memory, bad: Any) -> None:
    with pytest.raises(InvalidInputError) as info:
        mem.events(scope=SCOPE, limit=bad)
    assert type(info.value) is InvalidInputError and "positive int" in info.value.message
