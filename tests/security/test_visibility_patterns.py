"""Dream-pass pattern items follow the audience of the events they are made from (outside probe #13).

A pattern item (``kind="pattern"``, ``source="system"``) quotes an example event (its numbers cut
out), counts its events and says when they happen. It used to be written visible to everyone
whatever its events' audience, and it linked its events by ``derived_from`` edges only, so the
rule "the system's copies follow their claim" (``model.audience``, which read ``parents``) never
reached it: a principal who may see none of the events was shown their words, count and schedule.
Now a pattern is found among events of one audience and carries it, and restricting an event
after the pass narrows the patterns made from it, in the same transaction. Run on every backend.
"""

from __future__ import annotations

from reverie import Memory
from reverie.model.item import Item

from .kit import dump
from .pattern_kit import SCOPE, weekly_events
from .pattern_kit import dream_at as _dream
from .pattern_kit import patterns as _patterns

A, B = "agent:a", "agent:b"
TOKEN = "zorbex"


def _events(mem: Memory, n: int = 14, *, visibility: list[str] | None = None, word: str = TOKEN) -> list[str]:
    """``n`` weekly observations on Mondays at 09:00 (one kind of event), their ids."""
    return weekly_events(mem, word, n, visibility=visibility)


def _seen_by(view: Memory) -> str:
    """Everything ``view`` can read of the scope that could carry a pattern's words or ids."""
    return dump(
        {
            "list": [i.to_dict() for i in view.list(scope=SCOPE, include_closed=True, limit=1000).items],
            "recall": [h.item.to_dict() for h in view.recall("when does the deploy fail", scope=SCOPE, k=20)],
            "events": [e.to_dict() for e in view.events(scope=SCOPE, limit=10_000)],
            "edges": [e.to_dict() for e in view.edges(scope=SCOPE, include_closed=True)],
            "summary": view.summary(scope=SCOPE),
        }
    )


def test_patterns_of_restricted_events_are_restricted_like_them(any_mem: Memory) -> None:
    _events(any_mem, visibility=[A])
    _dream(any_mem)
    owned = _patterns(any_mem)
    assert owned and all(p.visibility == (A,) for p in owned)  # the test can fail: the pass found them
    assert [p.id for p in _patterns(any_mem.as_principal(A))] == [p.id for p in owned]
    b = any_mem.as_principal(B)
    assert _patterns(b) == []
    seen = _seen_by(b)
    assert TOKEN not in seen and not any(p.id in seen for p in owned)
    assert b.summary(scope=SCOPE)["current"] == 0


def test_restricting_the_events_after_the_pass_narrows_their_patterns(any_mem: Memory) -> None:
    ids = _events(any_mem)
    _dream(any_mem)
    owned = _patterns(any_mem)
    assert owned and all(p.visibility is None for p in owned)
    for i in ids:
        any_mem.set_visibility(i, scope=SCOPE, visibility=[A], reason="secret")
    assert all(p.visibility == (A,) for p in _patterns(any_mem, closed=True))
    b = any_mem.as_principal(B)
    assert _patterns(b, closed=True) == [] and TOKEN not in _seen_by(b)
    _dream(any_mem, weeks=17)  # the next pass keeps them restricted (and does not churn them)
    assert [(p.id, p.visibility) for p in _patterns(any_mem)] == [(p.id, (A,)) for p in owned]
    assert TOKEN not in _seen_by(b)


def test_restricting_one_event_narrows_the_pattern_and_the_next_pass_rebuilds_it_for_everyone(
    any_mem: Memory,
) -> None:
    ids = _events(any_mem)
    _dream(any_mem)
    before = {p.id for p in _patterns(any_mem)}
    any_mem.set_visibility(ids[0], scope=SCOPE, visibility=[A], reason="one is secret")
    assert all(p.visibility == (A,) for p in _patterns(any_mem))  # it counts the hidden one
    _dream(any_mem, weeks=17)
    now = _patterns(any_mem)
    assert now and all(p.visibility is None and p.id not in before for p in now)
    assert all(p.meta["pattern"]["total"] == 13 for p in now)  # the visible events only
    b = any_mem.as_principal(B)
    assert {p.id for p in _patterns(b)} == {p.id for p in now}
    assert ids[0] not in _seen_by(b)


def test_events_of_two_audiences_give_patterns_per_audience_never_mixed(any_mem: Memory) -> None:
    _events(any_mem, word="zorbex")
    _events(any_mem, visibility=[A], word="zorbex")
    _dream(any_mem)
    by_audience: dict[tuple[str, ...], list[Item]] = {}
    for p in _patterns(any_mem):
        by_audience.setdefault(p.audience, []).append(p)
    assert sorted(by_audience) == [(), (A,)]
    for audience, pats in by_audience.items():
        assert all(p.meta["pattern"]["total"] == 14 for p in pats), audience
    hidden = {p.id for p in by_audience[(A,)]}
    seen = _seen_by(any_mem.as_principal(B))
    assert not any(h in seen for h in hidden)


def test_the_next_pass_narrows_a_pattern_shown_wider_than_its_events(any_mem: Memory) -> None:
    """A pattern written open from restricted events (as before this fix, or widened by hand) is
    narrowed to its events' audience by the next pass, keeping its id."""
    _events(any_mem, visibility=[A])
    _dream(any_mem)
    owned = _patterns(any_mem)
    for p in owned:
        any_mem.set_visibility(p.id, scope=SCOPE, visibility=None, reason="as an older build wrote it")
    assert TOKEN in _seen_by(any_mem.as_principal(B))  # the test can fail: the leak is set up
    report = any_mem.dream(scope=SCOPE)
    assert report.count(step="pattern") == len(owned)  # one narrowing each, nothing rebuilt
    assert [(p.id, p.visibility) for p in _patterns(any_mem)] == [(p.id, (A,)) for p in owned]
    assert TOKEN not in _seen_by(any_mem.as_principal(B))
