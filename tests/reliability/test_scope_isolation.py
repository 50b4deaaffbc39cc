"""Promise: a scope is an isolation boundary — no read or write through scope A touches scope B.

Hypothesis builds whole populations over 3-4 scopes whose names are each other's prefixes and
near-neighbours (``p``, ``p/x``, ``p-x``, ``p/x/y``, ``p0``...: the shapes a careless ``LIKE`` or
range scan confuses), filled with the *same* texts (so the hash embedder gives identical vectors
and full-text finds the same words everywhere). Then, through every scope:

- every read path (get, get as_of, list, list with subscopes, recall in all three modes and with
  history / as_of / a filter naming foreign ids, edges, events, summary, history,
  contradictions) returns only that scope's items, edges and events — and exactly all of them
  where the path lists everything;
- an id of another scope is answered exactly like an id that exists nowhere: the same error
  class, code and message once the id is substituted (no existence oracle);
- every write (revise, forget, dismiss, link both ways, unlink, set_scores, set_tier, promote,
  flag, remember with a foreign parent, detect_conflicts, resolve, record_use, undismiss) given
  a foreign id is refused that way and leaves every scope unchanged.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import (
    ConflictError,
    DismissedValueError,
    ManualClock,
    Memory,
    NotFoundError,
    Q,
    ReverieError,
)
from reverie.model.validate import fingerprints

SHAPES = ["p", "p/x", "p-x", "p.x", "p/x/y", "p_x", "px", "p:x", "p0", "p@x", "q"]
TEXTS = [
    "Alice drinks green tea",
    "alice drinks green tea.",  # the same claim after normalising: corroborates within a scope
    "Bob keeps two cats",
    "The deploy key is 7f3a9c",
    "Carol moved to Berlin",
    "Carol did not move to Berlin",
    "Meeting at 10:30 on Friday",
]
KEYS = [None, "alice.drink", "carol.city"]
VALUES = ["green tea", "coffee", "Berlin"]
EDGE_TYPES = ["supports", "about", "contradicts", "derived_from", "alias"]
WRITE_OPS = ["remember"] * 5 + ["revise", "forget", "dismiss", "link", "link", "unlink", "tier", "use", "pause"]

op_strategy = st.tuples(
    st.sampled_from(WRITE_OPS),
    st.integers(0, 3),  # scope
    st.integers(0, len(TEXTS) - 1),
    st.integers(0, len(KEYS) - 1),
    st.integers(0, 63),  # target
    st.integers(0, 63),  # second target
)
population = st.fixed_dictionaries(
    {
        "scopes": st.lists(st.sampled_from(SHAPES), min_size=3, max_size=4, unique=True),
        "ops": st.lists(op_strategy, min_size=4, max_size=24),
        "detect": st.booleans(),
        "seed": st.integers(0, 2**32 - 1),
    }
)


class World:
    """A population and what the test knows each scope should hold."""

    def __init__(self, mem: Memory, scopes: list[str]) -> None:
        self.mem = mem
        self.scopes = scopes
        self.items: dict[str, list[str]] = {s: [] for s in scopes}
        self.edges: dict[str, list[str]] = {s: [] for s in scopes}
        self.current: set[str] = set()

    def foreign(self, scope: str) -> list[str]:
        return [i for s in self.scopes if s != scope for i in self.items[s]]

    def foreign_edges(self, scope: str) -> list[str]:
        return [e for s in self.scopes if s != scope for e in self.edges[s]]


def build(world: World, ops: list[tuple[Any, ...]], clock: ManualClock) -> None:
    mem = world.mem
    for op, si, ti, ki, t1, t2 in ops:
        scope = world.scopes[si % len(world.scopes)]
        own = world.items[scope]
        clock.advance(seconds=1)
        try:
            if op == "remember" or not own:
                key = KEYS[ki]
                value = VALUES[(ti + ki) % len(VALUES)] if key else None
                own.append(mem.remember(TEXTS[ti], scope=scope, key=key, value=value, tags=[f"t{ki}"]).id)
                own[:] = list(dict.fromkeys(own))
            elif op == "revise":
                own.append(mem.revise(own[t1 % len(own)], TEXTS[ti] + " (revised)", scope=scope).id)
                # a revise into another current claim's words corroborates it and returns its id (#13.3)
                own[:] = list(dict.fromkeys(own))
            elif op == "forget":
                mem.forget(own[t1 % len(own)], scope=scope)
            elif op == "dismiss":
                mem.dismiss(own[t1 % len(own)], scope=scope)
            elif op == "link":
                src, dst = own[t1 % len(own)], own[t2 % len(own)]
                if EDGE_TYPES[ti % len(EDGE_TYPES)] == "derived_from":  # newer from older: never a loop
                    src, dst = max(src, dst), min(src, dst)
                if src != dst:
                    world.edges[scope].append(mem.link(src, dst, EDGE_TYPES[ti % len(EDGE_TYPES)], scope=scope).id)
            elif op == "unlink" and world.edges[scope]:
                mem.unlink(world.edges[scope][t1 % len(world.edges[scope])], scope=scope)
            elif op == "tier":
                mem.set_tier(own[t1 % len(own)], ["active", "durable", "subconscious"][ti % 3], scope=scope)
            elif op == "use":
                mem.record_use(scope, [(own[t1 % len(own)], 1.0)], TEXTS[ti])
            elif op == "pause" and ti % 2:
                mem.pause_learning(scope)
            elif op == "pause":
                mem.resume_learning(scope)
        except ConflictError:
            continue  # closed, dismissed or paused: the refusal is the state model, not a leak
    for scope in world.scopes:
        mem.resume_learning(scope)
    # The ground truth, read from the tables themselves (not through the scoped reads under test):
    # it must agree with what the test tracked, and adds the edges detect_conflicts made.
    rows = mem.store._conn.execute("SELECT id, scope FROM items").fetchall()  # type: ignore[attr-defined]
    assert {s: sorted(world.items[s]) for s in world.scopes} == {
        s: sorted(i for i, sc in rows if sc == s) for s in world.scopes
    }
    edges = mem.store._conn.execute("SELECT id, scope FROM edges").fetchall()  # type: ignore[attr-defined]
    for scope in world.scopes:
        world.edges[scope] = [e for e, sc in edges if sc == scope]
    world.current = {r[0] for r in mem.store._conn.execute("SELECT id FROM items WHERE closed_at IS NULL")}  # type: ignore[attr-defined]


def same_refusal(call: Callable[[str], Any], foreign_id: str, missing_id: str) -> None:
    """``call(foreign_id)`` fails exactly as ``call(missing_id)`` does, up to the id itself."""
    errors: list[ReverieError] = []
    for probe in (foreign_id, missing_id):
        try:
            call(probe)
        except ReverieError as exc:
            errors.append(exc)
        else:
            raise AssertionError(f"a call with id {probe} was not refused")
    theirs, missing = errors
    assert isinstance(theirs, NotFoundError), f"{type(theirs).__name__}: {theirs}"
    assert type(theirs) is type(missing) and theirs.code == missing.code
    assert theirs.message.replace(foreign_id, "<id>") == missing.message.replace(missing_id, "<id>")


def all_items(mem: Memory, scope: str, **kwargs: Any) -> list[Any]:
    return mem.list(scope=scope, include_closed=True, limit=1000, **kwargs).items


def observe(mem: Memory, scope: str) -> dict[str, Any]:
    """Everything a scope's reads can see."""
    return {
        "items": [i.to_dict() for i in all_items(mem, scope)],
        "edges": [e.to_dict() for e in mem.edges(scope=scope, include_closed=True)],
        "events": [e.to_dict() for e in mem.events(scope=scope, limit=100_000)],
        "tombstones": mem.store.tombstones(scope),
        "summary": mem.summary(scope=scope),
    }


