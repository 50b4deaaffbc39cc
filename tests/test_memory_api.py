"""The first face: every behaviour of ``Memory``'s belief-store API, judged by what reads return.

Most tests run on both backends (``any_mem``: a SQLite file and the in-memory reference
store); the ones about files (reopen, backup, ``:memory:``) run on SQLite only.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import (
    AlreadyClosedError,
    Candidate,
    ClosedError,
    DismissedValueError,
    Edge,
    InvalidInputError,
    Item,
    LearningPausedError,
    ManualClock,
    Memory,
    NotFoundError,
    Provenance,
    Q,
    VersionConflictError,
)
from reverie.model.events import EVENT_TYPES
from reverie.model.item import EDGE_TYPES
from strategies import OTHER_SCOPE, SCOPE, state_of


def texts(mem: Memory, **kwargs: Any) -> list[str]:
    return [i.text for i in mem.list(scope=SCOPE, limit=1000, **kwargs).items]


# -- remember ---------------------------------------------------------------------------------


def test_remember_returns_stored_item_with_every_field(any_mem: Memory, clock: ManualClock) -> None:
    valid_from = datetime(2024, 6, 1, tzinfo=UTC)
    valid_to = datetime(2030, 1, 1, tzinfo=UTC)
    item = any_mem.remember(
        "Alice is allergic to peanuts",
        scope=SCOPE,
        kind="assertion",
        source="user_stated",
        key="alice.allergy",
        value="peanuts",
        author="alice",
        tags=["health", "food", "health"],
        meta={"turn": 3},
        provenance={"origin": "conversation", "ref": "conv-1", "locator": "turn-3"},
        confidence=0.9,
        importance=0.8,
        durability=0.6,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    parsed = uuid.UUID(item.id)
    assert parsed.version == 7 and str(parsed) == item.id
    assert (item.scope, item.text, item.kind, item.source) == (
        SCOPE,
        "Alice is allergic to peanuts",
        "assertion",
        "user_stated",
    )
    assert (item.key, item.value, item.author) == ("alice.allergy", "peanuts", "alice")
    assert item.tags == ("health", "food")  # duplicates dropped, order kept
    assert item.meta == {"turn": 3}
    assert item.parents == ()
    assert (item.provenance.origin, item.provenance.ref, item.provenance.locator) == (
        "conversation",
        "conv-1",
        "turn-3",
    )
    remembered = any_mem.events(scope=SCOPE)[-1]
    assert remembered.type == "memory.remembered"
    assert item.provenance.event_id == remembered.id
    assert item.scores.to_dict() == {
        "authority": 0.8,  # the default for user_stated
        "confidence": 0.9,
        "importance": 0.8,
        "durability": 0.6,
        "value": 0.5,
    }
    assert (item.evidence_count, item.tier, item.status, item.flags, item.version) == (1, "active", "live", (), 1)
    assert (item.valid_from, item.valid_to, item.closed_at) == (valid_from, valid_to, None)
    assert item.recorded_at == item.updated_at == item.last_seen_at == clock.now()
    assert (item.last_used_at, item.last_used_query, item.use_count) == (None, None, 0)
    assert item.is_current
    assert any_mem.get(item.id, scope=SCOPE) == item


@pytest.mark.parametrize(("source", "authority"), [("user_stated", 0.8), ("observed", 0.7), ("inferred", 0.4)])
def test_default_authority_follows_source(any_mem: Memory, source: str, authority: float) -> None:
    assert any_mem.remember("a claim", scope=SCOPE, source=source).scores.authority == authority


def test_explicit_scores_override_defaults(any_mem: Memory) -> None:
    item = any_mem.remember("x", scope=SCOPE, scores={"authority": 0.1, "value": 0.9}, importance=0.2)
    assert (item.scores.authority, item.scores.value, item.scores.importance) == (0.1, 0.9, 0.2)


def test_ids_sort_by_creation_time(any_mem: Memory, clock: ManualClock) -> None:
    ids = []
    for i in range(5):
        ids.append(any_mem.remember(f"claim {i}", scope=SCOPE).id)
        if i % 2:
            clock.advance(milliseconds=3)
    assert ids == sorted(ids) and len(set(ids)) == 5


NESTED_META: dict[str, Any] = {
    "unicode": "żółw 🐢 \u202eRTL\u202c e\u0301",
    "float": 0.1,
    "whole_float": 1.0,
    "neg": -2.5e-300,
    "big": 2**63 - 1,
    "bools": [True, False],
    "null": None,
    "nested": {"list": [1, "two", {"three": [None, 3.0]}], "empty": {}, "empty_list": []},
    "": "empty key",
}


def _assert_same_json(a: Any, b: Any) -> None:
    """Equal *and* the same JSON types all the way down (1.0 stays a float, True stays a bool)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b) or sorted(a) == sorted(b)
        for k in a:
            _assert_same_json(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_same_json(x, y)
    else:
        assert a == b


def test_meta_round_trips_exactly(any_mem: Memory) -> None:
    item = any_mem.remember("meta carrier", scope=SCOPE, meta=NESTED_META)
    _assert_same_json(item.meta, NESTED_META)
    _assert_same_json(any_mem.get(item.id, scope=SCOPE).meta, NESTED_META)


def test_meta_round_trips_after_reopen(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    item = mem.remember("meta carrier", scope=SCOPE, meta=NESTED_META)
    mem.close()
    _assert_same_json(open_mem().get(item.id, scope=SCOPE).meta, NESTED_META)


def test_remember_same_normalised_text_corroborates(any_mem: Memory, clock: ManualClock) -> None:
    first = any_mem.remember("Alice likes tea", scope=SCOPE)
    clock.advance(hours=1)
    again = any_mem.remember("  alice   LIKES tea. ", scope=SCOPE, source="inferred")
    assert again.id == first.id
    assert again.text == "Alice likes tea"  # the first wording stays
    assert again.evidence_count == 2
    assert again.last_seen_at == clock.now() > first.last_seen_at
    assert again.recorded_at == first.recorded_at
    assert again.version == 2
    assert texts(any_mem) == ["Alice likes tea"]
    assert any_mem.events(scope=SCOPE)[-1].type == "memory.corroborated"


def test_each_corroboration_counts_as_evidence(any_mem: Memory) -> None:
    for variant in ["Sky is blue", "sky is blue!", "SKY IS BLUE", "sky  is blue?"]:
        item = any_mem.remember(variant, scope=SCOPE)
    assert item.evidence_count == 4
    assert any_mem.summary(scope=SCOPE)["current"] == 1


def test_same_key_and_value_corroborates_different_text(any_mem: Memory) -> None:
    first = any_mem.remember("Alice drinks tea", scope=SCOPE, key="alice.drink", value="tea")
    again = any_mem.remember("tea is what Alice drinks", scope=SCOPE, key="Alice.Drink", value="Tea")
    assert again.id == first.id and again.evidence_count == 2
    assert texts(any_mem) == ["Alice drinks tea"]


def test_same_key_other_value_is_a_new_claim(any_mem: Memory) -> None:
    a = any_mem.remember("Alice drinks tea", scope=SCOPE, key="alice.drink", value="tea")
    b = any_mem.remember("Alice drinks coffee", scope=SCOPE, key="alice.drink", value="coffee")
    assert a.id != b.id and b.evidence_count == 1
    assert len(texts(any_mem)) == 2


def test_equal_text_in_another_scope_does_not_corroborate(any_mem: Memory) -> None:
    a = any_mem.remember("shared words", scope=SCOPE)
    b = any_mem.remember("shared words", scope=OTHER_SCOPE)
    assert a.id != b.id
    assert any_mem.get(a.id, scope=SCOPE).evidence_count == 1


def test_forgotten_claim_can_be_learned_again_as_new_item(any_mem: Memory) -> None:
    a = any_mem.remember("Bob lives in Paris", scope=SCOPE)
    any_mem.forget(a.id, scope=SCOPE)
    b = any_mem.remember("Bob lives in Paris", scope=SCOPE)
    assert b.id != a.id and b.evidence_count == 1 and b.is_current


def test_claim_stays_corroborable_after_a_duplicate_version_is_forgotten(any_mem: Memory) -> None:
    """Regression: revising A into B's wording made two live claims share a fingerprint; the
    index kept one holder, so forgetting A's new version left B unfindable (SQLite then stored
    a duplicate of B) or re-pointed it only when B happened to change (reference store)."""
    a = any_mem.remember("Alice likes tea", scope=SCOPE)
    b = any_mem.remember("Bob likes coffee", scope=SCOPE)
    # A change in the world (valid_from) keeps a revise a new version even in B's words; a
    # correction into them corroborates B instead (tests/beliefs/test_revise_hygiene.py).
    a2 = any_mem.revise(a.id, "bob likes coffee", scope=SCOPE, valid_from=a.recorded_at)
    again = any_mem.remember("Bob likes coffee", scope=SCOPE)
    assert again.id == b.id  # the oldest live holder is corroborated
    any_mem.set_scores(b.id, scope=SCOPE, importance=0.9)
    any_mem.forget(a2.id, scope=SCOPE)
    third = any_mem.remember("BOB LIKES COFFEE", scope=SCOPE)
    assert third.id == b.id and third.evidence_count == 3
    assert texts(any_mem) == ["Bob likes coffee"]


def test_remember_manual_and_system_set_their_source(any_mem: Memory) -> None:
    manual = any_mem.remember_manual("A person vouches", scope=SCOPE)
    system = any_mem.remember_system("A derived gist", scope=SCOPE)
    assert (manual.source, manual.scores.authority) == ("manual", 1.0)
    assert (system.source, system.scores.authority) == ("system", 0.9)


def test_remember_with_parents_records_them(any_mem: Memory) -> None:
    a = any_mem.remember("parent one", scope=SCOPE)
    b = any_mem.remember("parent two", scope=SCOPE)
    child = any_mem.remember("child", scope=SCOPE, parents=[a.id, b.id], kind="derivation")
    assert child.parents == (a.id, b.id)


def test_remember_with_unknown_parent_is_refused(any_mem: Memory) -> None:
    before = state_of(any_mem)
    with pytest.raises(NotFoundError):
        any_mem.remember("orphan", scope=SCOPE, parents=[str(uuid.uuid4())])
    assert state_of(any_mem) == before


# -- remember_many ----------------------------------------------------------------------------


def test_remember_many_stores_every_entry_in_order(any_mem: Memory) -> None:
    items = any_mem.remember_many(
        [
            Candidate("first", kind="assertion", source="user_stated"),
            {"text": "second", "tags": ["x"]},
            "third",
        ],
        scope=SCOPE,
    )
    assert [i.text for i in items] == ["first", "second", "third"]
    assert items[0].source == "user_stated" and items[1].tags == ("x",)
    assert sorted(texts(any_mem)) == ["first", "second", "third"]


def test_remember_many_is_one_transaction_refused_by_dismissed_entry(any_mem: Memory) -> None:
    gone = any_mem.remember("Alice likes jazz", scope=SCOPE)
    any_mem.dismiss(gone.id, scope=SCOPE)
    before = state_of(any_mem)
    with pytest.raises(DismissedValueError):
        any_mem.remember_many(["fine one", "ALICE LIKES JAZZ!", "fine two"], scope=SCOPE)
    assert state_of(any_mem) == before
    assert texts(any_mem) == []


def test_remember_many_is_one_transaction_refused_by_invalid_score(any_mem: Memory) -> None:
    before = state_of(any_mem)
    with pytest.raises(InvalidInputError):
        any_mem.remember_many([{"text": "ok"}, {"text": "bad", "importance": 1.5}], scope=SCOPE)
    assert state_of(any_mem) == before


def test_remember_many_equal_texts_corroborate_within_batch(any_mem: Memory) -> None:
    items = any_mem.remember_many(["Tea is hot", "tea is hot.", "other"], scope=SCOPE)
    assert items[0].id == items[1].id
    assert items[1].evidence_count == 2
    assert sorted(texts(any_mem)) == ["Tea is hot", "other"]


def test_remember_many_refused_while_paused_stores_nothing(any_mem: Memory) -> None:
    any_mem.pause_learning(SCOPE)
    before = state_of(any_mem)
    with pytest.raises(LearningPausedError):
        any_mem.remember_many(["a", "b"], scope=SCOPE)
    assert state_of(any_mem) == before


# -- revise and history -----------------------------------------------------------------------


def test_revise_creates_new_version_superseding_old(any_mem: Memory, clock: ManualClock) -> None:
    old = any_mem.remember("Bob lives in Paris", scope=SCOPE, key="bob.city", value="Paris", tags=["geo"])
    clock.advance(days=1)
    new = any_mem.revise(old.id, "Bob lives in Berlin", scope=SCOPE, reason="moved", value="Berlin")
    assert new.id != old.id and new.id > old.id
    assert (new.text, new.key, new.value, new.tags) == ("Bob lives in Berlin", "bob.city", "Berlin", ("geo",))
    assert new.version == old.version + 1 and new.is_current and new.recorded_at == clock.now()
    closed = any_mem.get(old.id, scope=SCOPE)
    assert closed.status == "superseded" and closed.closed_at == clock.now()
    [edge] = [e for e in any_mem.edges(new.id, scope=SCOPE) if e.type == "supersedes"]
    assert (edge.src, edge.dst, edge.meta) == (new.id, old.id, {"reason": "moved"})
    assert texts(any_mem) == ["Bob lives in Berlin"]
    history = any_mem.history(old.id, scope=SCOPE)
    assert [v.id for v in history.versions] == [old.id, new.id]
    assert [e.type for e in history.events] == ["memory.remembered", "memory.revised"]


def test_history_follows_every_version_from_any_of_them(any_mem: Memory, clock: ManualClock) -> None:
    v1 = any_mem.remember("v1", scope=SCOPE)
    clock.advance(seconds=1)
    v2 = any_mem.revise(v1.id, "v2", scope=SCOPE)
    clock.advance(seconds=1)
    v3 = any_mem.revise(v2.id, "v3", scope=SCOPE)
    for start in (v1, v2, v3):
        versions = any_mem.history(start.id, scope=SCOPE).versions
        assert [v.id for v in versions] == [v1.id, v2.id, v3.id]
        assert [v.status for v in versions] == ["superseded", "superseded", "live"]
    # Each version numbers on from the one it replaced (closing a version is a change of its own).
    assert [v1.version, v2.version, v3.version] == [1, 2, 3]


def test_history_events_are_those_that_touched_the_claim(any_mem: Memory, clock: ManualClock) -> None:
    """Only events about the claim's versions: not a child's creation that merely names it as a parent."""
    parent = any_mem.remember("parent claim", scope=SCOPE)
    other = any_mem.remember("other claim", scope=SCOPE)
    any_mem.remember("child claim", scope=SCOPE, parents=[parent.id])
    any_mem.remember("unrelated text that quotes " + parent.id, scope=SCOPE)
    edge = any_mem.link(parent.id, other.id, "supports", scope=SCOPE)
    any_mem.unlink(edge.id, scope=SCOPE)
    any_mem.record_use(SCOPE, [(parent.id, 1.0)], "q")
    clock.advance(seconds=1)
    new = any_mem.revise(parent.id, "parent claim v2", scope=SCOPE)
    any_mem.set_scores(new.id, scope=SCOPE, importance=0.9)
    history = any_mem.history(parent.id, scope=SCOPE)
    assert [e.type for e in history.events] == [
        "memory.remembered",
        "edge.linked",
        "memory.used",
        "memory.revised",
        "memory.scores_set",
        "memory.flags_set",  # importance set by a person: flagged importance_stated (it never settles)
    ]


def test_revise_with_stale_expected_version_changes_nothing(any_mem: Memory) -> None:
    item = any_mem.remember("counter is 1", scope=SCOPE)
    any_mem.remember("Counter is 1.", scope=SCOPE)  # corroboration bumps the version to 2
    before = state_of(any_mem)
    with pytest.raises(VersionConflictError) as info:
        any_mem.revise(item.id, "counter is 2", scope=SCOPE, expected_version=1)
    assert info.value.code == "version_conflict"
    assert state_of(any_mem) == before


def test_revise_with_current_expected_version_succeeds(any_mem: Memory) -> None:
    item = any_mem.remember("counter is 1", scope=SCOPE)
    new = any_mem.revise(item.id, "counter is 2", scope=SCOPE, expected_version=item.version)
    assert new.text == "counter is 2"


def test_revise_closed_item_is_refused(any_mem: Memory) -> None:
    item = any_mem.remember("short lived", scope=SCOPE)
    any_mem.revise(item.id, "replaced", scope=SCOPE)
    before = state_of(any_mem)
    with pytest.raises(AlreadyClosedError):
        any_mem.revise(item.id, "again", scope=SCOPE)
    assert state_of(any_mem) == before


def test_revise_into_dismissed_text_is_refused(any_mem: Memory) -> None:
    bad = any_mem.remember("Alice hates tea", scope=SCOPE)
    any_mem.dismiss(bad.id, scope=SCOPE)
    item = any_mem.remember("Alice likes tea", scope=SCOPE)
    before = state_of(any_mem)
    with pytest.raises(DismissedValueError):
        any_mem.revise(item.id, "alice hates tea", scope=SCOPE)
    assert state_of(any_mem) == before


# -- forget and as_of ---------------------------------------------------------------------------


def test_forget_closes_validity_and_deletes_nothing(any_mem: Memory, clock: ManualClock) -> None:
    item = any_mem.remember("Carol is 30", scope=SCOPE)
    clock.advance(days=2)
    forgotten = any_mem.forget(item.id, scope=SCOPE, reason="outdated")
    assert forgotten.status == "forgotten"
    assert forgotten.closed_at == forgotten.valid_to == clock.now()
    assert not forgotten.is_current
    assert any_mem.get(item.id, scope=SCOPE) == forgotten
    assert forgotten.text == "Carol is 30"


def test_forget_hides_item_from_current_list(any_mem: Memory) -> None:
    keep = any_mem.remember("keep me", scope=SCOPE)
    drop = any_mem.remember("drop me", scope=SCOPE)
    any_mem.forget(drop.id, scope=SCOPE)
    assert [i.id for i in any_mem.list(scope=SCOPE).items] == [keep.id]
    assert {i.id for i in any_mem.list(scope=SCOPE, include_closed=True).items} == {keep.id, drop.id}


def test_forget_keeps_an_earlier_valid_to(any_mem: Memory, clock: ManualClock) -> None:
    ended = clock.now() + timedelta(days=1)
    item = any_mem.remember("promo runs this week", scope=SCOPE, valid_to=ended)
    clock.advance(days=5)
    assert any_mem.forget(item.id, scope=SCOPE).valid_to == ended


def test_forget_twice_is_refused(any_mem: Memory) -> None:
    item = any_mem.remember("once", scope=SCOPE)
    any_mem.forget(item.id, scope=SCOPE)
    with pytest.raises(AlreadyClosedError):
        any_mem.forget(item.id, scope=SCOPE)


def test_forget_with_stale_expected_version_changes_nothing(any_mem: Memory) -> None:
    item = any_mem.remember("versioned", scope=SCOPE)
    any_mem.set_scores(item.id, scope=SCOPE, importance=0.9)
    before = state_of(any_mem)
    with pytest.raises(VersionConflictError):
        any_mem.forget(item.id, scope=SCOPE, expected_version=1)
    assert state_of(any_mem) == before


@pytest.mark.parametrize("close", ["forget", "dismiss", "revise"])
def test_closed_item_leaves_current_text_and_vector_indexes(any_mem: Memory, close: str) -> None:
    """Every mutation that closes a claim is checked against the indexes current-truth reads use."""
    keep = any_mem.remember("zebra keeps grazing", scope=SCOPE)
    gone = any_mem.remember("zebra walked away", scope=SCOPE)
    if close == "forget":
        any_mem.forget(gone.id, scope=SCOPE)
    elif close == "dismiss":
        any_mem.dismiss(gone.id, scope=SCOPE)
    else:
        any_mem.revise(gone.id, "okapi walked away", scope=SCOPE)
    current = {i.id for i in any_mem.list(scope=SCOPE).items}
    assert gone.id not in current
    assert {i for i, _ in any_mem.store.lexical(SCOPE, "zebra", limit=10)} == {keep.id}
    assert {i for i, _ in any_mem.store.lexical(SCOPE, "zebra", limit=10, current_only=False)} == {keep.id, gone.id}
    vector_ids, matrix = any_mem.store.vectors(SCOPE)
    assert set(vector_ids) == current and matrix.shape[0] == len(current)
    all_ids, _ = any_mem.store.vectors(SCOPE, current_only=False)
    assert set(all_ids) == current | {gone.id}


def test_get_as_of_before_forget_returns_live_state(any_mem: Memory, clock: ManualClock) -> None:
    item = any_mem.remember("Dan works at Acme", scope=SCOPE)
    clock.advance(hours=1)
    middle = clock.now()
    clock.advance(hours=1)
    any_mem.forget(item.id, scope=SCOPE)
    past = any_mem.get(item.id, scope=SCOPE, as_of=middle)
    assert past == item and past.status == "live" and past.is_current
    assert any_mem.get(item.id, scope=SCOPE, as_of=clock.now()).status == "forgotten"


def test_get_as_of_sees_each_intermediate_state(any_mem: Memory, clock: ManualClock) -> None:
    item = any_mem.remember("scored", scope=SCOPE)
    clock.advance(minutes=1)
    any_mem.set_scores(item.id, scope=SCOPE, importance=0.9)
    after_first = clock.now()
    clock.advance(minutes=1)
    any_mem.set_scores(item.id, scope=SCOPE, importance=0.1)
    assert any_mem.get(item.id, scope=SCOPE, as_of=after_first).scores.importance == 0.9
    assert any_mem.get(item.id, scope=SCOPE).scores.importance == 0.1


def test_get_as_of_before_recorded_raises_not_found(any_mem: Memory, clock: ManualClock) -> None:
    before = clock.now()
    clock.advance(seconds=1)
    item = any_mem.remember("later", scope=SCOPE)
    with pytest.raises(NotFoundError):
        any_mem.get(item.id, scope=SCOPE, as_of=before)


def test_get_as_of_works_for_revised_versions(any_mem: Memory, clock: ManualClock) -> None:
    """Regression: replaying a ``memory.revised`` event for the *new* version needed the old one."""
    old = any_mem.remember("Eve likes red", scope=SCOPE)
    clock.advance(hours=1)
    new = any_mem.revise(old.id, "Eve likes blue", scope=SCOPE)
    revised_at = clock.now()
    clock.advance(hours=1)
    any_mem.forget(new.id, scope=SCOPE)
    assert any_mem.get(new.id, scope=SCOPE, as_of=revised_at) == new
    assert any_mem.get(old.id, scope=SCOPE, as_of=revised_at).status == "superseded"
    assert any_mem.get(old.id, scope=SCOPE, as_of=revised_at - timedelta(minutes=1)) == old
    with pytest.raises(NotFoundError):
        any_mem.get(new.id, scope=SCOPE, as_of=revised_at - timedelta(minutes=1))


def test_get_as_of_child_with_parent_is_unaffected_by_parent_events(any_mem: Memory, clock: ManualClock) -> None:
    parent = any_mem.remember("parent", scope=SCOPE)
    child = any_mem.remember("child", scope=SCOPE, parents=[parent.id])
    clock.advance(hours=1)
    any_mem.revise(child.id, "child v2", scope=SCOPE)
    assert any_mem.get(parent.id, scope=SCOPE, as_of=clock.now()) == parent


# -- dismiss / undismiss ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    [
        "Alice likes tea",
        "ALICE LIKES TEA",
        "  alice   likes\ttea  ",
        "Alice likes tea.",
        "alice likes tea!!",
        "Alice likes tea ?",
    ],
)
def test_dismissed_text_is_refused_in_any_spelling(any_mem: Memory, variant: str) -> None:
    item = any_mem.remember("Alice likes tea", scope=SCOPE)
    dismissed = any_mem.dismiss(item.id, scope=SCOPE, reason="wrong")
    assert dismissed.status == "dismissed" and dismissed.closed_at is not None
    before = state_of(any_mem)
    with pytest.raises(DismissedValueError) as info:
        any_mem.remember(variant, scope=SCOPE)
    assert info.value.code == "dismissed_value"
    assert state_of(any_mem) == before


