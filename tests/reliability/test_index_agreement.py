"""Promise: the indexes never disagree with the record store.

A Hypothesis state machine drives random sequences of every kind of write (remember, batches,
revise, forget, dismiss / undismiss, link / unlink, scores, tiers, promote, flags, pause /
resume, recall's use-recording, conflict detection and resolution) over a few scopes of one
file; after every step ``doctor()`` must report no drift between the items table and the
full-text, vector, fingerprint and edge indexes. Rebuilding from the event log and re-embedding
(``reindex``) are steps too: each must leave every read exactly as it was.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, multiple, rule

from reverie import ConflictError, InvalidInputError, ManualClock, Memory, NotFoundError

SCOPES = ["user:a", "user:b", "user:a/sub"]
TEXTS = [
    "Alice drinks green tea",
    "alice drinks green tea.",
    "Alice does not drink green tea",
    "Bob keeps two cats",
    "Bob keeps 3 cats",
    "The deploy key is 7f3a9c",
    "Carol lives in Berlin",
    "Carol lives in Paris",
]
KEYS = [None, "alice.drink", "bob.cats", "carol.city"]
REFUSALS = (ConflictError, NotFoundError, InvalidInputError)  # the state model saying no, not drift


def observe(mem: Memory) -> dict[str, Any]:
    """Every read of every scope, including a recall ranking, as plain comparable data."""
    out: dict[str, Any] = {}
    for scope in SCOPES:
        out[scope] = {
            "items": [i.to_dict() for i in mem.list(scope=scope, include_closed=True, limit=1000).items],
            "edges": [e.to_dict() for e in mem.edges(scope=scope, include_closed=True)],
            "tombstones": mem.store.tombstones(scope),
            "summary": mem.summary(scope=scope),
            "recall": [
                (h.item.id, round(h.score, 9))
                for mode in ("hybrid", "lexical", "dense")
                for h in mem.recall("Alice tea cats Berlin", scope=scope, mode=mode, record_use=False)
            ],
        }
    return out


class IndexMachine(RuleBasedStateMachine):
    items = Bundle("items")
    edges = Bundle("edges")

    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.TemporaryDirectory()
        self.clock = ManualClock(datetime(2025, 1, 1, tzinfo=UTC))
        self.mem = Memory(Path(self.dir.name) / "m.db", embedder="hash", clock=self.clock, seed=0)
        self.steps = 0

    def teardown(self) -> None:
        self.mem.close()
        self.dir.cleanup()

    def _try(self, call: Any) -> Any:
        self.clock.advance(seconds=30)
        try:
            return call()
        except REFUSALS:
            return None

    @rule(target=items, text=st.sampled_from(TEXTS), scope=st.sampled_from(SCOPES), key=st.sampled_from(KEYS))
    def remember(self, text: str, scope: str, key: str | None) -> Any:
        value = text.split()[-1] if key else None
        item = self._try(lambda: self.mem.remember(text, scope=scope, key=key, value=value, tags=["t"]))
        return (scope, item.id) if item else multiple()

    @rule(target=items, texts=st.lists(st.sampled_from(TEXTS), min_size=1, max_size=4), scope=st.sampled_from(SCOPES))
    def remember_many(self, texts: list[str], scope: str) -> Any:
        got = self._try(lambda: self.mem.remember_many(texts, scope=scope))
        return multiple(*[(scope, i.id) for i in got or []])

    @rule(target=items, target_item=items, text=st.sampled_from(TEXTS))
    def revise(self, target_item: tuple[str, str], text: str) -> Any:
        scope, item_id = target_item
        new = self._try(lambda: self.mem.revise(item_id, text + " now", scope=scope))
        return (scope, new.id) if new else multiple()

    @rule(item=items)
    def forget(self, item: tuple[str, str]) -> None:
        self._try(lambda: self.mem.forget(item[1], scope=item[0]))

    @rule(item=items)
    def dismiss(self, item: tuple[str, str]) -> None:
        self._try(lambda: self.mem.dismiss(item[1], scope=item[0]))

    @rule(text=st.sampled_from(TEXTS), scope=st.sampled_from(SCOPES))
    def undismiss(self, text: str, scope: str) -> None:
        self._try(lambda: self.mem.undismiss(text, scope=scope))

    @rule(target=edges, a=items, b=items, kind=st.sampled_from(["supports", "contradicts", "about", "alias"]))
    def link(self, a: tuple[str, str], b: tuple[str, str], kind: str) -> Any:
        edge = self._try(lambda: self.mem.link(a[1], b[1], kind, scope=a[0]))
        return (a[0], edge.id, edge.src) if edge else multiple()

    @rule(edge=consumes(edges))
    def unlink(self, edge: tuple[str, str, str]) -> None:
        self._try(lambda: self.mem.unlink(edge[1], scope=edge[0]))

    @rule(edge=consumes(edges))
    def resolve(self, edge: tuple[str, str, str]) -> None:
        """Settle a conflict: one side superseded, the edge closed, derived items flagged — one transaction."""
        self._try(lambda: self.mem.resolve(edge[1], keep=edge[2], scope=edge[0]))

    @rule(item=items, score=st.floats(0, 1), tier=st.sampled_from(["active", "durable", "subconscious"]))
    def curate(self, item: tuple[str, str], score: float, tier: str) -> None:
        scope, item_id = item
        self._try(lambda: self.mem.set_scores(item_id, scope=scope, confidence=score, importance=1 - score))
        self._try(lambda: self.mem.set_tier(item_id, tier, scope=scope))
        self._try(lambda: self.mem.flag(item_id, scope=scope, add=["hub"]))

    @rule(item=items, to=st.sampled_from(["manual", "durable"]))
    def promote(self, item: tuple[str, str], to: str) -> None:
        self._try(lambda: self.mem.promote(item[1], scope=item[0], to=to))

    @rule(scope=st.sampled_from(SCOPES), pause=st.booleans())
    def pause(self, scope: str, pause: bool) -> None:
        self._try(lambda: self.mem.pause_learning(scope) if pause else self.mem.resume_learning(scope))

    @rule(scope=st.sampled_from(SCOPES), query=st.sampled_from(TEXTS), mode=st.sampled_from(["hybrid", "lexical"]))
    def recall(self, scope: str, query: str, mode: str) -> None:
        hits = self._try(lambda: self.mem.recall(query, scope=scope, mode=mode, tiers=["active", "subconscious"]))
        assert all(h.item.scope == scope and h.item.is_current for h in hits or [])

    @rule(a=items, b=items, keep_first=st.booleans())
    def contradict_and_resolve(self, a: tuple[str, str], b: tuple[str, str], keep_first: bool) -> None:
        edge = self._try(lambda: self.mem.link(a[1], b[1], "contradicts", scope=a[0]))
        if edge is not None:
            self._try(lambda: self.mem.resolve(edge.id, keep=a[1] if keep_first else b[1], scope=a[0]))

    @rule(target=edges, item=items)
    def detect_conflicts(self, item: tuple[str, str]) -> Any:
        scope, item_id = item
        found = self._try(lambda: self.mem.detect_conflicts(item_id, scope=scope)) or []
        return multiple(*[(scope, e.id, e.src) for e in found])

    @rule(roll=st.integers(0, 3))
    def rebuild(self, roll: int) -> None:
        if roll:  # a no-argument rule would run on most steps; keep these expensive ones rarer
            return
        before = observe(self.mem)
        self.mem.rebuild()
        assert observe(self.mem) == before

    @rule(roll=st.integers(0, 3))
    def reindex(self, roll: int) -> None:
        if roll:
            return
        before = observe(self.mem)
        self.mem.reindex()
        assert observe(self.mem) == before

    @invariant()
    def indexes_agree(self) -> None:
        report = self.mem.doctor()
        assert report.ok, report.problems
        self.steps += 1


IndexMachine.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_indexes_agree_after_any_sequence_of_writes = IndexMachine.TestCase
