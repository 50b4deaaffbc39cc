"""Hypothesis strategies and snapshot helpers for the belief-store suite.

Strategies generate what a caller can legitimately send (storable text, JSON meta, whole
populations of claims, query-algebra filters); ``state_of`` captures everything a scope's
reads can observe, so two stores (or one store before and after a rebuild) can be compared
with a single ``==``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from reverie import Filter, Memory, Q
from reverie.model.item import CANDIDATE_SOURCES, EDGE_TYPES, TIERS
from reverie.model.query import SCORE_FIELDS, SORT_FIELDS, TIME_FIELDS

START = datetime(2025, 1, 1, tzinfo=UTC)
SCOPE = "user:alice"
OTHER_SCOPE = "user:bob"

# -- text -------------------------------------------------------------------------------------

#: Every code point except the two classes reverie refuses to store: NUL and lone surrogates.
storable_chars = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")

#: Text that is hard to store byte-exact: bidi controls, combining marks, 4-byte emoji, ZWJ.
TRICKY_PIECES = [
    "\u202eevil\u202c",  # right-to-left override
    "\u2067مرحبا\u2069",  # first-strong isolate around Arabic
    "e\u0301\u0301",  # stacked combining acute accents
    "\U0001f9e0",  # brain emoji (4 bytes in UTF-8)
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # ZWJ family sequence
    "\ufeff",  # byte-order mark inside text
    "\u00a0",  # no-break space
    "\r\n\t",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",  # mathematical fraktur (NFKC folds it: storage must not)
    "ﬁ",  # ligature (NFKC folds it too)
    "'; DROP TABLE items; --",
]


def storable_text(max_size: int = 200) -> st.SearchStrategy[str]:
    """Non-blank Unicode that reverie must store and return byte for byte."""
    pieces = st.one_of(st.text(storable_chars, min_size=1, max_size=20), st.sampled_from(TRICKY_PIECES))
    return (
        st.lists(pieces, min_size=1, max_size=8).map("".join).filter(lambda s: bool(s.strip()) and len(s) <= max_size)
    )


# -- JSON meta --------------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # unbounded: JSON text keeps big integers exact
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(storable_chars, max_size=20),
)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def json_meta(max_depth: int = 8) -> st.SearchStrategy[dict[str, Any]]:
    """Arbitrary JSON objects within the default ``Limits`` (depth counts the top object)."""
    values = st.recursive(
        json_scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.text(storable_chars, max_size=10), inner, max_size=4),
        ),
        max_leaves=12,
    )
    return st.dictionaries(st.text(storable_chars, max_size=10), values, max_size=5).filter(
        lambda d: _depth(d) <= max_depth
    )


# -- observable state ---------------------------------------------------------------------------


def state_of(mem: Memory, scope: str = SCOPE, *, with_events: bool = True) -> dict[str, Any]:
    """Everything the scope's reads can see, as plain data (compare two of these with ``==``)."""
    state: dict[str, Any] = {
        "items": [i.to_dict() for i in mem.list(scope=scope, include_closed=True, limit=1000).items],
        "current": [i.id for i in mem.list(scope=scope, limit=1000).items],
        "edges": [e.to_dict() for e in mem.edges(scope=scope, include_closed=True)],
        "tombstones": mem.store.tombstones(scope),
        "summary": mem.summary(scope=scope),
    }
    if with_events:
        state["events"] = [e.to_dict() for e in mem.events(scope=scope, limit=100_000)]
    return state


# -- populations and filters for the query algebra ---------------------------------------------------

KINDS = ["observation", "assertion", "policy", "episodic"]
TAGS = ["health", "food", "work", "draft"]
KEYS = ["alice.drink", "alice.city", "bob.pet"]
AUTHORS = ["agent", "alice"]
SCORE_VALUES = [0.0, 0.25, 0.5, 0.5, 0.75, 1.0]  # repeats make ties likely
META_VALUES: list[Any] = [True, False, 1, 0, 1.0, 2.5, "1", "true", "x", None, [1], {"b": 1}]
META_PATHS = ["a", "b", "a.b", "n.c"]