def test_dismiss_removes_item_from_current_truth_but_keeps_it(any_mem: Memory) -> None:
    item = any_mem.remember("false belief", scope=SCOPE)
    any_mem.dismiss(item.id, scope=SCOPE)
    assert texts(any_mem) == []
    assert texts(any_mem, include_closed=True) == ["false belief"]
    assert any_mem.get(item.id, scope=SCOPE).status == "dismissed"


def test_key_value_tombstone_refuses_other_text_with_same_key_value(any_mem: Memory) -> None:
    item = any_mem.remember("Alice's drink is tea", scope=SCOPE, key="alice.drink", value="tea")
    any_mem.dismiss(item.id, scope=SCOPE)
    with pytest.raises(DismissedValueError):
        any_mem.remember("Alice prefers tea", scope=SCOPE, key="ALICE.drink", value="Tea.")
    other = any_mem.remember("Alice prefers coffee", scope=SCOPE, key="alice.drink", value="coffee")
    assert other.is_current


def test_undismiss_by_text_allows_the_text_again(any_mem: Memory) -> None:
    item = any_mem.remember("Alice likes tea", scope=SCOPE)
    any_mem.dismiss(item.id, scope=SCOPE)
    any_mem.undismiss("alice likes tea", scope=SCOPE)
    again = any_mem.remember("Alice likes tea", scope=SCOPE)
    assert again.id != item.id and again.is_current
    assert any_mem.summary(scope=SCOPE)["tombstones"] == 0


