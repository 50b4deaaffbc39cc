"""Valid time as a first-class axis (issue #13, item 2).

Reproduced on main: ``as_of`` was record time only, with no way to ask "what was true in the
world at T"; ``revise`` copied the old ``valid_from`` onto the new version ("works at B since
2024" although the move was in 2026); ``list()`` still showed claims whose ``valid_to`` had passed.
A correction (record time: we were wrong) and a change in the world (valid time: it was true
until T) are now kept apart.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import InvalidInputError, ManualClock, Memory, NotFoundError, Q
from reverie.store.reference import ReferenceStore
from strategies import START

S = "user:alice"
Y2024 = datetime(2024, 1, 1, tzinfo=UTC)
Y2026 = datetime(2026, 3, 1, tzinfo=UTC)


def _moved(mem: Memory, clock: ManualClock) -> tuple[str, str]:
    """Alice works at Acme since 2024; in 2026 the world changes: she works at Globex."""
    clock.set(datetime(2026, 6, 1, tzinfo=UTC))
    a = mem.remember("Alice works at Acme", scope=S, valid_from=Y2024, key="alice.employer", value="Acme")
    clock.advance(days=1)
    b = mem.revise(a.id, "Alice works at Globex", scope=S, value="Globex", valid_from=Y2026)
    return a.id, b.id


def test_revise_with_valid_from_ends_the_old_version_there_and_starts_the_new(
    any_mem: Memory, clock: ManualClock
) -> None:
    old, new = _moved(any_mem, clock)
    before, after = any_mem.get(old, scope=S), any_mem.get(new, scope=S)
    assert after.valid_from == Y2026 and after.valid_to is None  # not "since 2024"
    assert before.valid_from == Y2024 and before.valid_to == Y2026
    assert before.is_current  # a change in the world: still believed, true until the change
    assert [v.id for v in any_mem.history(new, scope=S).versions] == [old, new]


def test_a_correction_keeps_the_valid_interval_and_closes_the_old_version(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("Alice works at Acme", scope=S, valid_from=Y2024)
    b = any_mem.revise(a.id, "Alice works at Initech", scope=S)
    assert b.valid_from == Y2024 and b.valid_to is None
    assert any_mem.get(a.id, scope=S).status == "superseded"


def test_list_leaves_out_claims_whose_validity_has_ended(any_mem: Memory, clock: ManualClock) -> None:
    old, new = _moved(any_mem, clock)
    ended = any_mem.remember("Alice has a cold", scope=S, valid_to=clock.now() + timedelta(days=3))
    assert {i.id for i in any_mem.list(scope=S).items} == {new, ended.id}
    clock.advance(days=3)  # valid_to == now: over (half-open interval)
    assert [i.id for i in any_mem.list(scope=S).items] == [new]
    assert {old, new, ended.id} <= {i.id for i in any_mem.list(scope=S, include_closed=True).items}


def test_list_valid_at_answers_what_was_true_then(any_mem: Memory, clock: ManualClock) -> None:
    old, new = _moved(any_mem, clock)
    assert [i.id for i in any_mem.list(scope=S, valid_at=datetime(2025, 1, 1, tzinfo=UTC)).items] == [old]
    assert [i.id for i in any_mem.list(scope=S, valid_at=Y2026).items] == [new]
    assert any_mem.list(scope=S, valid_at=datetime(2023, 1, 1, tzinfo=UTC)).items == []


def test_get_valid_at_returns_the_version_true_then(any_mem: Memory, clock: ManualClock) -> None:
    old, new = _moved(any_mem, clock)
    assert any_mem.get(new, scope=S, valid_at=datetime(2025, 5, 1, tzinfo=UTC)).id == old
    assert any_mem.get(old, scope=S, valid_at=datetime(2027, 1, 1, tzinfo=UTC)).id == new
    assert any_mem.get(new, scope=S, valid_at=Y2026).id == new
    with pytest.raises(NotFoundError):
        any_mem.get(new, scope=S, valid_at=datetime(2023, 1, 1, tzinfo=UTC))


def test_recall_valid_at_answers_what_was_true_then(any_mem: Memory, clock: ManualClock) -> None:
    old, new = _moved(any_mem, clock)
    ids = lambda **kw: [h.item.id for h in any_mem.recall("where does Alice work", scope=S, record_use=False, **kw)]  # noqa: E731
    assert ids() == [new]
    assert ids(valid_at=datetime(2025, 1, 1, tzinfo=UTC)) == [old]
    assert "valid_at" in any_mem.recall("Alice work", scope=S, valid_at=Y2026, record_use=False)[0].why["filters"]


def test_as_of_and_valid_at_combine(any_mem: Memory, clock: ManualClock) -> None:
    clock.set(datetime(2026, 6, 1, tzinfo=UTC))
    a = any_mem.remember("Alice works at Acme", scope=S, valid_from=Y2024)
    believed_then = clock.now()
    clock.advance(days=10)
    b = any_mem.revise(a.id, "Alice works at Initech", scope=S)  # a correction: we were wrong
    in_2025 = datetime(2025, 1, 1, tzinfo=UTC)
    assert any_mem.get(a.id, scope=S, valid_at=in_2025).id == b.id  # what we believe now about 2025
    assert any_mem.get(a.id, scope=S, valid_at=in_2025, as_of=believed_then).id == a.id  # what we believed then
    hits = any_mem.recall("Alice works", scope=S, valid_at=in_2025, as_of=believed_then, record_use=False)
    assert [h.item.id for h in hits] == [a.id]


def test_a_change_outside_the_old_validity_is_refused_and_changes_nothing(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("Alice works at Acme", scope=S, valid_from=Y2024, valid_to=Y2026)
    before = any_mem.events(scope=S)
    for at in (Y2024, datetime(2023, 1, 1, tzinfo=UTC), Y2026, datetime(2027, 1, 1, tzinfo=UTC)):
        with pytest.raises(InvalidInputError):
            any_mem.revise(a.id, "Alice works at Globex", scope=S, valid_from=at)
    with pytest.raises(InvalidInputError):
        any_mem.revise(a.id, "Alice works at Globex", scope=S, valid_from=datetime(2025, 1, 1))  # naive
    assert any_mem.events(scope=S) == before


def test_remembering_a_past_period_again_corroborates_it_without_making_it_current(
    any_mem: Memory, clock: ManualClock
) -> None:
    old, new = _moved(any_mem, clock)
    # dated inside the past period (an extractor re-reading a 2025 message dates its claim then)
    again = any_mem.remember("Alice works at Acme", scope=S, valid_from=datetime(2025, 5, 1, tzinfo=UTC))
    assert again.id == old and again.evidence_count == 2
    assert [i.id for i in any_mem.list(scope=S).items] == [new]
    # said without a date it starts now: a new period, current (outside probe, finding 2)
    now = any_mem.remember("Alice works at Acme", scope=S)
    assert now.id not in (old, new) and now.id in {i.id for i in any_mem.list(scope=S).items}
    any_mem.forget(now.id, scope=S)
    later = any_mem.remember("Alice works at Acme", scope=S, valid_from=datetime(2026, 5, 1, tzinfo=UTC))
    assert later.id not in (old, new)  # back at Acme after the change: a new period


# -- Q.valid_at: the SQL compiler agrees with the Python oracle -------------------------------------

BOUNDS = [None, *(START + timedelta(days=d) for d in (0, 10, 20, 30))]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    intervals=st.lists(st.tuples(st.sampled_from(BOUNDS), st.sampled_from(BOUNDS)), min_size=1, max_size=6),
    at=st.sampled_from([START + timedelta(days=d) for d in (-1, 0, 5, 10, 25, 30, 40)]),
    started=st.booleans(),
)
def test_valid_at_filter_matches_on_both_backends(
    tmp_path_factory: pytest.TempPathFactory,
    intervals: list[tuple[datetime | None, datetime | None]],
    at: datetime,
    started: bool,
) -> None:
    from reverie.model.query import ValidAt  # here: the other tests also run (and fail) on old code

    path = tmp_path_factory.mktemp("valid") / "v.db"
    with Memory(path, embedder="hash", seed=1) as lite, Memory(store=ReferenceStore(), embedder="hash", seed=1) as ref:
        for n, (lo, hi) in enumerate(intervals):
            if lo is not None and hi is not None and hi <= lo:
                lo, hi = None, hi
            for m in (lite, ref):
                m.remember(f"claim {n}", scope=S, valid_from=lo, valid_to=hi)
        f = ValidAt(at, started) if not started else Q.valid_at(at)
        every = ref.list(scope=S, include_closed=True, limit=100).items
        want = sorted(i.text for i in every if f.matches(i))
        for m in (lite, ref):
            assert sorted(i.text for i in m.list(scope=S, where=f, include_closed=True, limit=100).items) == want
