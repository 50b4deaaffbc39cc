"""Revise hygiene (issue #13, item 3).

Reproduced on main: revising text without ``value=`` kept the old structured value ("Alice lives
in Madrid" with value ``Paris``), so a later ``remember(key=alice.city, value=Paris)``
corroborated the Madrid claim; after a revise ``contradictions()`` said nothing was open while
recall still marked the survivor contested by the superseded version; a revise whose new text
equalled another current claim made a twin instead of corroborating it.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import AlreadyClosedError, ManualClock, Memory, ReverieError
from reverie.store.reference import ReferenceStore
from strategies import START

S = "user:alice"


def test_revise_without_value_drops_a_value_the_new_text_no_longer_states(any_mem: Memory) -> None:
    a = any_mem.remember("Alice lives in Paris", scope=S, key="alice.city", value="Paris")
    madrid = any_mem.revise(a.id, "Alice lives in Madrid", scope=S)
    assert madrid.key == "alice.city" and madrid.value is None
    paris = any_mem.remember("Alice's city is Paris", scope=S, key="alice.city", value="Paris", source="user_stated")
    assert paris.id != madrid.id  # not a corroboration of the Madrid claim
    assert any_mem.get(madrid.id, scope=S).evidence_count == 1


def test_revise_without_value_keeps_a_value_the_new_text_still_states(any_mem: Memory) -> None:
    a = any_mem.remember("Alice lives in Paris", scope=S, key="alice.city", value="Paris")
    assert any_mem.revise(a.id, "Alice lives in central Paris, France", scope=S).value == "Paris"
    b = any_mem.remember("Carol is 30", scope=S, key="carol.age", value="30")
    assert any_mem.revise(b.id, "Carol is 31", scope=S).value is None


@pytest.mark.parametrize("text", ["The upload quota is 1024.5 MB", "The upload quota is -1024 MB"])
def test_revise_drops_a_number_value_that_only_appears_inside_another_number(any_mem: Memory, text: str) -> None:
    # Outside probe, finding 5: 1024 matched the "1024" in "1024.5" and "-1024", so the stale
    # value stayed and a later remember of the old quota corroborated the correction.
    a = any_mem.remember("The upload quota is 1024 MB", scope=S, key="quota", value=1024)
    new = any_mem.revise(a.id, text, scope=S)
    assert new.value is None
    echo = any_mem.remember("The upload quota is 1024 MB", scope=S, source="inferred", key="quota", value=1024)
    assert echo.id != new.id and any_mem.get(new.id, scope=S).evidence_count == 1


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1024, "The quota is now 1024 MB."),
        (1024, "The quota: 1024MB"),
        (1024.0, "The quota is 1024 MB"),
        (-3, "It is -3 degrees"),
        ("3.10", "Running version 3.10 today"),
        (10, "Between 5-10 people"),
    ],
)
def test_revise_keeps_a_value_its_text_states_as_a_whole_number(any_mem: Memory, value: object, text: str) -> None:
    a = any_mem.remember("The old wording", scope=S, key="k", value=value)  # type: ignore[arg-type]
    assert any_mem.revise(a.id, text, scope=S).value == value


def test_revise_closes_the_superseded_versions_contradictions(any_mem: Memory) -> None:
    carol = any_mem.remember("Carol is on call", scope=S)
    bob = any_mem.remember("Bob is on call", scope=S)
    edge = any_mem.link(carol.id, bob.id, "contradicts", scope=S)
    any_mem.revise(carol.id, "Carol was on call last week", scope=S)
    assert any_mem.contradictions(scope=S) == []
    hits = any_mem.recall("Bob on call", scope=S, record_use=False)
    assert [h.contradicted_by for h in hits if h.item.id == bob.id] == [()]
    closed = [e for e in any_mem.edges(bob.id, scope=S, include_closed=True) if e.id == edge.id]
    assert closed and closed[0].closed_at is not None  # closed, kept in history


def test_a_contradiction_cannot_be_linked_to_a_closed_item(any_mem: Memory) -> None:
    a = any_mem.remember("Carol is on call", scope=S)
    b = any_mem.remember("Bob is on call", scope=S)
    any_mem.forget(a.id, scope=S)
    try:
        any_mem.link(b.id, a.id, "contradicts", scope=S)
    except AlreadyClosedError as exc:
        assert "forgotten" in exc.message
    else:
        raise AssertionError("linked a contradiction to a forgotten item")
    assert any_mem.edges(b.id, scope=S) == []


def test_revise_into_another_current_claims_words_corroborates_it(any_mem: Memory) -> None:
    tea = any_mem.remember("Alice likes tea", scope=S)
    coffee = any_mem.remember("Bob likes coffee", scope=S)
    out = any_mem.revise(tea.id, "bob likes coffee.", scope=S, reason="it was Bob")
    assert out.id == coffee.id and out.evidence_count == 2  # no twin
    assert [i.text for i in any_mem.list(scope=S).items] == ["Bob likes coffee"]
    old = any_mem.get(tea.id, scope=S)
    assert old.status == "superseded"
    assert coffee.id in {v.id for v in any_mem.history(tea.id, scope=S).versions}


# -- property: contradictions() and recall's contradicted_by always agree ------------------------

TEXTS = [f"The claim {w} holds" for w in ("one", "two", "three", "four")]
OPS = st.lists(
    st.tuples(
        st.sampled_from(["remember", "link", "revise", "world", "forget", "dismiss", "resolve"]),
        st.integers(0, 30),
        st.integers(0, 30),
    ),
    min_size=1,
    max_size=14,
)


def _step(mem: Memory, clock: ManualClock, op: str, i: int, j: int) -> None:
    live = [x.id for x in mem.list(scope=S, limit=100).items]
    pick = (lambda n: live[n % len(live)]) if live else None
    clock.advance(seconds=1)
    if op == "remember" or pick is None:
        mem.remember(TEXTS[i % len(TEXTS)], scope=S)
    elif op == "link":
        mem.link(pick(i), pick(j), "contradicts", scope=S)
    elif op in ("revise", "world"):
        when = clock.now() if op == "world" else None
        mem.revise(pick(i), TEXTS[j % len(TEXTS)] + f" v{j}", scope=S, valid_from=when)
    elif op == "forget":
        mem.forget(pick(i), scope=S)
    elif op == "dismiss":
        mem.dismiss(pick(i), scope=S)
    else:
        alerts = mem.contradictions(scope=S)
        if alerts:
            alert = alerts[i % len(alerts)]
            mem.resolve(alert.edge_id, keep=(alert.a.id, alert.b.id)[j % 2], scope=S)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_contradictions_and_recall_contradicted_by_always_agree(ops: list[tuple[str, int, int]]) -> None:
    clock = ManualClock(START)
    with Memory(store=ReferenceStore(), embedder="hash", clock=clock, seed=2) as mem:
        for op, i, j in ops:
            with contextlib.suppress(ReverieError):
                _step(mem, clock, op, i, j)
        open_pairs: dict[str, set[str]] = {}
        for alert in mem.contradictions(scope=S, limit=100):
            open_pairs.setdefault(alert.a.id, set()).add(alert.b.id)
            open_pairs.setdefault(alert.b.id, set()).add(alert.a.id)
        for h in mem.recall("claim holds", scope=S, k=50, mode="lexical", record_use=False):
            assert set(h.contradicted_by) == open_pairs.get(h.item.id, set()), (h.item.text, h.contradicted_by)