def test_undismiss_by_key_value_allows_the_value_again(any_mem: Memory) -> None:
    item = any_mem.remember("drink: tea", scope=SCOPE, key="alice.drink", value="tea")
    any_mem.dismiss(item.id, scope=SCOPE)
    any_mem.undismiss(scope=SCOPE, key="alice.drink", value="tea")
    assert any_mem.remember("Alice drinks tea", scope=SCOPE, key="alice.drink", value="tea").is_current
    with pytest.raises(DismissedValueError):  # the text tombstone is still there
        any_mem.remember("drink: tea", scope=SCOPE)


def test_undismiss_without_matching_tombstone_is_not_found(any_mem: Memory) -> None:
    with pytest.raises(NotFoundError):
        any_mem.undismiss("never dismissed", scope=SCOPE)


def test_undismiss_needs_text_or_key_and_value(any_mem: Memory) -> None:
    with pytest.raises(InvalidInputError):
        any_mem.undismiss(scope=SCOPE, key="only.key")


def test_dismissing_a_forgotten_item_still_tombstones_its_value(any_mem: Memory) -> None:
    item = any_mem.remember("old rumour", scope=SCOPE)
    any_mem.forget(item.id, scope=SCOPE)
    assert any_mem.dismiss(item.id, scope=SCOPE).status == "forgotten"
    with pytest.raises(DismissedValueError):
        any_mem.remember("Old rumour.", scope=SCOPE)


