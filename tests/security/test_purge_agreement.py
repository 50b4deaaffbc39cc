"""Finding 1 as a property: after any history ending in a purge, SQLite and the reference store
agree (event log, item rows, edges, tombstones — live and after ``rebuild``), and no canary of
the purged claim is left in any byte of the SQLite files (database, ``-wal``, ``-shm``, sidecars).

Every claim carries its own canary token, and every piece of text an operation writes *about* a
claim quotes that claim's canary: reasons of revise / forget / dismiss / resolve / unlink /
set_scores / set_tier / flag / promote, link meta, usage queries that retrieved it, and system
copies (``remember_system`` with the claim as parent and its text quoted). So the scan finds
exactly what the purge promised to erase; a caller's child (its own words) quotes nothing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, ReverieError
from reverie.store.reference import ReferenceStore
from strategies import START, state_of

from .kit import everything_readable, found_on_disk

SCOPE = "user:alice"
OPS = [
    "remember",
    "revise",
    "forget",
    "dismiss",
    "undismiss",
    # "relearn",
    "link",
    "unlink",
    "resolve",
    "use",
    "scores",
    "tier",
    "flag",
    "promote",
    "copy",
    "child",
]
Op = tuple[str, int, int]


@dataclass
class World:
    """What the driver knows: every item id with its claim's canary, and every edge with its ends."""

    canary: dict[str, str] = field(default_factory=dict)  # item id -> its claim's canary
    text: dict[str, str] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (edge id, src, dst)
    #: System copies and their revisions: they quote another claim's canary, so purging one of
    #: them rightly leaves that canary in the claim it copied; the purge target is never one.
    copies: set[str] = field(default_factory=set)

    def add(self, item_id: str, canary: str, text: str) -> None:
        if item_id not in self.canary:
            self.ids.append(item_id)
        self.canary[item_id], self.text[item_id] = canary, text


def _step(mem: Memory, w: World, op: str, i: int, j: int, n: int) -> None:
    if op == "remember" or not w.ids:
        canary = f"Cq{n}Zv"
        text = f"claim {canary} number {n}"
        w.add(mem.remember(text, scope=SCOPE, tags=[canary], meta={"c": canary}).id, canary, text)
        return
    a = w.ids[i % len(w.ids)]
    b = w.ids[(i + 1 + j % max(len(w.ids) - 1, 1)) % len(w.ids)]  # another item whenever there are two
    ca, cb = w.canary[a], w.canary[b]
    if op == "revise":
        text = f"claim {ca} revised at {n}"
        new = mem.revise(a, text, scope=SCOPE, reason=f"{ca} changed").id
        w.add(new, ca, text)
        if a in w.copies:
            w.copies.add(new)
    elif op == "forget":
        mem.forget(a, scope=SCOPE, reason=f"{ca} is stale")
    elif op == "dismiss":
        mem.dismiss(a, scope=SCOPE, reason=f"{ca} was wrong")
    elif op == "undismiss":
        mem.undismiss(w.text[a], scope=SCOPE, reason=f"{ca} is fine after all")
    elif op == "relearn":
        w.add(mem.remember(w.text[a], scope=SCOPE).id, ca, w.text[a])
    elif op == "link":
        edge = mem.link(a, b, "supports", scope=SCOPE, meta={"why": f"{ca} {cb}"})
        w.edges.append((edge.id, a, b))
    elif op == "unlink" and w.edges:
        edge_id, src, dst = w.edges[i % len(w.edges)]
        mem.unlink(edge_id, scope=SCOPE, reason=f"{w.canary[src]} {w.canary[dst]} unrelated")
    elif op == "resolve":
        edge = mem.link(a, b, "contradicts", scope=SCOPE)
        mem.resolve(edge.id, keep=b, scope=SCOPE, reason=f"{ca} lost to {cb}")
    elif op == "use":
        mem.record_use(SCOPE, [(a, 0.5), (b, 0.25)], f"{ca} or {cb}")
    elif op == "scores":
        mem.set_scores(a, scope=SCOPE, reason=f"{ca} matters", importance=0.9)
    elif op == "tier":
        mem.set_tier(a, "durable", scope=SCOPE, reason=f"{ca} pinned")
    elif op == "flag":
        mem.flag(a, scope=SCOPE, add=["hub"], reason=f"{ca} is a hub")
    elif op == "promote":
        mem.promote(a, scope=SCOPE, reason=f"{ca} vouched")
    elif op == "copy":  # what a dream gist is: a system item quoting its parent
        text = f"{w.text[a]} (consolidated {n})"
        copy = mem.remember_system(text, scope=SCOPE, parents=[a]).id
        w.add(copy, ca, text)
        w.copies.add(copy)
    elif op == "child":  # a caller's own words about the claim: kept by a purge
        canary = f"Cq{n}Zv"
        text = f"a note {canary} citing an earlier claim"
        w.add(mem.remember(text, scope=SCOPE, parents=[a]).id, canary, text)


def run(mem: Memory, clock: ManualClock, ops: list[Op], purge: int) -> tuple[list[str], World, str | None]:
    """Apply ``ops`` then purge one item; returns (outcomes, world, purged id or None)."""
    w, outcomes = World(), []
    for n, (op, i, j) in enumerate(ops):
        clock.advance(seconds=1)
        try:
            _step(mem, w, op, i, j, n)
            outcomes.append("ok")
        except ReverieError as err:
            outcomes.append(type(err).__name__)
    clock.advance(seconds=1)
    claims = [i for i in w.ids if i not in w.copies]
    target = claims[purge % len(claims)] if claims else None
    if target is not None:
        mem.forget(target, scope=SCOPE, reason="erasure request", purge=True)
    return outcomes, w, target


ops_strategy = st.lists(
    st.tuples(st.sampled_from(OPS), st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=20
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=ops_strategy, purge=st.integers(0, 30))
def test_purge_agrees_between_backends_and_leaves_no_canary_on_disk(ops: list[Op], purge: int) -> None:
    note(repr((ops, purge)))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "p.db"
        clocks = ManualClock(START), ManualClock(START)
        with (
            Memory(db, embedder="hash", clock=clocks[0], seed=5, durability="fast") as lite,
            Memory(store=ReferenceStore(), embedder="hash", clock=clocks[1], seed=5) as ref,
        ):
            got_lite, world, target = run(lite, clocks[0], ops, purge)
            got_ref, _, _ = run(ref, clocks[1], ops, purge)
            assert got_lite == got_ref
            live = state_of(lite)
            assert live == state_of(ref)
            if target is None:
                return
            canary = world.canary[target]
            for mem in (lite, ref):
                assert canary.casefold() not in everything_readable(mem, SCOPE), canary
            assert found_on_disk(db, [canary]) == {}
            for mem in (lite, ref):
                mem.rebuild()
                assert state_of(mem) == live
        assert found_on_disk(db, [canary]) == {}