def _meta() -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.sampled_from(META_VALUES)
    return st.fixed_dictionaries(
        {},
        optional={
            "a": st.one_of(leaf, st.fixed_dictionaries({"b": leaf})),
            "b": leaf,
            "n": st.fixed_dictionaries({}, optional={"c": leaf}),
        },
    )


@st.composite
def candidates(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """One claim of a population; texts are unique per index so nothing corroborates by accident."""
    keyed = draw(st.booleans())
    cand: dict[str, Any] = {
        "text": f"claim {index} " + draw(st.sampled_from(["tea", "coffee", "rain", "cats"])),
        "kind": draw(st.sampled_from(KINDS)),
        "source": draw(st.sampled_from(CANDIDATE_SOURCES)),
        "tags": draw(st.lists(st.sampled_from(TAGS), max_size=3, unique=True)),
        "meta": draw(_meta()),
        "scores": {name: draw(st.sampled_from(SCORE_VALUES)) for name in draw(st.sets(st.sampled_from(SCORE_FIELDS)))},
    }
    if keyed:
        cand["key"] = draw(st.sampled_from(KEYS))
        cand["value"] = f"v{index}"
    if draw(st.booleans()):
        cand["author"] = draw(st.sampled_from(AUTHORS))
    return cand


@st.composite
def population_plan(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A list of steps: remember a candidate (optionally with parents), or mutate an earlier item."""
    n = draw(st.integers(min_value=1, max_value=14))
    steps: list[dict[str, Any]] = []
    for i in range(n):
        cand = draw(candidates(i))
        parents = sorted(draw(st.sets(st.integers(0, i - 1), max_size=2))) if i else []
        steps.append(
            {
                "op": "remember",
                "cand": cand,
                "parents": parents,
                "advance": draw(st.sampled_from([0, 0, 1, 60, 3600])),
                "valid_from_days": draw(st.one_of(st.none(), st.integers(-30, 30))),
            }
        )
        for _ in range(draw(st.integers(0, 2))):
            op = draw(st.sampled_from(["forget", "dismiss", "revise", "tier", "tiers", "flag", "scores", "use"]))
            steps.append(
                {
                    "op": op,
                    "target": draw(st.integers(0, i)),
                    "tier": draw(st.sampled_from(TIERS)),
                    "flag": draw(st.sampled_from(["hub", "stale_derived"])),
                    "score": (draw(st.sampled_from(SCORE_FIELDS)), draw(st.sampled_from(SCORE_VALUES))),
                }
            )
    return steps


def build_population(mem: Memory, plan: list[dict[str, Any]], clock: Any, scope: str = SCOPE) -> list[str]:
    """Apply a ``population_plan`` to ``mem``; returns the ids of every item it created (in order).

    Refused steps (e.g. revising an item that is already closed) are skipped the same way on
    every backend, which the cross-backend tests rely on.
    """
    from reverie import ReverieError

    created: list[str] = []
    start = clock.now()
    for step in plan:
        if step["op"] == "remember":
            clock.advance(seconds=step["advance"])
            cand = dict(step["cand"])
            cand["parents"] = [created[p] for p in step["parents"]]
            if step["valid_from_days"] is not None:
                cand["valid_from"] = start + timedelta(days=step["valid_from_days"])
            created.append(mem.remember(scope=scope, **cand).id)
            continue
        target = created[step["target"]]
        try:
            if step["op"] == "forget":
                mem.forget(target, scope=scope)
            elif step["op"] == "dismiss":
                mem.dismiss(target, scope=scope)
            elif step["op"] == "revise":
                created.append(mem.revise(target, f"revised {len(created)}", scope=scope).id)
            elif step["op"] == "tier":
                mem.set_tier(target, step["tier"], scope=scope)
            elif step["op"] == "tiers":  # a bulk move of the target and the first item
                mem.set_tiers({target: step["tier"], created[0]: "active"}, scope=scope, reason="bulk")
            elif step["op"] == "flag":
                mem.flag(target, scope=scope, add=[step["flag"]])
            elif step["op"] == "scores":
                name, value = step["score"]
                mem.set_scores(target, scope=scope, **{name: value})
            elif step["op"] == "use":
                mem.record_use(scope, [(target, 1.0)], "q")
        except ReverieError:
            pass
    return created


@st.composite
def filters(draw: st.DrawFn, ids: list[str], times: list[Any], depth: int = 3) -> Filter:
    """A random query-algebra filter over a population whose ids and times are known."""
    if depth > 0 and draw(st.integers(0, 3)) == 0:
        combinator = draw(st.sampled_from(["and", "or", "not"]))
        left = draw(filters(ids, times, depth - 1))
        if combinator == "not":
            return ~left
        right = draw(filters(ids, times, depth - 1))
        return left & right if combinator == "and" else left | right
    return draw(_leaf_filter(ids, times))


@st.composite
def _leaf_filter(draw: st.DrawFn, ids: list[str], times: list[Any]) -> Filter:
    kind = draw(
        st.sampled_from(
            [
                "ids", "kind", "source", "tier", "status", "key", "author", "tag", "tags_any", "flag",
                "score", "evidence", "parent", "parents_count", "meta", "meta_has", "time", "all",
            ]
        )
    )  # fmt: skip
    pick = st.sampled_from
    if kind == "ids":
        return Q.ids(*draw(st.lists(pick(ids), max_size=3)))
    if kind == "kind":
        return Q.kind(*draw(st.lists(pick(KINDS), min_size=1, max_size=2)))
    if kind == "source":
        return Q.source(*draw(st.lists(pick([*CANDIDATE_SOURCES, "manual"]), min_size=1, max_size=2)))
    if kind == "tier":
        return Q.tier(*draw(st.lists(pick(TIERS), min_size=1, max_size=2)))
    if kind == "status":
        return Q.status(*draw(st.lists(pick(["live", "superseded", "forgotten", "dismissed"]), min_size=1)))
    if kind == "key":
        return Q.key(*draw(st.lists(pick(KEYS), min_size=1, max_size=2)))
    if kind == "author":
        return Q.author(draw(pick(AUTHORS)))
    if kind == "tag":
        return Q.tag(draw(pick(TAGS)))
    if kind == "tags_any":
        return Q.tags_any(*draw(st.lists(pick(TAGS), max_size=2)))
    if kind == "flag":
        return Q.flag(draw(pick(["hub", "stale_derived"])))
    if kind == "score":
        bounds = draw(st.dictionaries(pick(["ge", "le", "gt", "lt"]), pick(SCORE_VALUES), max_size=2))
        low = [op for op in bounds if op in ("ge", "gt")]
        high = [op for op in bounds if op in ("le", "lt")]
        if low and high and bounds[low[0]] > bounds[high[0]]:  # Q refuses an inverted range: keep it ordered
            bounds[low[0]], bounds[high[0]] = bounds[high[0]], bounds[low[0]]
        return Q.score(draw(pick([*SCORE_FIELDS, "use_count", "version"])), **bounds)
    if kind == "evidence":
        return Q.evidence(ge=draw(st.integers(1, 3)))
    if kind == "parent":
        return Q.parent(draw(pick(ids)))
    if kind == "parents_count":
        return Q.parents_count(**draw(st.dictionaries(pick(["ge", "le"]), st.integers(0, 2), max_size=2)))
    if kind == "meta":
        return Q.meta(draw(pick(META_PATHS)), draw(pick([v for v in META_VALUES if not isinstance(v, list | dict)])))
    if kind == "meta_has":
        return Q.meta_has(draw(pick(META_PATHS)))
    if kind == "time":
        field = draw(pick(TIME_FIELDS))
        since = draw(st.one_of(st.none(), pick(times)))
        until = draw(st.one_of(st.none(), pick(times)))
        if since is not None and until is not None and since > until:  # Q refuses an inverted interval
            since, until = until, since
        return Q.time(field, since=since, until=until)
    return Q.all()


def sorts() -> st.SearchStrategy[list[str]]:
    return st.lists(
        st.sampled_from(SORT_FIELDS).flatmap(lambda f: st.sampled_from([f, "-" + f])), max_size=3, unique=True
    )


__all__ = [
    "EDGE_TYPES",
    "OTHER_SCOPE",
    "SCOPE",
    "START",
    "TRICKY_PIECES",
    "build_population",
    "candidates",
    "filters",
    "json_meta",
    "population_plan",
    "sorts",
    "state_of",
    "storable_chars",
    "storable_text",
]