def test_tombstones_are_per_scope(any_mem: Memory) -> None:
    item = any_mem.remember("scoped value", scope=SCOPE)
    any_mem.dismiss(item.id, scope=SCOPE)
    assert any_mem.remember("scoped value", scope=OTHER_SCOPE).is_current


# -- pause / resume -------------------------------------------------------------------------------


def test_pause_learning_refuses_remember_and_revise_but_reads_work(any_mem: Memory) -> None:
    item = any_mem.remember("before pause", scope=SCOPE)
    any_mem.pause_learning(SCOPE, reason="review")
    assert any_mem.summary(scope=SCOPE)["learning_paused"] is True
    before = state_of(any_mem)
    with pytest.raises(LearningPausedError) as info:
        any_mem.remember("during pause", scope=SCOPE)
    assert info.value.code == "learning_paused"
    with pytest.raises(LearningPausedError):
        any_mem.revise(item.id, "changed", scope=SCOPE)
    with pytest.raises(LearningPausedError):
        any_mem.remember_manual("even manual", scope=SCOPE)
    assert state_of(any_mem) == before
    assert any_mem.get(item.id, scope=SCOPE) == item
    assert texts(any_mem) == ["before pause"]


def test_pause_learning_is_per_scope(any_mem: Memory) -> None:
    any_mem.pause_learning(SCOPE)
    assert any_mem.remember("elsewhere", scope=OTHER_SCOPE).is_current
    assert any_mem.summary(scope=OTHER_SCOPE)["learning_paused"] is False