def payload_ids(payload: dict[str, Any]) -> set[str]:
    """Item ids an event refers to."""
    ids = set()
    if isinstance(payload.get("item"), dict):
        ids.add(payload["item"]["id"])
    if isinstance(payload.get("edge"), dict):
        ids |= {payload["edge"]["src"], payload["edge"]["dst"]}
    for name in ("id", "old_id", "by"):
        if isinstance(payload.get(name), str):
            ids.add(payload[name])
    ids |= {u[0] for u in payload.get("uses", [])}
    return ids


def check_reads(world: World, scope: str, missing: str, rng: random.Random) -> int:
    """Every read path of ``scope``; returns how many foreign ids were probed."""
    mem = world.mem
    own = set(world.items[scope])
    everything = all_items(mem, scope)
    assert {i.id for i in everything} == own and all(i.scope == scope for i in everything)
    assert {i.id for i in mem.list(scope=scope, limit=1000).items} <= own
    family = [s for s in world.scopes if s == scope or s.startswith(scope + "/")]
    nested = all_items(mem, scope, subscopes=True)
    assert {i.id for i in nested} == {i for s in family for i in world.items[s]}

    edges = mem.edges(scope=scope, include_closed=True)
    assert {e.id for e in edges} == set(world.edges[scope])
    assert all(e.scope == scope and {e.src, e.dst} <= own for e in edges)
    for event in mem.events(scope=scope, limit=100_000):
        assert event.scope == scope and payload_ids(event.payload) <= own, event.to_dict()
    summary = mem.summary(scope=scope)
    assert summary["current"] == len(mem.list(scope=scope, limit=1000).items)
    for alert in mem.contradictions(scope=scope):
        assert alert.edge_id in world.edges[scope] and {alert.a.id, alert.b.id} <= own

    # Query with a text another scope holds: identical words, identical vectors. Each mode runs
    # plain and with one of the other read paths (history, as_of, a filter naming foreign ids).
    foreign = world.foreign(scope)
    pool = [i for i in foreign if i in world.current] or foreign
    query = mem.get(pool[0], scope=_scope_of(world, pool[0])).text if pool else rng.choice(TEXTS)
    now = datetime(2100, 1, 1, tzinfo=UTC)
    extras: list[dict[str, Any]] = [{"include_history": True}, {"as_of": now}, {"where": Q.ids(*foreign, *own)}]
    for mode in ("hybrid", "lexical", "dense"):
        for extra in ({}, rng.choice(extras)):
            hits = mem.recall(query, scope=scope, mode=mode, k=50, record_use=False, **extra)
            assert all(h.item.scope == scope and h.item.id in own for h in hits)
            assert all(set(h.contradicted_by) <= own for h in hits)
    for item_id in own:
        assert mem.get(item_id, scope=scope).scope == scope
        assert {v.id for v in mem.history(item_id, scope=scope).versions} <= own
    probes = rng.sample(foreign, min(3, len(foreign)))
    for f in probes:
        same_refusal(lambda i: mem.get(i, scope=scope), f, missing)
        same_refusal(lambda i: mem.get(i, scope=scope, as_of=now), f, missing)
        same_refusal(lambda i: mem.history(i, scope=scope), f, missing)
        assert mem.edges(f, scope=scope) == []
        assert mem.recall("tea", scope=scope, where=Q.ids(f), record_use=False) == []
    return len(probes)


