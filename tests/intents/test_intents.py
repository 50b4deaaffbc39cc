"""``mem.intents``: creation, the status machine, sub-intents, queries and history, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from agenda_kit import OTHER, SCOPE

from reverie import InvalidInputError, Memory, NotFoundError
from reverie.errors import InvalidTransitionError
from reverie.model.agenda import INTENT_CREATED, INTENT_PAUSED, INTENT_RESUMED


def test_create_gives_an_active_intent_with_its_fields(any_mem: Memory) -> None:
    claim = any_mem.remember("Alice may be allergic to peanuts", scope=SCOPE)
    it = any_mem.intents.create(
        "find out about the allergy", scope=SCOPE, owner="agent-a", priority=0.8, memory_ids=[claim]
    )
    assert (it.status, it.owner, it.priority, it.memory_ids, it.version) == ("active", "agent-a", 0.8, (claim.id,), 1)
    assert any_mem.intents.get(it.id, scope=SCOPE) == it


def test_pause_resume_complete_walks_the_status_machine(any_mem: Memory) -> None:
    it = any_mem.intents.create("plan the trip", scope=SCOPE)
    paused = any_mem.intents.pause(it, scope=SCOPE, reason="waiting for dates")
    assert (paused.status, paused.reason, paused.version) == ("paused", "waiting for dates", 2)
    assert any_mem.intents.resume(it, scope=SCOPE).status == "active"
    done = any_mem.intents.complete(it, scope=SCOPE, reason="booked")
    assert done.status == "completed" and not done.is_open
    types = [e.type for e in any_mem.intents.history(it, scope=SCOPE)]
    assert types == [INTENT_CREATED, INTENT_PAUSED, INTENT_RESUMED, "intent.completed"]


def test_a_paused_intent_can_be_cancelled(any_mem: Memory) -> None:
    it = any_mem.intents.create("learn Rust", scope=SCOPE)
    any_mem.intents.pause(it, scope=SCOPE)
    assert any_mem.intents.cancel(it, scope=SCOPE).status == "cancelled"


@pytest.mark.parametrize(
    ("moves", "refused", "status", "allowed"),
    [
        (["complete"], "resume", "completed", "nothing moves it on"),
        (["cancel"], "pause", "cancelled", "nothing moves it on"),
        ([], "resume", "active", "you can pause, complete, cancel"),
        (["pause"], "pause", "paused", "you can resume, complete, cancel"),
    ],
)
def test_an_invalid_move_names_the_status_and_the_allowed_moves_and_changes_nothing(
    any_mem: Memory, snapshot: Any, moves: list[str], refused: str, status: str, allowed: str
) -> None:
    it = any_mem.intents.create("plan the trip", scope=SCOPE)
    for move in moves:
        any_mem.intents.transition(it, move, scope=SCOPE)
    before = snapshot(any_mem)
    with pytest.raises(InvalidTransitionError) as err:
        any_mem.intents.transition(it, refused, scope=SCOPE)
    assert err.value.code == "invalid_transition"
    assert f"it is {status}" in err.value.message and allowed in err.value.message
    assert snapshot(any_mem) == before


def test_sub_intents_are_listed_under_their_parent(any_mem: Memory) -> None:
    top = any_mem.intents.create("move to Berlin", scope=SCOPE)
    a = any_mem.intents.create("find a flat", scope=SCOPE, parent=top)
    b = any_mem.intents.create("register the address", scope=SCOPE, parent=top.id)
    any_mem.intents.create("unrelated", scope=SCOPE)
    assert [i.id for i in any_mem.intents.children(top, scope=SCOPE)] == [a.id, b.id]


def test_a_sub_intent_of_a_finished_intent_is_refused(any_mem: Memory, snapshot: Any) -> None:
    top = any_mem.intents.create("move to Berlin", scope=SCOPE)
    any_mem.intents.cancel(top, scope=SCOPE)
    before = snapshot(any_mem)
    with pytest.raises(InvalidTransitionError, match="cancelled"):
        any_mem.intents.create("find a flat", scope=SCOPE, parent=top)
    assert snapshot(any_mem) == before


def test_list_filters_by_owner_status_priority_parent_and_linked_memory(any_mem: Memory) -> None:
    claim = any_mem.remember("Alice likes tea", scope=SCOPE)
    hi = any_mem.intents.create("a", scope=SCOPE, owner="ann", priority=0.9, memory_ids=[claim.id])
    lo = any_mem.intents.create("b", scope=SCOPE, owner="bo", priority=0.1)
    mid = any_mem.intents.create("c", scope=SCOPE, owner="ann", priority=0.5, parent=lo)
    any_mem.intents.pause(mid, scope=SCOPE)
    ids = lambda found: [i.id for i in found]  # noqa: E731
    assert ids(any_mem.intents.list(scope=SCOPE)) == [hi.id, mid.id, lo.id]  # priority, highest first
    assert ids(any_mem.intents.list(scope=SCOPE, owner="ann")) == [hi.id, mid.id]
    assert ids(any_mem.intents.list(scope=SCOPE, status="paused")) == [mid.id]
    assert ids(any_mem.intents.list(scope=SCOPE, status=["active"], min_priority=0.2)) == [hi.id]
    assert ids(any_mem.intents.list(scope=SCOPE, parent=lo)) == [mid.id]
    assert ids(any_mem.intents.list(scope=SCOPE, memory=claim)) == [hi.id]


def test_an_unknown_status_in_a_query_is_refused_with_the_choices(any_mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="active, paused, completed, cancelled"):
        any_mem.intents.list(scope=SCOPE, status="done")


def test_intents_are_invisible_from_another_scope(any_mem: Memory, snapshot: Any) -> None:
    it = any_mem.intents.create("secret plan", scope=SCOPE)
    assert any_mem.intents.list(scope=OTHER) == []
    with pytest.raises(NotFoundError):
        any_mem.intents.get(it.id, scope=OTHER)
    before = snapshot(any_mem)
    with pytest.raises(NotFoundError):
        any_mem.intents.pause(it.id, scope=OTHER)
    with pytest.raises(NotFoundError):
        any_mem.intents.create("child", scope=OTHER, parent=it.id)
    assert snapshot(any_mem) == before


def test_a_linked_memory_from_another_scope_is_refused(any_mem: Memory, snapshot: Any) -> None:
    theirs = any_mem.remember("Bob's claim", scope=OTHER)
    before = snapshot(any_mem)
    with pytest.raises(NotFoundError, match="not in scope"):
        any_mem.intents.create("about bob", scope=SCOPE, memory_ids=[theirs.id])
    assert snapshot(any_mem) == before


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"label": ""}, "label is empty"),
        ({"priority": 1.5}, "priority must be in [0, 1]"),
        ({"priority": True}, "priority must be a number"),
        ({"owner": "a\nb"}, "owner"),
        ({"parent": "not-an-id"}, "not a reverie id"),
        ({"memory_ids": "0190c0de-0000-7000-8000-000000000000"}, "must be a list"),
    ],
)
def test_bad_input_gets_a_clear_error_and_stores_nothing(
    any_mem: Memory, snapshot: Any, fields: dict[str, Any], fragment: str
) -> None:
    args: dict[str, Any] = {"label": "a goal", **fields}
    before = snapshot(any_mem)
    with pytest.raises(InvalidInputError) as err:
        any_mem.intents.create(args.pop("label"), scope=SCOPE, **args)
    assert fragment in err.value.message
    assert snapshot(any_mem) == before


def test_a_stale_expected_version_is_refused(any_mem: Memory) -> None:
    from reverie import VersionConflictError

    it = any_mem.intents.create("goal", scope=SCOPE)
    any_mem.intents.pause(it, scope=SCOPE)
    with pytest.raises(VersionConflictError, match="version 2, not 1"):
        any_mem.intents.transition(it, "resume", scope=SCOPE, expected_version=1)