def test_curation_still_works_while_learning_is_paused(any_mem: Memory) -> None:
    item = any_mem.remember("curate me", scope=SCOPE)
    any_mem.pause_learning(SCOPE)
    assert any_mem.forget(item.id, scope=SCOPE).status == "forgotten"
    assert any_mem.dismiss(item.id, scope=SCOPE).status == "forgotten"


def test_resume_learning_restores_writes(any_mem: Memory) -> None:
    any_mem.pause_learning(SCOPE)
    any_mem.resume_learning(SCOPE)
    assert any_mem.summary(scope=SCOPE)["learning_paused"] is False
    assert any_mem.remember("after resume", scope=SCOPE).is_current


def test_pause_and_resume_are_idempotent(any_mem: Memory) -> None:
    any_mem.pause_learning(SCOPE)
    any_mem.pause_learning(SCOPE)
    any_mem.resume_learning(SCOPE)
    any_mem.resume_learning(SCOPE)
    types = [e.type for e in any_mem.events(scope=SCOPE)]
    assert types == ["scope.learning_paused", "scope.learning_resumed"]


# -- summary ------------------------------------------------------------------------------------


def test_summary_counts_by_tier_kind_source_and_status(any_mem: Memory) -> None:
    any_mem.remember("a", scope=SCOPE, kind="assertion", source="user_stated")
    b = any_mem.remember("b", scope=SCOPE, kind="assertion")
    c = any_mem.remember("c", scope=SCOPE, kind="policy", source="inferred")
    d = any_mem.remember("d", scope=SCOPE)
    e = any_mem.remember("e", scope=SCOPE)
    f = any_mem.remember("f", scope=SCOPE)
    any_mem.set_tier(b.id, "subconscious", scope=SCOPE)
    any_mem.promote(c.id, scope=SCOPE, to="durable")
    any_mem.forget(d.id, scope=SCOPE)
    any_mem.dismiss(e.id, scope=SCOPE)
    any_mem.revise(f.id, "f2", scope=SCOPE)
    any_mem.remember("other scope", scope=OTHER_SCOPE)
    summary = any_mem.summary(scope=SCOPE)
    assert summary == {
        "scope": SCOPE,
        "current": 4,
        "active": 3,
        "subconscious": 1,
        "by_tier": {"active": 2, "durable": 1, "subconscious": 1},
        "by_kind": {"assertion": 2, "observation": 1, "policy": 1},
        "by_source": {"inferred": 1, "observed": 2, "user_stated": 1},
        "dismissed": 1,
        "forgotten": 1,
        "superseded": 1,
        "not_yet_valid": 0,
        "ended": 0,
        "tombstones": 1,
        "learning_paused": False,
        "vectors_pending": 0,
    }


