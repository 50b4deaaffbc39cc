"""The query algebra (``reverie.Q``): every filter, sort and page, on both backends.

Hand-built populations pin the meaning of each filter; a Hypothesis test then checks that
random filters and sorts over random populations give identical id lists on the SQLite
compiler and the reference store's Python evaluator.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import Filter, InvalidInputError, InvalidQueryError, ManualClock, Memory, Q
from reverie.store.reference import ReferenceStore
from strategies import SCOPE, START, build_population, filters, population_plan, sorts, state_of


@dataclass
class Pop:
    """A small hand-built population; attributes are item ids."""

    mem: Memory
    clock: ManualClock
    a: str
    b: str
    c: str
    d: str
    gone: str
    wrong: str
    old: str
    new: str
    snapshot: dict[str, Any]

    def ids(self, where: Filter, *, include_closed: bool = False, **kwargs: Any) -> set[str]:
        page = self.mem.list(scope=SCOPE, where=where, include_closed=include_closed, limit=1000, **kwargs)
        return {i.id for i in page.items}

    def name(self, ids: set[str] | list[str]) -> Any:
        names = {getattr(self, n): n for n in ("a", "b", "c", "d", "gone", "wrong", "old", "new")}
        return sorted(names[i] for i in ids) if isinstance(ids, set) else [names[i] for i in ids]


@pytest.fixture(scope="module", params=["sqlite", "reference"])
def pop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pop]:
    """Built once per backend and module: every test using it only reads."""
    clock = ManualClock(START)
    if request.param == "sqlite":
        m = Memory(tmp_path_factory.mktemp("pop") / "pop.db", embedder="hash", clock=clock, seed=0)
    else:
        m = Memory(store=ReferenceStore(), embedder="hash", clock=clock, seed=0)
    with m:
        population = _populate(m, clock)
        yield population
        assert state_of(m) == population.snapshot, "a read-only test changed the population"
        report = m.doctor()
        assert report.ok, report.problems


def _populate(m: Memory, clock: ManualClock) -> Pop:
    a = m.remember(
        "Alice likes tea",
        scope=SCOPE,
        kind="assertion",
        source="user_stated",
        tags=["food", "health"],
        key="alice.drink",
        value="tea",
        author="alice",
        meta={"flag": True, "n": 1, "s": "1", "nested": {"x": 1.5}},
        importance=0.9,
        confidence=0.9,
        durability=0.2,
        scores={"value": 0.1},
    ).id
    clock.advance(hours=1)
    b = m.remember(
        "Bob likes coffee",
        scope=SCOPE,
        tags=["food"],
        meta={"flag": 1, "n": 1.0, "nested": {"x": "1.5"}},
        importance=0.5,
        valid_from=START - timedelta(days=10),
        author="agent",
    ).id
    clock.advance(hours=1)
    c = m.remember(
        "Carol runs daily",
        scope=SCOPE,
        kind="policy",
        source="inferred",
        tags=["health"],
        meta={"flag": False, "n": None},
        importance=0.5,
        parents=[a, b],
        key="carol.habit",
        value="running",
    ).id
    clock.advance(hours=1)
    d = m.remember("Dan is tired", scope=SCOPE, kind="episodic", parents=[a], importance=0.1).id
    gone = m.remember("Eve left", scope=SCOPE).id
    wrong = m.remember("Frank is a cat", scope=SCOPE).id
    old = m.remember("Gina is 30", scope=SCOPE).id
    clock.advance(hours=1)
    m.forget(gone, scope=SCOPE)
    m.dismiss(wrong, scope=SCOPE)
    new = m.revise(old, "Gina is 31", scope=SCOPE).id
    m.set_tier(b, "subconscious", scope=SCOPE)
    m.flag(c, scope=SCOPE, add=["hub"])
    m.promote(d, scope=SCOPE, to="manual")
    m.remember("alice likes tea!", scope=SCOPE)  # corroborates a
    m.remember("Not in this scope", scope="user:bob", kind="assertion", tags=["food"])
    return Pop(m, clock, a, b, c, d, gone, wrong, old, new, state_of(m))


CURRENT = ["a", "b", "c", "d", "new"]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: Q.all(), CURRENT),
        (lambda p: Q.kind("assertion", "policy"), ["a", "c"]),
        (lambda p: Q.kind(), []),
        (lambda p: Q.source("inferred"), ["c"]),
        (lambda p: Q.source("manual"), ["d"]),
        (lambda p: Q.source("user_stated", "observed"), ["a", "b", "new"]),
        (lambda p: Q.tier("subconscious"), ["b"]),
        (lambda p: Q.tier("active", "durable"), ["a", "c", "d", "new"]),
        (lambda p: Q.flag("hub"), ["c"]),
        (lambda p: ~Q.flag("hub"), ["a", "b", "d", "new"]),
        (lambda p: Q.tag("health"), ["a", "c"]),
        (lambda p: Q.tag("HEALTH"), []),
        (lambda p: Q.tags_any("food", "health"), ["a", "b", "c"]),
        (lambda p: Q.tags_any(), []),
        (lambda p: ~Q.tag("food"), ["c", "d", "new"]),
        (lambda p: Q.ids(p.a, p.c, p.gone), ["a", "c"]),
        (lambda p: Q.ids(), []),
        (lambda p: Q.key("alice.drink"), ["a"]),
        (lambda p: ~Q.key("alice.drink"), ["b", "c", "d", "new"]),
        (lambda p: Q.author("alice"), ["a"]),
        (lambda p: ~Q.author("alice"), ["b", "c", "d", "new"]),
        (lambda p: Q.evidence(ge=2), ["a"]),
        (lambda p: Q.evidence(le=1), ["b", "c", "d", "new"]),
        (lambda p: Q.parent(p.a), ["c", "d"]),
        (lambda p: Q.parent(p.b), ["c"]),
        (lambda p: Q.parents_count(ge=2), ["c"]),
        (lambda p: Q.parents_count(le=0), ["a", "b", "new"]),
        (lambda p: Q.parents_count(ge=1, le=1), ["d"]),
        (lambda p: Q.meta("flag", True), ["a"]),  # True is not 1 ...
        (lambda p: Q.meta("flag", 1), ["b"]),  # ... and 1 is not True
        (lambda p: Q.meta("flag", False), ["c"]),
        (lambda p: Q.meta("flag", 0), []),
        (lambda p: Q.meta("n", 1), ["a", "b"]),  # 1 == 1.0 as numbers
        (lambda p: Q.meta("n", 1.0), ["a", "b"]),
        (lambda p: Q.meta("s", "1"), ["a"]),  # "1" is a string ...
        (lambda p: Q.meta("s", 1), []),  # ... never equal to a number
        (lambda p: Q.meta("n", None), ["c"]),  # JSON null, not "missing"
        (lambda p: Q.meta("nested.x", 1.5), ["a"]),
        (lambda p: Q.meta("nested.x", "1.5"), ["b"]),
        (lambda p: ~Q.meta("flag", True), ["b", "c", "d", "new"]),
        (lambda p: ~Q.meta("n", None), ["a", "b", "d", "new"]),
        (lambda p: Q.meta_has("n"), ["a", "b", "c"]),
        (lambda p: Q.meta_has("nested.x"), ["a", "b"]),
        (lambda p: Q.meta_has("nested.y"), []),
        (lambda p: ~Q.meta_has("flag"), ["d", "new"]),
        (lambda p: Q.kind("assertion") | Q.tag("health"), ["a", "c"]),
        (lambda p: Q.tag("food") & ~Q.kind("assertion"), ["b"]),
        (lambda p: ~(Q.tag("food") | Q.tag("health")), ["d", "new"]),
        (lambda p: ~~Q.tag("food"), ["a", "b"]),
        (lambda p: (Q.kind("policy") | Q.key("alice.drink")) & Q.score("importance", ge=0.9), ["a"]),
        (lambda p: Q.scope("user:alice"), CURRENT),
        (lambda p: Q.scope("user:bob"), []),
    ],
)
def test_filter_selects_expected_items(pop: Pop, make: Any, expected: list[str]) -> None:
    assert pop.name(pop.ids(make(pop))) == sorted(expected)


SCORE_CASES = [
    ("importance", {"ge": 0.5}, ["a", "b", "c", "new"]),
    ("importance", {"gt": 0.5}, ["a"]),
    ("importance", {"le": 0.5}, ["b", "c", "d", "new"]),
    ("importance", {"lt": 0.5}, ["d"]),
    ("importance", {"ge": 0.1, "lt": 0.9}, ["b", "c", "d", "new"]),
    ("confidence", {"ge": 0.9}, ["a"]),
    ("durability", {"lt": 0.5}, ["a"]),
    ("authority", {"ge": 1.0}, ["d"]),  # promoted to manual
    ("authority", {"le": 0.4}, ["c"]),  # inferred
    ("value", {"le": 0.1}, ["a"]),
    ("version", {"ge": 2}, CURRENT),  # every current item changed once (or is a second version)
    ("version", {"gt": 2}, []),
    ("use_count", {"ge": 0}, CURRENT),
    ("evidence_count", {"gt": 1}, ["a"]),
]


@pytest.mark.parametrize(("name", "bounds", "expected"), SCORE_CASES)
def test_range_on_every_number(pop: Pop, name: str, bounds: dict[str, float], expected: list[str]) -> None:
    got = pop.ids(Q.score(name, **bounds))
    oracle = {i.id for i in pop.mem.list(scope=SCOPE, limit=1000).items if Q.score(name, **bounds).matches(i)}
    assert got == oracle
    assert pop.name(got) == sorted(expected)


def test_time_ranges_on_record_and_valid_time(pop: Pop) -> None:
    t0 = START
    assert pop.name(pop.ids(Q.recorded(since=t0 + timedelta(hours=1), until=t0 + timedelta(hours=3)))) == ["b", "c"]
    assert pop.name(pop.ids(Q.recorded(until=t0 + timedelta(minutes=1)))) == ["a"]
    assert pop.name(pop.ids(Q.recorded(since=t0 + timedelta(hours=4)))) == ["new"]
    # valid_from is set on b only: an unset field never matches a time range
    assert pop.name(pop.ids(Q.valid(since=t0 - timedelta(days=30)))) == ["b"]
    assert pop.name(pop.ids(Q.valid(until=t0))) == ["b"]
    assert pop.name(pop.ids(~Q.valid(until=t0))) == ["a", "c", "d", "new"]
    closed = Q.time("closed_at", since=t0 + timedelta(hours=4))
    assert pop.name(pop.ids(closed, include_closed=True)) == ["gone", "old", "wrong"]
    assert pop.ids(closed) == set()
    assert pop.name(pop.ids(Q.time("valid_to", since=t0), include_closed=True)) == ["gone"]
    assert pop.name(pop.ids(Q.time("updated_at", since=t0 + timedelta(hours=4)))) == ["a", "b", "c", "d", "new"]


def test_status_filters_see_closed_items_only_with_include_closed(pop: Pop) -> None:
    assert pop.ids(Q.status("forgotten")) == set()
    assert pop.name(pop.ids(Q.status("forgotten"), include_closed=True)) == ["gone"]
    assert pop.name(pop.ids(Q.status("dismissed"), include_closed=True)) == ["wrong"]
    assert pop.name(pop.ids(Q.status("superseded"), include_closed=True)) == ["old"]
    assert pop.name(pop.ids(~Q.status("live"), include_closed=True)) == ["gone", "old", "wrong"]
    assert len(pop.ids(Q.all(), include_closed=True)) == 8


def test_subscopes_read_child_scopes_only(any_mem: Memory) -> None:
    for scope in [
        "team:acme",
        "team:acme/x",
        "team:acme/x/y",
        "team:acme-other",
        "team:acme.x",
        "team:acme0",
        "team:acm",
    ]:
        any_mem.remember(f"in {scope}", scope=scope)
    got = any_mem.list(scope="team:acme", subscopes=True, sort="id").items
    assert sorted(i.scope for i in got) == ["team:acme", "team:acme/x", "team:acme/x/y"]
    assert [i.scope for i in any_mem.list(scope="team:acme").items] == ["team:acme"]
    nested = any_mem.list(scope="team:acme/x", subscopes=True).items
    assert sorted(i.scope for i in nested) == ["team:acme/x", "team:acme/x/y"]
    assert [i.scope for i in any_mem.list(scope="team:acme", subscopes=True, where=Q.scope("team:acme/x")).items] == [
        "team:acme/x"
    ]


# -- sorting and paging ---------------------------------------------------------------------------


def test_multi_key_sort_with_stable_tie_break(pop: Pop) -> None:
    got = pop.mem.list(scope=SCOPE, sort=["-importance", "kind"], limit=100).items
    # importance: a .9; b, c, new .5; d .1 — ties broken by kind, then id
    assert pop.name([i.id for i in got]) == ["a", "b", "new", "c", "d"]
    asc = pop.mem.list(scope=SCOPE, sort=["importance", "-recorded_at"], limit=100).items
    assert pop.name([i.id for i in asc]) == ["d", "new", "c", "b", "a"]


def test_sort_puts_nulls_last_in_both_directions(pop: Pop) -> None:
    asc = pop.mem.list(scope=SCOPE, sort="key", limit=100).items
    desc = pop.mem.list(scope=SCOPE, sort="-key", limit=100).items
    assert [i.key for i in asc] == ["alice.drink", "carol.habit", None, None, None]
    assert [i.key for i in desc] == ["carol.habit", "alice.drink", None, None, None]
    nulls = [i.id for i in asc if i.key is None]
    assert nulls == sorted(nulls)  # the id tie-break orders the NULL group
    valid = pop.mem.list(scope=SCOPE, sort="-valid_from", limit=100).items
    assert valid[0].id == pop.b and all(i.valid_from is None for i in valid[1:])


def test_sort_by_id_descending_needs_no_tie_break(pop: Pop) -> None:
    got = [i.id for i in pop.mem.list(scope=SCOPE, sort="-id", include_closed=True, limit=100).items]
    assert got == sorted(got, reverse=True)


def test_default_sort_is_recorded_at_then_id(pop: Pop) -> None:
    got = pop.mem.list(scope=SCOPE, include_closed=True, limit=100).items
    assert [(i.recorded_at, i.id) for i in got] == sorted((i.recorded_at, i.id) for i in got)


@pytest.mark.parametrize("page_size", [1, 2, 3, 7, 8, 50])
@pytest.mark.parametrize("sort", [None, ["-importance"], ["tier", "-key"]])
def test_paging_covers_every_item_exactly_once(pop: Pop, page_size: int, sort: list[str] | None) -> None:
    full = [i.id for i in pop.mem.list(scope=SCOPE, sort=sort, include_closed=True, limit=1000).items]
    seen: list[str] = []
    cursor = None
    for _ in range(20):
        page = pop.mem.list(scope=SCOPE, sort=sort, include_closed=True, limit=page_size, cursor=cursor)
        assert len(page.items) <= page_size
        seen += [i.id for i in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == full and len(full) == 8


def test_last_page_has_no_cursor(pop: Pop) -> None:
    page = pop.mem.list(scope=SCOPE, limit=5)
    assert len(page.items) == 5 and page.next_cursor is None


@pytest.mark.parametrize(
    "bad",
    [
        lambda m: m.list(scope=SCOPE, sort="bogus"),
        lambda m: m.list(scope=SCOPE, sort=["-"]),
        lambda m: m.list(scope=SCOPE, sort=[""]),
        lambda m: m.list(scope=SCOPE, sort=[None]),
        lambda m: m.list(scope=SCOPE, sort=["text"]),
        lambda m: m.list(scope=SCOPE, where={"kind": "x"}),
        lambda m: m.list(scope=SCOPE, where="1=1"),
    ],
)
def test_invalid_sort_or_filter_is_invalid_query(any_mem: Memory, bad: Any) -> None:
    with pytest.raises(InvalidQueryError):
        bad(any_mem)


@pytest.mark.parametrize("cursor", ["", "%%%", "eyJ4IjogMX0=", "W10=", "eyJvIjogIjEifQ==", "\ud800"])
def test_invalid_cursor_is_invalid_input(any_mem: Memory, cursor: str) -> None:
    with pytest.raises(InvalidInputError):
        any_mem.list(scope=SCOPE, cursor=cursor)


def test_filter_values_are_bound_never_spliced(any_mem: Memory) -> None:
    any_mem.remember("x", scope=SCOPE, tags=["a'); DROP TABLE items; --"], meta={"k": "' OR 1=1 --"})
    assert len(any_mem.list(scope=SCOPE, where=Q.tag("a'); DROP TABLE items; --")).items) == 1
    assert len(any_mem.list(scope=SCOPE, where=Q.meta("k", "' OR 1=1 --")).items) == 1
    assert any_mem.list(scope=SCOPE, where=Q.kind("' OR 1=1 --")).items == []
    assert len(any_mem.list(scope=SCOPE).items) == 1


# -- the SQLite compiler agrees with the reference evaluator --------------------------------------------


def _pair(tmp: str) -> tuple[Memory, Memory, ManualClock, ManualClock]:
    sqlite_clock, ref_clock = ManualClock(START), ManualClock(START)
    lite = Memory(Path(tmp) / "q.db", embedder="hash", clock=sqlite_clock, seed=0, durability="fast")
    ref = Memory(store=ReferenceStore(), embedder="hash", clock=ref_clock, seed=0)
    return lite, ref, sqlite_clock, ref_clock


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=population_plan(), data=st.data())
def test_random_filters_agree_on_sqlite_and_reference(plan: list[dict[str, Any]], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        lite, ref, lite_clock, ref_clock = _pair(tmp)
        try:
            created = build_population(lite, plan, lite_clock)
            assert build_population(ref, plan, ref_clock) == created
            everything = ref.list(scope=SCOPE, include_closed=True, limit=1000).items
            times = sorted({t for i in everything for t in (i.recorded_at, i.updated_at, i.valid_from) if t})
            times += [START - timedelta(days=40), START + timedelta(days=40)]
            for _ in range(8):
                where = data.draw(filters(created, times), label="filter")
                sort = data.draw(sorts(), label="sort")
                include_closed = data.draw(st.booleans(), label="include_closed")
                args = {"scope": SCOPE, "where": where, "sort": sort, "include_closed": include_closed, "limit": 1000}
                got = [i.id for i in lite.list(**args).items]
                assert got == [i.id for i in ref.list(**args).items]
                # current truth: believed, and valid now by the Memory's clock (finding 9)
                now = Q.valid_at(lite_clock.now())
                pool = everything if include_closed else [i for i in everything if i.is_current and now.matches(i)]
                assert set(got) == {i.id for i in pool if where.matches(i)}
            assert lite.doctor().ok
        finally:
            lite.close()
            ref.close()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: Q.tier("active", "subconcious"),
            "unknown tier 'subconcious'; use one of active, durable, subconscious",
        ),
        (lambda: Q.source("user"), "unknown source 'user'; use one of"),
        (lambda: Q.status("alive"), "unknown status 'alive'; use one of"),
    ],
)
def test_a_value_outside_a_closed_set_is_a_typo_not_an_empty_filter(build: Any, message: str) -> None:
    """Source, tier and status have fixed values: a misspelt one would silently match nothing."""
    from reverie.errors import InvalidQueryError

    with pytest.raises(InvalidQueryError, match=message.replace("(", r"\(")):
        build()


def test_the_json_form_names_where_the_unknown_tier_is() -> None:
    from reverie.errors import InvalidQueryError
    from reverie.model.query_json import parse_filter

    with pytest.raises(InvalidQueryError, match=r"where\.and\[1\].*unknown tier 'attic'"):
        parse_filter({"and": [{"kind": "trait"}, {"tier": "attic"}]})


def test_the_json_tag_takes_a_list_meaning_any_of_them(pop: Pop) -> None:
    """``{"tag": [...]}`` is ``tags_any``, as a list of kinds is any of them: the recall shortcut ``tag`` is
    this key said shorter (h-facespell), so it must mean the same; an empty list is refused, not "no tag"."""
    from reverie.errors import InvalidQueryError
    from reverie.model.query_json import parse_filter

    listed = pop.ids(parse_filter({"tag": ["health", "food"]}))
    assert listed == pop.ids(Q.tags_any("health", "food")) and listed > pop.ids(Q.tag("health") & Q.tag("food"))
    with pytest.raises(InvalidQueryError, match=r"where\.tag must be a string or a non-empty list of strings"):
        parse_filter({"tag": []})
