"""Invariants over random conversations: dense numbering, and both backends agree entry for entry."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.store.reference import ReferenceStore

SCOPE = "user:p"
step = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(["Ann", "Bo"]), st.integers(0, 90)),  # minutes after the last one
    st.tuples(st.just("tool"), st.sampled_from(["search", "mail"]), st.integers(0, 0)),
    st.tuples(st.just("wait"), st.just(""), st.integers(1, 60)),  # the clock moves
)


def _play(mem: Memory, clock: ManualClock, steps: list[tuple[str, str, int]]) -> list[tuple[Any, ...]]:
    conv = mem.conversation("c", scope=SCOPE)
    at = clock.now() - timedelta(days=5)
    for i, (op, name, minutes) in enumerate(steps):
        if op == "add":
            at += timedelta(minutes=minutes)
            conv.add(f"message {i} from {name}", speaker=name, at=at)
        elif op == "tool":
            conv.tool_call(name)
        else:
            clock.advance(minutes=minutes)
        conv.history()
    return [(e.kind, e.position, e.turn, e.text, e.meta) for e in conv.entries()]


@settings(max_examples=20, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=20))
def test_positions_and_turns_are_dense_and_both_backends_agree(steps: list[tuple[str, str, int]]) -> None:
    start = ManualClock().now()
    played = []
    for store in (None, ReferenceStore()):
        clock = ManualClock(start)
        mem = (
            Memory(":memory:", embedder="hash", clock=clock, seed=0)
            if store is None
            else Memory(store=store, embedder="hash", clock=clock, seed=0)
        )
        played.append(_play(mem, clock, steps))
        items = mem.list(scope=SCOPE, limit=1000).items
        assert sorted(i.meta["turn"] for i in items) == list(range(1, len(items) + 1))
        mem.close()
    sqlite, reference = played
    assert sqlite == reference
    assert [p for _, p, _, _, _ in sqlite] == list(range(1, len(sqlite) + 1))
    turns = [t for kind, _, t, _, _ in sqlite if kind == "message"]
    assert turns == list(range(1, len(turns) + 1))
    assert all(t is None for kind, _, t, _, _ in sqlite if kind != "message")
