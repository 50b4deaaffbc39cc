"""Property (outside probe #2, #13, #14): whatever the mix of hidden and visible events, patterns,
dismissals and purges, a principal is never shown a hidden id or a word only hidden claims hold.

A history writes weekly events of three kinds (each kind's words carry its own canary token),
each event with an audience drawn per kind and sometimes changed per event; then restricts some
events, dismisses, purges and dreams in any order. Every principal then reads everything it can
(``vis_kit.readings`` plus a "when" recall, which reads patterns first): no id of an item it may
not see, and no canary of a kind none of whose claims it may see. Then it probes each hidden
dismissed value: writing it is stored as new text, and ``undismiss`` answers exactly as for a
value never dismissed. On SQLite and the reference store.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, NotFoundError, Q, ReverieError
from reverie.model.visibility import may_see
from reverie.store.reference import ReferenceStore
from strategies import START

from .kit import dump
from .vis_kit import AUDIENCES, PRINCIPALS, SCOPE, all_items, readings

KINDS = 3
EVENTS = 8
MONDAY = (START - timedelta(days=START.weekday()) + timedelta(weeks=1)).replace(hour=9, minute=0, second=0)


def token(kind: int) -> str:
    """A canary without digits: a pattern's template and quote keep words, never numbers."""
    return f"zq{'abc'[kind]}kx"


def text(kind: int, n: int) -> str:
    return f"The {token(kind)} {('nightly', 'billing', 'mailer')[kind]} job failed on run {100 * kind + n}"


Op = tuple[str, int, int, int]
ops = st.lists(
    st.tuples(
        st.sampled_from(["dream", "dream", "hide", "dismiss", "purge"]),
        st.integers(0, KINDS - 1),
        st.integers(0, EVENTS - 1),
        st.integers(0, len(AUDIENCES) - 1),
    ),
    min_size=1,
    max_size=6,
)
worlds = st.tuples(
    st.lists(st.integers(0, len(AUDIENCES) - 1), min_size=KINDS, max_size=KINDS),  # each kind's audience
    st.dictionaries(st.tuples(st.integers(0, KINDS - 1), st.integers(0, EVENTS - 1)), st.integers(0, 3), max_size=4),
    ops,
)


def _build(mem: Memory, audiences: list[int], odd: dict[tuple[int, int], int], history: list[Op]) -> dict:
    ids: dict[tuple[int, int], str] = {}
    for k in range(KINDS):
        for n in range(EVENTS):
            audience = AUDIENCES[odd.get((k, n), audiences[k])]
            ids[(k, n)] = mem.remember(
                text(k, n), scope=SCOPE, kind="observation", valid_from=MONDAY + timedelta(weeks=n),
                visibility=list(audience) or None,
            ).id  # fmt: skip
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    clock.set(MONDAY + timedelta(weeks=EVENTS + 1))
    for op, k, n, a in history:
        try:
            if op == "dream":
                mem.dream(scope=SCOPE)
            elif op == "hide":
                mem.set_visibility(ids[(k, n)], scope=SCOPE, visibility=list(AUDIENCES[a]) or None, reason="audience")
            elif op == "dismiss":
                mem.dismiss(ids[(k, n)], scope=SCOPE, reason="wrong")
            elif op == "purge":
                mem.forget(ids[(k, n)], scope=SCOPE, reason="erasure", purge=True)
        except ReverieError as exc:  # a refused write (already closed) changes nothing
            note(f"{op}: {exc.code}")
        clock.advance(hours=1)
    return ids


def _check(mem: Memory) -> None:
    everything = all_items(mem)
    ids = [i.id for i in everything]
    for who in PRINCIPALS:
        view = mem.as_principal(who)
        got = readings(view, ids)["text"]
        got += dump([h.item.to_dict() for h in view.recall("when does the job usually fail", scope=SCOPE, k=50)])
        got += dump([p.to_dict() for p in view.list(scope=SCOPE, where=Q.kind("pattern"), include_closed=True).items])
        for item in everything:
            if not may_see(item.visibility, who):
                assert item.id not in got, f"{who} saw hidden {item.kind} {item.id}"
        # What the principal may know, judged by the claims written (never by the system's copies,
        # which are what is under test): a kind's words are its only if one of its events is.
        shown = [i.text.casefold() for i in everything if i.source != "system" and may_see(i.visibility, who)]
        for k in range(KINDS):
            if not any(token(k) in t for t in shown):
                assert token(k) not in got, f"{who} saw the words of hidden kind {k}"


def _probe_dismissals(mem: Memory) -> None:
    """Each dismissed claim a principal may not see: its words are new text to that principal."""
    dismissed = [i for i in all_items(mem) if i.status == "dismissed"]
    for who in PRINCIPALS:
        view = mem.as_principal(who)
        with pytest.raises(NotFoundError) as never:
            view.undismiss("a value nobody ever dismissed here", scope=SCOPE)
        for item in dismissed:
            if may_see(item.visibility, who):
                continue
            with pytest.raises(NotFoundError) as caught:
                view.undismiss(item.text, scope=SCOPE)
            assert str(caught.value) == str(never.value)
            mine = view.remember(item.text, scope=SCOPE, kind="observation")
            assert mine.id != item.id and item.id not in dump(mine.to_dict())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=worlds)
def test_no_principal_sees_a_hidden_event_through_a_pattern_a_dismissal_or_a_purge(world: tuple) -> None:
    audiences, odd, history = world
    for mem in (
        Memory(":memory:", embedder="hash", clock=ManualClock(START), seed=3),
        Memory(store=ReferenceStore(), embedder="hash", clock=ManualClock(START), seed=3),
    ):
        with mem:
            _build(mem, audiences, odd, history)
            mem.dream(scope=SCOPE)  # every history ends with a pass: its patterns are read too
            _check(mem)
            _probe_dismissals(mem)
            _check(mem)


def test_the_world_makes_patterns_per_kind_so_the_property_can_fail() -> None:
    with Memory(":memory:", embedder="hash", clock=ManualClock(START), seed=3) as mem:
        _build(mem, [1, 0, 3], {}, [("dream", 0, 0, 0)])
        patterns = [i for i in all_items(mem) if i.kind == "pattern" and i.is_current]
        by_kind = {k: {p.audience for p in patterns if token(k) in p.text.casefold()} for k in range(KINDS)}
        assert by_kind == {0: {AUDIENCES[1]}, 1: {AUDIENCES[0]}, 2: {AUDIENCES[3]}}