def _scope_of(world: World, item_id: str) -> str:
    return next(s for s in world.scopes if item_id in world.items[s])


def check_writes(world: World, scope: str, missing: str, missing_edge: str, rng: random.Random) -> int:
    """Writes through ``scope`` naming another scope's ids; returns how many were tried."""
    mem = world.mem
    foreign, foreign_edges = world.foreign(scope), world.foreign_edges(scope)
    if not foreign:
        return 0
    f = rng.choice(foreign)
    mine = world.items[scope][0] if world.items[scope] else None
    before = {s: observe(mem, s) for s in world.scopes}
    calls: list[Callable[[str], Any]] = [
        lambda i: mem.revise(i, "hijacked", scope=scope),
        lambda i: mem.forget(i, scope=scope),
        lambda i: mem.dismiss(i, scope=scope),
        lambda i: mem.set_scores(i, scope=scope, authority=0.0),
        lambda i: mem.set_tier(i, "subconscious", scope=scope),
        lambda i: mem.promote(i, scope=scope),
        lambda i: mem.flag(i, scope=scope, add=["hub"]),
        lambda i: mem.remember("a child of a foreign parent", scope=scope, parents=[i]),
        lambda i: mem.detect_conflicts(i, scope=scope),
    ]
    if mine is not None:
        calls += [
            lambda i: mem.link(mine, i, "supports", scope=scope),
            lambda i: mem.link(i, mine, "contradicts", scope=scope),
            lambda i: mem.resolve(i, keep=mine, scope=scope),
        ]
    for call in calls:
        same_refusal(call, f, missing)
    if foreign_edges:
        e = rng.choice(foreign_edges)
        same_refusal(lambda i: mem.unlink(i, scope=scope), e, missing_edge)
        if mine is not None:
            same_refusal(lambda i: mem.resolve(i, keep=mine, scope=scope), e, missing_edge)
    mem.record_use(scope, [(f, 1.0)], "a foreign use is ignored")
    text = mem.get(f, scope=_scope_of(world, f)).text
    if fingerprints(text, None, None)[0] not in {fp for fp, _ in mem.store.tombstones(scope)}:
        with pytest.raises(NotFoundError):  # dismissed elsewhere, maybe, but not *here*
            mem.undismiss(text, scope=scope)
    after = {s: observe(mem, s) for s in world.scopes}
    assert after == before
    return len(calls) + 2 * bool(foreign_edges)