def test_summary_of_empty_scope_is_all_zero(any_mem: Memory) -> None:
    summary = any_mem.summary(scope="empty:scope")
    assert summary["current"] == 0 and summary["by_tier"] == {} and summary["tombstones"] == 0


# -- edges --------------------------------------------------------------------------------------


@pytest.mark.parametrize("edge_type", EDGE_TYPES)
def test_link_adds_typed_edge_visible_from_both_ends(any_mem: Memory, edge_type: str, clock: ManualClock) -> None:
    a = any_mem.remember("claim a", scope=SCOPE)
    b = any_mem.remember("claim b", scope=SCOPE)
    edge = any_mem.link(a.id, b.id, edge_type, scope=SCOPE, author="agent", authority=0.7, meta={"why": "test"})
    assert isinstance(edge, Edge)
    assert (edge.type, edge.src, edge.dst, edge.scope) == (edge_type, a.id, b.id, SCOPE)
    assert (edge.author, edge.authority, edge.meta) == ("agent", 0.7, {"why": "test"})
    assert edge.recorded_at == clock.now() and edge.is_current
    assert any_mem.edges(a.id, scope=SCOPE) == [edge]
    assert any_mem.edges(b.id, scope=SCOPE) == [edge]
    assert any_mem.edges(scope=SCOPE) == [edge]


def test_linking_the_same_relation_twice_is_idempotent(any_mem: Memory) -> None:
    a = any_mem.remember("claim a", scope=SCOPE)
    b = any_mem.remember("claim b", scope=SCOPE)
    first = any_mem.link(a.id, b.id, "supports", scope=SCOPE)
    events = len(any_mem.events(scope=SCOPE))
    assert any_mem.link(a.id, b.id, "supports", scope=SCOPE) == first
    assert len(any_mem.events(scope=SCOPE)) == events
    backwards = any_mem.link(b.id, a.id, "supports", scope=SCOPE)  # directed: a new edge
    assert backwards.id != first.id
    clash = any_mem.link(a.id, b.id, "contradicts", scope=SCOPE)
    assert any_mem.link(b.id, a.id, "contradicts", scope=SCOPE) == clash  # symmetric: the same edge
    assert len(any_mem.edges(scope=SCOPE)) == 3


def test_relinking_after_unlink_creates_a_new_edge(any_mem: Memory) -> None:
    a = any_mem.remember("claim a", scope=SCOPE)
    b = any_mem.remember("claim b", scope=SCOPE)
    old = any_mem.link(a.id, b.id, "about", scope=SCOPE)
    any_mem.unlink(old.id, scope=SCOPE)
    new = any_mem.link(a.id, b.id, "about", scope=SCOPE)
    assert new.id != old.id and new.is_current
    assert [e.id for e in any_mem.edges(a.id, scope=SCOPE)] == [new.id]


