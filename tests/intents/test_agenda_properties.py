"""Random command sequences over intents and tasks: never an invalid state, refusals exactly where the
status machine says, replay equals live, and SQLite agrees with the reference store record for record."""

from __future__ import annotations

from typing import Any

from agenda_kit import SCOPE
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, ReverieError
from reverie.model import agenda as ag
from reverie.store.reference import ReferenceStore

step = st.one_of(
    st.tuples(st.just("intent"), st.integers(-1, 5), st.just("")),  # parent index (-1: none)
    st.tuples(st.just("move_intent"), st.integers(0, 5), st.sampled_from(sorted(ag.INTENT_MOVES))),
    st.tuples(st.just("task"), st.integers(-1, 5), st.sampled_from(["", "sub"])),  # intent (or parent) index
    st.tuples(st.just("move_task"), st.integers(0, 5), st.sampled_from(sorted(ag.TASK_MOVES))),
)


def _expected(moves: dict[str, tuple[tuple[str, ...], str, str]], status: str, move: str) -> str | None:
    starts, to, _ = moves[move]
    return to if status in starts else None


def _play(mem: Memory, steps: list[tuple[str, int, str]]) -> list[str]:
    """Apply ``steps``; check each outcome against a model of the status machines; return the outcomes."""
    intents: list[str] = []
    tasks: list[str] = []
    model: dict[str, str] = {}
    out: list[str] = []
    for op, n, arg in steps:
        target: str | None = None  # the record a move names
        try:
            if op == "intent":
                parent = intents[n % len(intents)] if n >= 0 and intents else None
                made = mem.intents.create(f"goal {len(intents)}", scope=SCOPE, parent=parent)
                assert parent is None or model[parent] in ("active", "paused")
                intents.append(made.id)
                model[made.id] = made.status
            elif op == "move_intent" and intents:
                target = intents[n % len(intents)]
                want = _expected(ag.INTENT_MOVES, model[target], arg)
                got = mem.intents.transition(target, arg, scope=SCOPE)
                assert got.status == want
                model[target] = got.status
            elif op == "task":
                sub = arg == "sub" and tasks and n >= 0
                parent = tasks[n % len(tasks)] if sub else None
                intent = intents[n % len(intents)] if not sub and n >= 0 and intents else None
                made_t = mem.tasks.create(f"work {len(tasks)}", scope=SCOPE, intent=intent, parent=parent)
                tasks.append(made_t.id)
                model[made_t.id] = made_t.status
            elif op == "move_task" and tasks:
                target = tasks[n % len(tasks)]
                want = _expected(ag.TASK_MOVES, model[target], arg)
                got_t = mem.tasks.transition(target, arg, scope=SCOPE, reason="it broke")
                assert got_t.status == want
                model[target] = got_t.status
            else:
                continue
            out.append("ok")
        except ReverieError as exc:
            out.append(exc.code)
            if target is not None:  # a refused move: the model must refuse it too
                assert exc.code == "invalid_transition"
                table = ag.INTENT_MOVES if op == "move_intent" else ag.TASK_MOVES
                assert _expected(table, model[target], arg) is None
            else:  # a refused creation: only under a finished intent
                assert exc.code == "invalid_transition"
                assert any(model[i] in ag.FINAL_INTENT for i in intents)
    return out


def _state(mem: Memory) -> tuple[Any, ...]:
    intents = mem.intents.list(scope=SCOPE, limit=1000)
    tasks = mem.tasks.list(scope=SCOPE, limit=1000)
    for it in intents:
        assert it.status in ag.INTENT_STATUSES
        assert it.version == len(mem.intents.history(it, scope=SCOPE))
        if it.parent is not None:
            assert mem.intents.get(it.parent, scope=SCOPE).created_at <= it.created_at
    for t in tasks:
        assert t.status in ag.TASK_STATUSES
        kinds = [e.type for e in mem.tasks.history(t, scope=SCOPE)]
        assert t.version == len(kinds)
        assert t.attempts == kinds.count(ag.TASK_STARTED) + kinds.count(ag.TASK_RETRIED)
        assert len(t.failures) == kinds.count(ag.TASK_FAILED)
        assert ag.TASK_COMPLETED not in kinds[:-1]  # nothing follows completion
    return [i.to_dict() for i in intents], [t.to_dict() for t in tasks]


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=25))
def test_random_sequences_stay_valid_replay_equals_live_and_backends_agree(steps: list[tuple[str, int, str]]) -> None:
    start = ManualClock().now()
    results = []
    for store in (None, ReferenceStore()):
        clock = ManualClock(start)
        kw: dict[str, Any] = {"embedder": "hash", "clock": clock, "seed": 0}
        mem = Memory(":memory:", **kw) if store is None else Memory(store=store, **kw)
        outcomes = _play(mem, steps)
        live = _state(mem)
        mem.rebuild()
        assert _state(mem) == live
        assert mem.doctor().ok
        results.append((outcomes, live))
        mem.close()
    assert results[0] == results[1]


_statuses = st.lists(st.sampled_from(ag.INTENT_STATUSES), max_size=2, unique=True)
_task_statuses = st.lists(st.sampled_from(ag.TASK_STATUSES), max_size=2, unique=True)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=12),
    owner=st.sampled_from([None, "o0", "o1"]),
    statuses=_statuses,
    min_priority=st.sampled_from([None, 0.0, 0.25, 0.5, 1.0]),
    by_parent=st.booleans(),
    by_memory=st.booleans(),
    task_statuses=_task_statuses,
    failed=st.booleans(),
)
def test_sqlite_filters_answer_like_the_reference_filters(
    seed: list[tuple[int, int, int]],
    owner: str | None,
    statuses: list[str],
    min_priority: float | None,
    by_parent: bool,
    by_memory: bool,
    task_statuses: list[str],
    failed: bool,
) -> None:
    """SQLite compiles each list filter to SQL, the reference store evaluates it in Python: same rows, same order."""
    start = ManualClock().now()
    answers = []
    for store in (None, ReferenceStore()):
        kw: dict[str, Any] = {"embedder": "hash", "clock": ManualClock(start), "seed": 0}
        mem = Memory(":memory:", **kw) if store is None else Memory(store=store, **kw)
        claim = mem.remember("a claim", scope=SCOPE)
        intents: list[str] = []
        for i, (who, prio, moves) in enumerate(seed):
            parent = intents[0] if intents and i % 2 and seed[0][2] < 3 else None  # only under an open intent
            links = [claim.id] if i % 3 == 0 else []
            it = mem.intents.create(
                f"g{i}", scope=SCOPE, owner=f"o{who}", priority=prio / 4, parent=parent, memory_ids=links
            )
            intents.append(it.id)
            for move in ("pause", "resume", "complete")[:moves]:
                mem.intents.transition(it, move, scope=SCOPE)
            t = mem.tasks.create(f"t{i}", scope=SCOPE, intent=None if moves == 3 else it, inputs=links)
            for move in ("start", "fail", "retry")[:moves]:
                mem.tasks.transition(t, move, scope=SCOPE, reason="x")
        parent_id = intents[0] if by_parent else None
        memory = claim.id if by_memory else None
        found_i = mem.intents.list(
            scope=SCOPE,
            owner=owner,
            status=statuses or None,
            min_priority=min_priority,
            parent=parent_id,
            memory=memory,
        )
        found_t = mem.tasks.list(
            scope=SCOPE, status=task_statuses or None, parent=None, intent=parent_id, memory=memory, failed=failed
        )
        answers.append(([i.id for i in found_i], [t.id for t in found_t]))
        mem.close()
    assert answers[0] == answers[1]