STATS = {"populations": 0, "foreign_reads": 0, "foreign_writes": 0, "items": 0}


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    print(f"\nscope isolation: {STATS}")


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(population)
def test_no_read_or_write_crosses_a_scope(pop: dict[str, Any]) -> None:
    clock = ManualClock(datetime(2025, 1, 1, tzinfo=UTC))
    rng = random.Random(pop["seed"])
    missing = str(uuid.UUID(int=rng.getrandbits(128)))
    missing_edge = str(uuid.UUID(int=rng.getrandbits(128)))
    with Memory(":memory:", embedder="hash", clock=clock, seed=pop["seed"], detect_conflicts=pop["detect"]) as mem:
        world = World(mem, pop["scopes"])
        build(world, pop["ops"], clock)
        for scope in world.scopes:
            STATS["foreign_reads"] += check_reads(world, scope, missing, rng)
            STATS["foreign_writes"] += check_writes(world, scope, missing, missing_edge, rng)
        assert mem.doctor().ok
        STATS["populations"] += 1
        STATS["items"] += sum(len(v) for v in world.items.values())


def test_same_text_in_every_scope_stays_apart() -> None:
    """The plainest case, named: one claim in four scopes is four items, each seen only at home."""
    with Memory(":memory:", embedder="hash") as mem:
        scopes = ["p", "p/x", "p-x", "p0"]
        ids = {s: mem.remember("Alice drinks green tea", scope=s).id for s in scopes}
        assert len(set(ids.values())) == 4
        for s in scopes:
            for mode in ("hybrid", "lexical", "dense"):
                hits = mem.recall("Alice drinks green tea", scope=s, mode=mode, record_use=False)
                assert [h.item.id for h in hits] == [ids[s]]
        mem.dismiss(ids["p"], scope="p")
        again = mem.remember("Alice drinks green tea", scope="p/x")  # p's tombstone does not reach p/x
        assert again.id == ids["p/x"] and again.evidence_count == 2
        with pytest.raises(DismissedValueError):
            mem.remember("Alice drinks green tea", scope="p")
        assert [i.id for i in mem.list(scope="p", subscopes=True).items] == [ids["p/x"]]