def test_unlink_closes_edge_but_keeps_it_in_history(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("claim a", scope=SCOPE)
    b = any_mem.remember("claim b", scope=SCOPE)
    edge = any_mem.link(a.id, b.id, "supports", scope=SCOPE)
    clock.advance(minutes=5)
    any_mem.unlink(edge.id, scope=SCOPE, reason="wrong")
    assert any_mem.edges(a.id, scope=SCOPE) == []
    [closed] = any_mem.edges(a.id, scope=SCOPE, include_closed=True)
    assert closed.id == edge.id and closed.closed_at == clock.now()
    with pytest.raises(AlreadyClosedError):
        any_mem.unlink(edge.id, scope=SCOPE)


def test_unlink_unknown_edge_is_not_found(any_mem: Memory) -> None:
    with pytest.raises(NotFoundError):
        any_mem.unlink(str(uuid.uuid4()), scope=SCOPE)


def test_edge_across_scopes_is_refused(any_mem: Memory) -> None:
    mine = any_mem.remember("mine", scope=SCOPE)
    theirs = any_mem.remember("theirs", scope=OTHER_SCOPE)
    before = (state_of(any_mem), state_of(any_mem, OTHER_SCOPE))
    for src, dst, scope in [
        (mine.id, theirs.id, SCOPE),
        (theirs.id, mine.id, SCOPE),
        (mine.id, theirs.id, OTHER_SCOPE),
    ]:
        with pytest.raises(NotFoundError):
            any_mem.link(src, dst, "supports", scope=scope)
    assert (state_of(any_mem), state_of(any_mem, OTHER_SCOPE)) == before


def test_edge_from_item_to_itself_is_refused(any_mem: Memory) -> None:
    a = any_mem.remember("self", scope=SCOPE)
    with pytest.raises(InvalidInputError):
        any_mem.link(a.id, a.id, "supports", scope=SCOPE)


def test_edges_are_invisible_from_other_scopes(any_mem: Memory) -> None:
    a = any_mem.remember("a", scope=SCOPE)
    b = any_mem.remember("b", scope=SCOPE)
    any_mem.link(a.id, b.id, "about", scope=SCOPE)
    assert any_mem.edges(scope=OTHER_SCOPE) == []
    assert any_mem.edges(a.id, scope=OTHER_SCOPE) == []


# -- scores, tiers, promotion, flags ---------------------------------------------------------------


def test_set_scores_changes_only_named_scores(any_mem: Memory, clock: ManualClock) -> None:
    item = any_mem.remember("scored", scope=SCOPE)
    clock.advance(seconds=10)
    updated = any_mem.set_scores(item.id, scope=SCOPE, importance=0.95, value=0.0, reason="matters")
    assert updated.scores.to_dict() == {**item.scores.to_dict(), "importance": 0.95, "value": 0.0}
    # + 2: the scores, and the importance_stated flag a person's importance gets (the dream pass
    # never settles it), in the same transaction
    assert updated.version == item.version + 2 and updated.updated_at == clock.now()
    assert updated.flags == ("importance_stated",)
    assert updated.recorded_at == item.recorded_at


def test_set_scores_needs_a_known_score(any_mem: Memory) -> None:
    item = any_mem.remember("scored", scope=SCOPE)
    with pytest.raises(InvalidInputError):
        any_mem.set_scores(item.id, scope=SCOPE)
    with pytest.raises(InvalidInputError):
        any_mem.set_scores(item.id, scope=SCOPE, salience=0.5)


@pytest.mark.parametrize("tier", ["durable", "subconscious", "active"])
def test_set_tier_moves_item(any_mem: Memory, tier: str) -> None:
    item = any_mem.remember("tiered", scope=SCOPE)
    assert any_mem.set_tier(item.id, tier, scope=SCOPE).tier == tier
    assert any_mem.get(item.id, scope=SCOPE).tier == tier


def test_set_tier_refuses_unknown_tier(any_mem: Memory) -> None:
    item = any_mem.remember("tiered", scope=SCOPE)
    before = state_of(any_mem)
    with pytest.raises(InvalidInputError):
        any_mem.set_tier(item.id, "attic", scope=SCOPE)
    assert state_of(any_mem) == before


def test_promote_to_manual_sets_source_and_full_authority(any_mem: Memory) -> None:
    item = any_mem.remember("an inference", scope=SCOPE, source="inferred")
    promoted = any_mem.promote(item.id, scope=SCOPE, to="manual", reason="checked")
    assert (promoted.source, promoted.scores.authority) == ("manual", 1.0)
    assert promoted.text == item.text and promoted.id == item.id


def test_promote_to_durable_pins_tier(any_mem: Memory) -> None:
    item = any_mem.remember("keep forever", scope=SCOPE)
    promoted = any_mem.promote(item.id, scope=SCOPE, to="durable")
    assert (promoted.tier, promoted.source) == ("durable", "observed")


def test_promote_closed_item_or_unknown_target_is_refused(any_mem: Memory) -> None:
    item = any_mem.remember("gone", scope=SCOPE)
    with pytest.raises(InvalidInputError):
        any_mem.promote(item.id, scope=SCOPE, to="god")
    any_mem.forget(item.id, scope=SCOPE)
    with pytest.raises(AlreadyClosedError):
        any_mem.promote(item.id, scope=SCOPE)


def test_flag_adds_and_removes_flags(any_mem: Memory) -> None:
    item = any_mem.remember("flagged", scope=SCOPE)
    assert any_mem.flag(item.id, scope=SCOPE, add=["stale_derived", "hub"]).flags == ("hub", "stale_derived")
    assert any_mem.flag(item.id, scope=SCOPE, remove=["hub"]).flags == ("stale_derived",)


def test_record_use_reinforces_value_and_counts_uses(any_mem: Memory, clock: ManualClock) -> None:
    item = any_mem.remember("useful", scope=SCOPE)
    clock.advance(minutes=1)
    any_mem.record_use(SCOPE, [(item.id, 1.0), (str(uuid.uuid4()), 1.0)], "what is useful?")
    used = any_mem.get(item.id, scope=SCOPE)
    assert used.use_count == 1 and used.last_used_at == clock.now()
    assert used.last_used_query == "what is useful?"
    assert used.scores.value == pytest.approx(0.55)


def test_episodic_memory_used_three_times_graduates_to_semantic(any_mem: Memory) -> None:
    item = any_mem.remember("we met at the cafe", scope=SCOPE, kind="episodic")
    for _ in range(3):
        any_mem.record_use(SCOPE, [(item.id, 0.5)], "cafe")
    assert any_mem.get(item.id, scope=SCOPE).kind == "semantic"


# -- list --------------------------------------------------------------------------------------


def test_list_defaults_to_current_items_oldest_first(any_mem: Memory, clock: ManualClock) -> None:
    ids = []
    for i in range(3):
        ids.append(any_mem.remember(f"item {i}", scope=SCOPE).id)
        clock.advance(seconds=1)
    any_mem.forget(ids[1], scope=SCOPE)
    page = any_mem.list(scope=SCOPE)
    assert [i.id for i in page.items] == [ids[0], ids[2]] and page.next_cursor is None


def test_list_is_scoped(any_mem: Memory) -> None:
    any_mem.remember("mine", scope=SCOPE)
    any_mem.remember("theirs", scope=OTHER_SCOPE)
    assert texts(any_mem) == ["mine"]


def test_get_of_other_scopes_item_is_not_found(any_mem: Memory) -> None:
    theirs = any_mem.remember("theirs", scope=OTHER_SCOPE)
    with pytest.raises(NotFoundError):
        any_mem.get(theirs.id, scope=SCOPE)


def test_scopes_lists_scopes_with_items(any_mem: Memory) -> None:
    any_mem.remember("x", scope=OTHER_SCOPE)
    any_mem.remember("y", scope=SCOPE)
    assert any_mem.scopes() == sorted([SCOPE, OTHER_SCOPE])


# -- events ------------------------------------------------------------------------------------


def test_events_envelope(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("a", scope=SCOPE)
    clock.advance(seconds=1)
    any_mem.remember_many(["b", "c", "A."], scope=SCOPE)
    b = any_mem.list(scope=SCOPE, where=Q.all(), limit=10).items[1]
    any_mem.revise(b.id, "b2", scope=SCOPE)
    any_mem.link(a.id, b.id, "supports", scope=SCOPE)
    any_mem.forget(a.id, scope=SCOPE)
    any_mem.dismiss(a.id, scope=SCOPE)
    any_mem.remember("elsewhere", scope=OTHER_SCOPE)
    events = any_mem.events(scope=SCOPE)
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[0] >= 1
    assert len({e.id for e in events}) == len(events)
    assert all(uuid.UUID(e.id).version == 7 for e in events)
    assert all(e.scope == SCOPE for e in events)
    assert all(e.at.tzinfo is not None for e in events)
    assert [e.at for e in events][:1] == [a.recorded_at]
    assert all(e.type in EVENT_TYPES for e in events)
    assert all(e.type.split(".")[1].endswith(("ed", "en", "_set")) for e in events), [e.type for e in events]
    assert [e.type for e in events] == [
        "memory.remembered",
        "memory.remembered",
        "memory.remembered",
        "memory.corroborated",
        "memory.revised",
        "edge.linked",
        "memory.forgotten",
        "memory.dismissed",
    ]
    # One command, one cause: the three commands of the batch each have their own.
    causes = [e.cause for e in events]
    assert len(set(causes)) == len(causes)
    assert not set(causes) & {e.id for e in events}


def test_events_page_with_after_seq(any_mem: Memory) -> None:
    for i in range(5):
        any_mem.remember(f"e{i}", scope=SCOPE)
    first = any_mem.events(scope=SCOPE, limit=2)
    rest = any_mem.events(scope=SCOPE, after_seq=first[-1].seq)
    assert len(first) == 2 and len(rest) == 3
    assert [e.seq for e in first + rest] == [e.seq for e in any_mem.events(scope=SCOPE)]


def test_events_round_trip_through_dict(any_mem: Memory) -> None:
    any_mem.remember("a", scope=SCOPE, meta={"k": [1, 2]})
    from reverie import Event

    for e in any_mem.events(scope=SCOPE):
        assert Event.from_dict(e.to_dict()) == e


# -- lifecycle ---------------------------------------------------------------------------------

AFTER_CLOSE_CALLS: list[tuple[str, Callable[[Memory, str], object]]] = [
    ("remember", lambda m, i: m.remember("x", scope=SCOPE)),
    ("remember_many", lambda m, i: m.remember_many(["x"], scope=SCOPE)),
    ("get", lambda m, i: m.get(i, scope=SCOPE)),
    ("list", lambda m, i: m.list(scope=SCOPE)),
    ("revise", lambda m, i: m.revise(i, "y", scope=SCOPE)),
    ("forget", lambda m, i: m.forget(i, scope=SCOPE)),
    ("dismiss", lambda m, i: m.dismiss(i, scope=SCOPE)),
    ("edges", lambda m, i: m.edges(scope=SCOPE)),
    ("events", lambda m, i: m.events(scope=SCOPE)),
    ("summary", lambda m, i: m.summary(scope=SCOPE)),
    ("history", lambda m, i: m.history(i, scope=SCOPE)),
    ("set_scores", lambda m, i: m.set_scores(i, scope=SCOPE, importance=0.1)),
    ("pause_learning", lambda m, i: m.pause_learning(SCOPE)),
    ("scopes", lambda m, i: m.scopes()),
    ("doctor", lambda m, i: m.doctor()),
    ("rebuild", lambda m, i: m.rebuild()),
]


@pytest.mark.parametrize(("name", "call"), AFTER_CLOSE_CALLS, ids=[n for n, _ in AFTER_CLOSE_CALLS])
def test_any_call_after_close_raises_closed_error(
    any_mem: Memory, name: str, call: Callable[[Memory, str], object]
) -> None:
    item = any_mem.remember("exists", scope=SCOPE)
    any_mem.close()
    with pytest.raises(ClosedError) as info:
        call(any_mem, item.id)
    assert info.value.code == "closed" and info.value.message


def test_close_twice_is_safe(any_mem: Memory) -> None:
    any_mem.close()
    any_mem.close()
    with pytest.raises(ClosedError):
        any_mem.list(scope=SCOPE)


def test_context_manager_closes_memory(tmp_path: Path, clock: ManualClock) -> None:
    with Memory(tmp_path / "ctx.db", embedder="hash", clock=clock) as mem:
        item = mem.remember("inside", scope=SCOPE)
    with pytest.raises(ClosedError):
        mem.get(item.id, scope=SCOPE)
    with Memory(tmp_path / "ctx.db", embedder="hash", clock=clock) as again:
        assert again.get(item.id, scope=SCOPE).text == "inside"
        assert again.doctor().ok


def test_reopening_the_file_keeps_everything(open_mem: Callable[..., Memory], clock: ManualClock) -> None:
    mem = open_mem()
    a = mem.remember("Alice likes tea", scope=SCOPE, meta={"x": 1}, tags=["t"])
    b = mem.remember("Bob likes coffee", scope=SCOPE, key="bob.drink", value="coffee")
    c = mem.remember("wrong", scope=SCOPE)
    mem.link(a.id, b.id, "contradicts", scope=SCOPE)
    clock.advance(seconds=1)
    mem.revise(b.id, "Bob likes cocoa", scope=SCOPE, value="cocoa")
    mem.dismiss(c.id, scope=SCOPE)
    mem.pause_learning(OTHER_SCOPE)
    before = state_of(mem), state_of(mem, OTHER_SCOPE), mem.scopes()
    mem.close()
    clock.advance(seconds=1)
    reopened = open_mem()
    assert (state_of(reopened), state_of(reopened, OTHER_SCOPE), reopened.scopes()) == before
    with pytest.raises(DismissedValueError):
        reopened.remember("WRONG", scope=SCOPE)
    with pytest.raises(LearningPausedError):
        reopened.remember("paused still", scope=OTHER_SCOPE)
    assert reopened.remember("Alice likes tea!", scope=SCOPE).evidence_count == 2


def test_in_memory_sqlite_path_works(memories: Any) -> None:
    mem = memories.open(":memory:")
    item = mem.remember("ephemeral", scope=SCOPE)
    assert mem.get(item.id, scope=SCOPE).text == "ephemeral"
    assert mem.doctor().ok


def test_backup_writes_a_consistent_copy(open_mem: Callable[..., Memory], tmp_path: Path) -> None:
    mem = open_mem()
    mem.remember("backed up", scope=SCOPE)
    mem.backup(tmp_path / "copy.db")
    copy = open_mem(tmp_path / "copy.db")
    assert state_of(copy) == state_of(mem)


def test_memory_works_with_a_real_system_clock(tmp_path: Path) -> None:
    with Memory(tmp_path / "sys.db", embedder="hash") as mem:
        item = mem.remember("now", scope=SCOPE)
        assert abs(item.recorded_at - datetime.now(UTC)) < timedelta(minutes=1)


def test_provenance_object_is_accepted(any_mem: Memory) -> None:
    item = any_mem.remember("from a doc", scope=SCOPE, provenance=Provenance("document", "doc.pdf", "p3"))
    assert (item.provenance.origin, item.provenance.ref, item.provenance.locator) == ("document", "doc.pdf", "p3")


def test_item_round_trips_through_dict(any_mem: Memory) -> None:
    item = any_mem.remember("dict me", scope=SCOPE, meta=NESTED_META, valid_from=datetime(2020, 1, 1, tzinfo=UTC))
    assert Item.from_dict(item.to_dict()) == item
