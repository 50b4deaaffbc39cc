"""``list()`` cursors are keyset cursors: changes between pages never skip or repeat a live item.

Probe 5 #4: the cursor was an offset, so an agent that forgot each item after handling it saw
20 of 30 (each forgotten row shifted the next page forward by one), and items inserted ahead of
the cursor came back twice. The property test pages through a scope with random inserts and
forgets between pages, in random sort orders (NULL keys, ties broken by id), on a real SQLite
file, the reference store and PostgreSQL, and checks every item live throughout the walk is
returned exactly once and no item twice. A cursor that is malformed or made for another
listing is refused with ``invalid_input`` instead of silently paging the wrong rows.
"""

from __future__ import annotations

import base64
import itertools
import json
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import InvalidInputError, ManualClock, Memory, Q
from strategies import START

#: Sort orders over fields a live item never changes while the walk forgets and inserts others
#: (``key`` and ``valid_from`` are NULL for some items: NULLs sort last either way).
SORTS = ["recorded_at", "-recorded_at", "-importance", "importance", "key", "-key", "-valid_from", "id", "-id"]
SORTS_2 = [["-importance", "recorded_at"], ["kind", "-key"], ["-valid_from", "-importance"]]
_scopes = itertools.count()

# One page walk: how many items at first, the sort, the page size, and what happens after each page.
step = st.tuples(st.integers(0, 4), st.integers(0, 3), st.booleans())  # inserts, forgets, advance the clock
walk = st.fixed_dictionaries(
    {
        "start": st.integers(0, 25),
        "sort": st.sampled_from([*SORTS, *SORTS_2]),
        "limit": st.integers(1, 7),
        "steps": st.lists(step, min_size=1, max_size=12),
        "seed": st.integers(0, 2**16),
    }
)


def _add(mem: Memory, scope: str, clock: ManualClock, n: int, counter: itertools.count[int]) -> list[str]:
    """``n`` distinct claims with varied importance, NULL or set keys, kinds and valid_from."""
    rows = []
    for _ in range(n):
        k = next(counter)
        row: dict[str, object] = {"text": f"todo number {k} for the walk", "importance": (k * 37 % 5) / 4}
        if k % 3:
            row["key"] = f"key.{k * 7 % 11:02d}.{k}"
        if k % 4 == 0:
            row["kind"] = "policy"
        if k % 2:
            row["valid_from"] = START - timedelta(days=k % 3)
        rows.append(row)
    return [i.id for i in mem.remember_many(rows, scope=scope)] if rows else []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(w=walk)
def test_paging_with_inserts_and_forgets_between_pages_returns_every_live_item_once(
    any_mem: Memory, clock: ManualClock, w: dict
) -> None:
    mem, scope = any_mem, f"walk{next(_scopes)}"
    counter = itertools.count()
    initial = set(_add(mem, scope, clock, w["start"], counter))
    live = set(initial)
    forgotten: set[str] = set()
    seen: list[str] = []
    cursor = None
    steps = iter(w["steps"])
    for _ in range(200):  # a walk ends; the bound only stops a broken cursor from looping
        page = mem.list(scope=scope, sort=w["sort"], limit=w["limit"], cursor=cursor)
        seen += [i.id for i in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
        inserts, forgets, tick = next(steps, (0, 0, False))
        if tick:
            clock.advance(seconds=1)
        live |= set(_add(mem, scope, clock, inserts, counter))
        for victim in sorted(live - forgotten, key=lambda i: hash((i, w["seed"])))[:forgets]:
            mem.forget(victim, scope=scope, reason="handled")
            forgotten.add(victim)
    else:
        pytest.fail("paging did not end")
    assert len(seen) == len(set(seen)), "an item was returned twice"
    # Live for the whole walk: there at the start, never forgotten. Items inserted during the walk
    # may or may not be reached (they may sort before the cursor), but never twice.
    missing = initial - forgotten - set(seen)
    assert not missing, f"{len(missing)} items live for the whole walk were never returned"


def test_forgetting_each_item_after_handling_it_still_sees_every_item(any_mem: Memory) -> None:
    mem, scope = any_mem, "todo"
    ids = [i.id for i in mem.remember_many([{"text": f"todo number {n}"} for n in range(30)], scope=scope)]
    seen, cursor = [], None
    while True:
        page = mem.list(scope=scope, limit=10, cursor=cursor)
        for item in page.items:
            seen.append(item.id)
            mem.forget(item.id, scope=scope, reason="processed")
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids)


