"""``Memory.set_tiers``: many tier moves as one ``memory.tiers_set`` event, all or nothing.

Both backends. What must hold for a bulk event as for single ones: every read path sees the
moves (list, recall's tier filter, ``get``), ``as_of`` and ``history`` still see each item's
own past and its own reason, a refusal writes nothing, a purge erases only the purged item's
reason from the shared event, and a rebuild from the log equals the live state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import (
    InvalidInputError,
    LimitExceededError,
    ManualClock,
    Memory,
    NotFoundError,
    Q,
    RecallOptions,
    VersionConflictError,
)
from reverie.limits import Limits
from reverie.model import commands as cmd
from reverie.model.redact import REDACTED
from reverie.store.sqlite import SQLiteStore
from strategies import SCOPE, state_of


def _three(mem: Memory) -> list[str]:
    return [mem.remember(t, scope=SCOPE).id for t in ("the sky is blue", "water boils at 100 C", "bees make honey")]


def _events(mem: Memory) -> list[str]:
    return [e.type for e in mem.events(scope=SCOPE, limit=10_000)]


def test_one_event_moves_every_item_with_its_own_reason(any_mem: Memory, clock: ManualClock) -> None:
    a, b, c = _three(any_mem)
    before = {i: any_mem.get(i, scope=SCOPE) for i in (a, b, c)}
    clock.advance(seconds=5)
    moved = any_mem.set_tiers(
        {a: "subconscious", b: "durable"}, scope=SCOPE, reason="shared", reasons={a: "stale for 40 days"}
    )
    assert [(m.id, m.tier) for m in moved] == [(a, "subconscious"), (b, "durable")]
    assert _events(any_mem)[-1] == "memory.tiers_set" and _events(any_mem).count("memory.tiers_set") == 1
    for item_id in (a, b):
        now = any_mem.get(item_id, scope=SCOPE)
        assert now.version == before[item_id].version + 1 and now.updated_at == clock.now()
    assert any_mem.get(c, scope=SCOPE) == before[c]  # not named: untouched
    payload = any_mem.events(scope=SCOPE, limit=10_000)[-1].payload
    assert payload == {
        "changes": [
            {"id": a, "tier": "subconscious", "reason": "stale for 40 days"},
            {"id": b, "tier": "durable", "reason": "shared"},
        ]
    }
    # every read filters on the field the event wrote
    assert [i.id for i in any_mem.list(scope=SCOPE, where=Q.tier("subconscious"), limit=10).items] == [a]
    plain = RecallOptions(self_correct=False)  # the corrective pass may reach into the subconscious
    assert a not in {h.item.id for h in any_mem.recall("sky blue", scope=SCOPE, options=plain)}  # below recall
    deep = RecallOptions(self_correct=False, tiers=("subconscious",))
    assert a in {h.item.id for h in any_mem.recall("sky blue", scope=SCOPE, options=deep)}


def test_as_of_and_history_see_each_item_through_the_shared_event(any_mem: Memory, clock: ManualClock) -> None:
    a, b, c = _three(any_mem)
    clock.advance(days=1)
    t_before = clock.now()
    clock.advance(days=1)
    any_mem.set_tiers({a: "subconscious", b: "durable"}, scope=SCOPE, reasons={a: "why a", b: "why b"})
    assert any_mem.get(a, scope=SCOPE, as_of=t_before).tier == "active"
    assert any_mem.get(a, scope=SCOPE, as_of=clock.now()).tier == "subconscious"
    assert any_mem.get(a, scope=SCOPE, as_of=clock.now()) == any_mem.get(a, scope=SCOPE)
    assert any_mem.get(b, scope=SCOPE, as_of=clock.now()).tier == "durable"
    for item_id in (a, b):
        types = [e.type for e in any_mem.history(item_id, scope=SCOPE).events]
        assert types == ["memory.remembered", "memory.tiers_set"]
    assert [e.type for e in any_mem.history(c, scope=SCOPE).events] == ["memory.remembered"]


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ("unknown tier", InvalidInputError),
        ("missing item", NotFoundError),
        ("stale version", VersionConflictError),
        ("repeated id", InvalidInputError),
    ],
)
def test_a_refused_move_refuses_the_whole_command_and_writes_nothing(
    any_mem: Memory, bad: str, error: type[Exception]
) -> None:
    a, b, _ = _three(any_mem)
    state, n_events = state_of(any_mem), len(_events(any_mem))
    version = any_mem.get(b, scope=SCOPE).version
    changes = [cmd.TierChange(a, "subconscious", "", None), cmd.TierChange(b, "durable", "", version)]
    if bad == "unknown tier":
        changes[1] = cmd.TierChange(b, "attic")
    elif bad == "missing item":
        changes[1] = cmd.TierChange("00000000-0000-7000-8000-000000000000", "durable")
    elif bad == "stale version":
        changes[1] = cmd.TierChange(b, "durable", "", version + 1)
    else:
        changes[1] = cmd.TierChange(a, "durable")
    with pytest.raises(error):
        any_mem._core.run([cmd.SetTiers(SCOPE, tuple(changes))])
    assert state_of(any_mem) == state and len(_events(any_mem)) == n_events


def test_boundary_validation_names_the_problem(any_mem: Memory) -> None:
    a, _, _ = _three(any_mem)
    with pytest.raises(InvalidInputError, match="mapping"):
        any_mem.set_tiers([(a, "durable")], scope=SCOPE)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="tier 'attic' is unknown"):
        any_mem.set_tiers({a: "attic"}, scope=SCOPE)
    with pytest.raises(InvalidInputError):
        any_mem.set_tiers({"not-an-id": "durable"}, scope=SCOPE)
    with pytest.raises(NotFoundError):
        any_mem.set_tiers({a: "durable"}, scope="user:bob")  # another scope: no existence oracle
    assert any_mem.get(a, scope=SCOPE).tier == "active"
    assert any_mem.set_tiers({}, scope=SCOPE) == []  # nothing asked, nothing written
    assert "memory.tiers_set" not in _events(any_mem)


def test_the_batch_limit_applies(memories, tmp_path) -> None:  # type: ignore[no-untyped-def]
    mem = memories.open(tmp_path / "l.db", limits=Limits(max_batch=2))
    a, b, c = _three(mem)
    with pytest.raises(LimitExceededError, match="3 tier changes"):
        mem.set_tiers({a: "durable", b: "durable", c: "durable"}, scope=SCOPE)
    assert [m.tier for m in mem.set_tiers({a: "durable", b: "durable"}, scope=SCOPE)] == ["durable", "durable"]


def test_a_purge_erases_only_the_purged_items_reason(any_mem: Memory) -> None:
    a, b, _ = _three(any_mem)
    any_mem.set_tiers({a: "subconscious", b: "durable"}, scope=SCOPE, reasons={a: "a's secret reason", b: "kept"})
    any_mem.forget(a, scope=SCOPE, purge=True, reason="erasure request")
    bulk = [e for e in any_mem.events(scope=SCOPE, limit=10_000) if e.type == "memory.tiers_set"]
    assert bulk[0].payload["changes"] == [
        {"id": a, "tier": "subconscious", "reason": REDACTED},
        {"id": b, "tier": "durable", "reason": "kept"},
    ]
    assert any_mem.get(b, scope=SCOPE).tier == "durable"


def test_rebuild_replays_the_bulk_event_to_the_live_state(mem: Memory, clock: ManualClock) -> None:
    a, b, c = _three(mem)
    clock.advance(seconds=1)
    mem.set_tiers({a: "subconscious", b: "durable", c: "subconscious"}, scope=SCOPE)
    clock.advance(seconds=1)
    mem.set_tier(c, "active", scope=SCOPE)  # a later single move on top of the bulk one
    before = state_of(mem)
    mem.rebuild()
    assert state_of(mem) == before
    assert mem.doctor().ok


def test_a_bulk_move_is_one_event_and_one_statement_of_three_columns(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "rows.db", durability="fast")
    with Memory(store=store, embedder="hash", seed=0) as mem:
        a, b, c = _three(mem)
        seen: list[str] = []
        store._crash_hook = seen.append  # every statement of a write, in order
        mem.set_tiers({a: "subconscious", b: "subconscious", c: "durable"}, scope=SCOPE)
        store._crash_hook = None
        assert not [sql for sql in seen if "fts" in sql or "vectors" in sql or "fingerprints" in sql]
        assert [sql for sql in seen if sql.startswith(("UPDATE items", "INSERT INTO events"))] == [
            "INSERT INTO events (id, type, scope, at, cause, payload) VALUES (?, ?, ?, ?, ?, ?)",
            "UPDATE items SET tier = ?, version = version + 1, updated_at = ? WHERE id = ? AND scope = ?",
        ]
        assert mem.doctor().ok
