"""A forgotten claim still answers "what was true in the world at T" for T before its forget.

Reproduced on main (outside probe 6, finding 4): ``forget`` closes a claim's validity at the
forget time (``valid_to = t2``) and deletes nothing, yet ``get(id, valid_at=T)`` for T inside
that very interval raised ``NotFoundError`` and ``list`` / ``recall`` with ``valid_at=T`` left the
claim out: the valid-time reads asked "believed now", which a forgotten claim never is. Forgetting
(by a person or a dream pass's keep-budget) ends the claim's validity; it does not say it was
never true. A correction (superseded), a dismissal (we were wrong) and a purge (content erased)
still never answer at any valid time.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, NotFoundError
from reverie.dream import DreamConfig
from reverie.store.reference import ReferenceStore
from strategies import START

S = "user:alice"


def _ids_listed(mem: Memory, at: datetime) -> set[str]:
    return {i.id for i in mem.list(scope=S, valid_at=at, limit=100).items}


def _ids_recalled(mem: Memory, query: str, at: datetime, **kw: object) -> set[str]:
    return {h.item.id for h in mem.recall(query, scope=S, valid_at=at, record_use=False, **kw)}  # type: ignore[arg-type]


def test_a_forgotten_claim_answers_for_a_time_before_its_forget(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("Alice works at Acme", scope=S)
    clock.advance(days=10)
    inside = clock.now()
    clock.advance(days=10)
    any_mem.forget(a.id, scope=S, reason="she left")
    gone = any_mem.get(a.id, scope=S)
    assert gone.status == "forgotten" and gone.valid_to == clock.now()
    for at in (START - timedelta(days=400), START, inside, clock.now() - timedelta(seconds=1)):
        assert any_mem.get(a.id, scope=S, valid_at=at).id == a.id
        assert a.id in _ids_listed(any_mem, at)
        assert a.id in _ids_recalled(any_mem, "where does Alice work", at)
    # half-open: from the forget on it is no longer true, and current truth never holds it
    for at in (clock.now(), clock.now() + timedelta(days=1)):
        with pytest.raises(NotFoundError):
            any_mem.get(a.id, scope=S, valid_at=at)
        assert a.id not in _ids_listed(any_mem, at)
        assert a.id not in _ids_recalled(any_mem, "where does Alice work", at)
    assert a.id not in {i.id for i in any_mem.list(scope=S).items}
    assert a.id not in {h.item.id for h in any_mem.recall("where does Alice work", scope=S, record_use=False)}


def test_what_we_believe_after_the_forget_about_before_it(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("Alice works at Acme", scope=S)
    clock.advance(days=10)
    inside = clock.now()
    clock.advance(days=10)
    any_mem.forget(a.id, scope=S)
    clock.advance(days=5)
    later = clock.now()  # record time after the forget: we then believed "true until the forget"
    assert any_mem.get(a.id, scope=S, as_of=later, valid_at=inside).id == a.id
    assert a.id in _ids_recalled(any_mem, "where does Alice work", inside, as_of=later)
    assert a.id in _ids_recalled(any_mem, "where does Alice work", inside, as_of=inside)


def test_a_dismissed_or_purged_claim_answers_at_no_valid_time(any_mem: Memory, clock: ManualClock) -> None:
    wrong = any_mem.remember("Alice works at Initech", scope=S)
    erased = any_mem.remember("Alice works at Hooli", scope=S)
    clock.advance(days=10)
    inside = clock.now()
    any_mem.dismiss(wrong.id, scope=S, reason="never true")
    any_mem.forget(erased.id, scope=S, purge=True)
    for item_id in (wrong.id, erased.id):
        with pytest.raises(NotFoundError):
            any_mem.get(item_id, scope=S, valid_at=inside)
    assert _ids_listed(any_mem, inside) == set()
    assert _ids_recalled(any_mem, "where does Alice work Initech Hooli", inside) == set()


def test_a_changed_then_forgotten_claim_answers_each_period_with_its_version(
    any_mem: Memory, clock: ManualClock
) -> None:
    a = any_mem.remember("Alice works at Acme", scope=S)
    clock.advance(days=10)
    in_acme = clock.now()
    clock.advance(days=10)
    moved = clock.now()
    b = any_mem.revise(a.id, "Alice works at Globex", scope=S, valid_from=moved)
    clock.advance(days=10)
    in_globex = clock.now()
    clock.advance(days=10)
    any_mem.forget(b.id, scope=S, reason="she left Globex")
    assert any_mem.get(b.id, scope=S, valid_at=in_acme).id == a.id
    assert any_mem.get(a.id, scope=S, valid_at=in_globex).id == b.id
    assert _ids_listed(any_mem, in_globex) == {b.id}
    assert _ids_recalled(any_mem, "where does Alice work", in_globex) == {b.id}
    with pytest.raises(NotFoundError):
        any_mem.get(a.id, scope=S, valid_at=clock.now())


def test_a_claim_the_keep_budget_forgets_still_answers_for_the_time_before(mem: Memory, clock: ManualClock) -> None:
    ids = [mem.remember(f"Random chatter number {i} about lunch option {i * 7}", scope=S).id for i in range(12)]
    clock.advance(days=60)
    inside = clock.now()
    clock.advance(days=60)
    mem.dream(scope=S, config=DreamConfig(keep_budget=3))
    pruned = [i for i in ids if mem.get(i, scope=S).status == "forgotten"]
    assert pruned, "the keep budget forgot nothing; the test needs a pruned claim"
    listed = _ids_listed(mem, inside)
    for item_id in pruned:
        assert mem.get(item_id, scope=S, valid_at=inside).id == item_id
        assert item_id in listed


GREEN = (
    "Alice drinks green tea every morning",
    "Alice drinks green tea every morning at home",
    "Every morning Alice drinks green tea",
    "Alice drinks green tea each morning",
)


def test_a_gist_forgotten_because_its_sources_were_corrected_never_answers(mem: Memory, clock: ManualClock) -> None:
    """Its sources were corrected (we were wrong), so what it restates was never true: unlike a
    forget, that forget is a retraction, and the gist answers no valid-time read either."""
    for t in GREEN:
        mem.remember(t, scope=S)
    clock.advance(days=90)
    gist = next(o.created for o in mem.dream(scope=S).outcomes if o.created)
    assert gist is not None
    clock.advance(days=5)
    inside = clock.now()
    clock.advance(days=5)
    for item in mem.list(scope=S, limit=100).items:
        if "green tea" in item.text and item.id != gist:
            mem.revise(item.id, "Alice drinks black coffee every morning", scope=S)
    assert mem.get(gist, scope=S).status == "forgotten"
    with pytest.raises(NotFoundError):
        mem.get(gist, scope=S, valid_at=inside)
    assert gist not in _ids_listed(mem, inside)
    texts = [h.item.text for h in mem.recall("what does Alice drink in the morning", scope=S, valid_at=inside)]
    assert texts and all("green tea" not in t for t in texts)


def test_a_gist_a_pass_finds_without_a_standing_source_is_retracted(mem: Memory, clock: ManualClock) -> None:
    a = mem.remember("Bob parks on level two", scope=S)
    b = mem.remember("Bob parks on the second level", scope=S)
    for x in (a, b):
        mem.revise(x.id, "Bob parks on level four", scope=S)
    # a gist written before the rule (or imported so): its sources were already corrected
    gist = mem.remember_system(
        "Bob parks on level two (consolidated)", scope=S, parents=[a.id, b.id], meta={"dream": "gist"}
    )
    clock.advance(days=5)
    inside = clock.now()
    clock.advance(days=5)
    mem.dream(scope=S)
    closed = mem.get(gist.id, scope=S)
    assert closed.status == "forgotten" and "retracted" in closed.flags
    with pytest.raises(NotFoundError):
        mem.get(gist.id, scope=S, valid_at=inside)


# -- property: get(valid_at=T) agrees with history()'s intervals ------------------------------------

STEP = st.one_of(
    st.tuples(st.just("revise"), st.booleans()),  # True: a change in the world (valid_from=now)
    st.tuples(st.just("forget"), st.just(False)),
    st.tuples(st.just("dismiss"), st.just(False)),
)


def _expected(mem: Memory, item_id: str, at: datetime) -> set[str]:
    """The versions ``history()`` shows standing at ``at``: not corrected, dismissed or purged away,
    and ``at`` inside their half-open valid interval."""
    return {
        v.id
        for v in mem.history(item_id, scope=S).versions
        if v.status in ("live", "forgotten")
        and (v.valid_from is None or v.valid_from <= at)
        and (v.valid_to is None or at < v.valid_to)
    }


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.tuples(STEP, st.integers(1, 5)), max_size=5), probes=st.lists(st.integers(-2, 40), max_size=6))
def test_get_valid_at_agrees_with_history_intervals(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[tuple[str, bool], int]], probes: list[int]
) -> None:
    path = tmp_path_factory.mktemp("vprop") / "v.db"
    for store in ("sqlite", "reference"):
        clock = ManualClock(START)
        kw: dict[str, object] = {"store": ReferenceStore()} if store == "reference" else {}
        with Memory(None if kw else path, embedder="hash", seed=1, clock=clock, **kw) as mem:  # type: ignore[arg-type]
            head = mem.remember("Alice works at company 0", scope=S).id
            for n, ((op, change), days) in enumerate(steps, start=1):
                clock.advance(days=days)
                if mem.get(head, scope=S).status != "live":
                    break
                if op == "revise":
                    when = clock.now() if change else None
                    head = mem.revise(head, f"Alice works at company {n}", scope=S, valid_from=when).id
                elif op == "forget":
                    mem.forget(head, scope=S)
                else:
                    mem.dismiss(head, scope=S)
            for d in probes:
                at = START + timedelta(days=d)
                want = _expected(mem, head, at)
                listed = _ids_listed(mem, at)
                try:
                    got = mem.get(head, scope=S, valid_at=at).id
                except NotFoundError:
                    assert want == set(), (store, d, want)
                    assert listed == set()
                else:
                    assert got in want, (store, d, got, want)
                    assert want <= listed