def test_items_inserted_ahead_of_the_cursor_are_not_returned_twice(any_mem: Memory, clock: ManualClock) -> None:
    mem, scope = any_mem, "news"
    mem.remember_many([{"text": f"old note number {n}"} for n in range(20)], scope=scope)
    seen, cursor, n = [], None, 0
    while True:
        page = mem.list(scope=scope, sort="-recorded_at", limit=5, cursor=cursor)
        seen += [i.id for i in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
        clock.advance(seconds=1)
        mem.remember_many([{"text": f"new note number {n + k}"} for k in range(3)], scope=scope)
        n += 3
    assert len(seen) == len(set(seen)) == 20  # the new ones sort before the cursor: not reached, not repeated


def _cursor_of(mem: Memory, scope: str, **kwargs: object) -> str:
    page = mem.list(scope=scope, limit=1, **kwargs)  # type: ignore[arg-type]
    assert page.next_cursor is not None
    return page.next_cursor


@pytest.mark.parametrize(
    "cursor",
    [
        "not base64 !",
        "",
        base64.urlsafe_b64encode(json.dumps({"o": 1}).encode()).decode(),  # an old offset cursor
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        "A" * 100_000,
    ],
)
def test_a_malformed_cursor_is_refused_clearly(mem: Memory, cursor: str) -> None:
    mem.remember_many([{"text": "one"}, {"text": "two"}], scope="s")
    with pytest.raises(InvalidInputError, match="pass the previous page's next_cursor back unchanged"):
        mem.list(scope="s", cursor=cursor)


def test_an_edited_sort_key_in_a_cursor_is_refused(mem: Memory) -> None:
    mem.remember_many([{"text": "one"}, {"text": "two"}], scope="s")
    doc = json.loads(base64.urlsafe_b64decode(_cursor_of(mem, "s")))
    for bad in ([1, 2], ["yesterday", "x"], [None, None], [doc["k"][0]]):
        forged = base64.urlsafe_b64encode(json.dumps({**doc, "k": bad}).encode()).decode()
        with pytest.raises(InvalidInputError, match="cursor is not one this store issued"):
            mem.list(scope="s", cursor=forged)


@pytest.mark.parametrize(
    "other",
    [
        {"scope": "t"},
        {"sort": "-importance"},
        {"where": Q.kind("policy")},
        {"include_closed": True},
        {"subscopes": True},
        {"valid_at": START},
    ],
)
def test_a_cursor_from_another_listing_is_refused(mem: Memory, other: dict) -> None:
    for scope in ("s", "t"):
        mem.remember_many([{"text": "one"}, {"text": "two"}, {"text": "three"}], scope=scope)
    cursor = _cursor_of(mem, "s")
    args: dict = {"scope": "s", **other}
    with pytest.raises(InvalidInputError, match="cursor belongs to another listing"):
        mem.list(cursor=cursor, **args)
    assert len(mem.list(scope="s", cursor=cursor, limit=5).items) == 2  # the same listing pages on


def test_the_page_size_may_change_between_pages(mem: Memory) -> None:
    ids = [i.id for i in mem.remember_many([{"text": f"note {n}"} for n in range(9)], scope="s")]
    first = mem.list(scope="s", limit=2)
    rest = mem.list(scope="s", limit=50, cursor=first.next_cursor)
    assert [i.id for i in first.items + rest.items] == [i.id for i in mem.list(scope="s").items]
    assert sorted(i.id for i in first.items + rest.items) == sorted(ids)
