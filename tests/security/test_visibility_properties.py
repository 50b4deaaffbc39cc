"""Issue #14.8 as a property: for random stores and principals, no read path ever returns an item,
a text or a count the principal may not see — and SQLite and the reference store agree.

A history mixes claims of every audience (``vis_kit.AUDIENCES``), restatements of a claim to
another audience (which must not corroborate it), revisions, audience changes, contradictions,
forgets, dismissals, writes made by a principal, claims derived from others of any audience
(``parents`` and a ``meta`` id naming them), and dream passes (whose gists merge only claims of
one audience). Then every principal makes every read (``vis_kit.readings``), and filters on
parents must answer as the concealed claims read (no existence oracle).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, Q, ReverieError
from reverie.model.visibility import may_see
from reverie.store.reference import ReferenceStore
from strategies import START

from .vis_kit import AUDIENCES, PRINCIPALS, SCOPE, all_items, canary, expected_summary, hidden_from, readings

OPS = ["remember", "remember", "restate", "revise", "hide", "link", "forget", "dismiss", "pwrite", "dream", "derive"]
Op = tuple[str, int, int]
ops_strategy = st.lists(
    st.tuples(st.sampled_from(OPS), st.integers(0, 30), st.integers(0, 30)), min_size=3, max_size=14
)


def _apply(mem: Memory, history: list[Op]) -> None:
    n = 0
    for op, x, y in history:
        items = [i for i in all_items(mem) if i.is_current]
        audience = AUDIENCES[y % len(AUDIENCES)]
        try:
            if op == "remember" or not items:
                n += 1
                text = f"note {canary(n)} about topic{x % 3} claim"
                mem.remember(text, scope=SCOPE, visibility=list(audience))
            elif op == "restate":
                mem.remember(items[x % len(items)].text, scope=SCOPE, visibility=list(audience))
            elif op == "revise":
                n += 1
                mem.revise(items[x % len(items)].id, f"note {canary(n)} revised topic{x % 3}", scope=SCOPE)
            elif op == "hide":
                mem.set_visibility(items[x % len(items)].id, scope=SCOPE, visibility=list(audience), reason="audience")
            elif op == "link":
                a, b = items[x % len(items)], items[y % len(items)]
                if a.id != b.id:
                    mem.link(a.id, b.id, type="contradicts", scope=SCOPE)
            elif op == "forget":
                mem.forget(items[x % len(items)].id, scope=SCOPE, reason="gone")
            elif op == "dismiss":
                mem.dismiss(items[x % len(items)].id, scope=SCOPE, reason="wrong")
            elif op == "pwrite":
                n += 1
                who = PRINCIPALS[x % len(PRINCIPALS)]
                mine = mem.as_principal(who).remember(
                    f"note {canary(n)} by {who} topic{x % 3}", scope=SCOPE, visibility=list(audience)
                )
                assert may_see(mine.visibility, who)  # a writer never hides its own claim from itself
            elif op == "dream":
                mem.dream(scope=SCOPE)
            elif op == "derive":
                n += 1
                source = items[x % len(items)].id
                mem.remember(
                    f"note {canary(n)} derived topic{x % 3}",
                    scope=SCOPE,
                    parents=[source],
                    meta={"from": source},
                    visibility=list(audience),
                )
        except ReverieError as exc:  # a refused write (closed item, duplicate link) changes nothing
            note(f"{op}: {exc.code}")
        mem.clock.advance(minutes=5)  # type: ignore[attr-defined]


def _memories() -> tuple[Memory, Memory]:
    sqlite = Memory(":memory:", embedder="hash", clock=ManualClock(START), seed=7)
    ref = Memory(store=ReferenceStore(), embedder="hash", clock=ManualClock(START), seed=7)
    return sqlite, ref


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=ops_strategy)
def test_no_read_path_shows_a_principal_what_it_may_not_see(history: list[Op]) -> None:
    sqlite, ref = _memories()
    seen_by_backend = []
    for mem in (sqlite, ref):
        _apply(mem, history)
        ids = [i.id for i in all_items(mem)]
        per_principal = {}
        for who in PRINCIPALS:
            hidden = hidden_from(mem, who)
            visible_texts = {i.text.casefold() for i in all_items(mem) if may_see(i.visibility, who)}
            got = readings(mem.as_principal(who), ids)
            for item in hidden:
                assert item.id not in got["text"], f"{who} saw hidden item {item.id}"
                token = item.text.split()[1].casefold()
                if not any(token in t for t in visible_texts):  # the same words may be visible elsewhere
                    assert token not in got["text"], f"{who} saw the text of hidden item {item.id}"
            summary = got["summary"]
            want = expected_summary(mem, who)
            assert {k: summary[k] for k in want} == want
            assert sum(summary["by_kind"].values()) == want["current"]
            assert got["listed"] == sorted(i.id for i in all_items(mem) if may_see(i.visibility, who))
            _check_parent_filters(mem, who)
            # Ids a principal's view generates are random (it has no seed): compare by text.
            text_of = {i.id: i.text for i in all_items(mem)}
            per_principal[who] = {k: sorted(text_of[i] for i in got[k]) for k in ("listed", "got", "recalled")}
            per_principal[who]["summary"] = summary
        seen_by_backend.append(per_principal)
        # A gist is shown only to principals who may see each of its members (``model.audience``),
        # but for a member restricted to an audience sharing no principal with the gist's.
        for gist in (i for i in all_items(mem) if i.meta.get("dream") == "gist"):
            for m in (mem.get(p, scope=SCOPE) for p in gist.parents):
                disjoint = bool(m.visibility and gist.visibility and not set(m.visibility) & set(gist.visibility))
                for who in PRINCIPALS:
                    assert disjoint or not may_see(gist.visibility, who) or may_see(m.visibility, who)
    sqlite_seen, ref_seen = seen_by_backend
    assert sqlite_seen == ref_seen


def _check_parent_filters(mem: Memory, who: str) -> None:
    """``Q.parent`` / ``Q.parents_count`` / ``Q.meta`` as ``who`` match what it is shown, no more."""
    view = mem.as_principal(who)
    everything = all_items(mem)
    seen = {i.id for i in everything if may_see(i.visibility, who)}

    def listed(where: object) -> list[str]:
        return sorted(i.id for i in view.list(scope=SCOPE, where=where, include_closed=True, limit=1000).items)

    shown_parents = {i.id: [p for p in i.parents if p in seen] for i in everything if i.id in seen}
    assert listed(Q.parents_count(ge=1)) == sorted(i for i, ps in shown_parents.items() if ps)
    for item in everything:
        expected = sorted(i for i, ps in shown_parents.items() if item.id in ps)
        assert listed(Q.parent(item.id)) == expected
        assert listed(Q.meta("from", item.id)) == (
            []
            if item.id not in seen
            else sorted(i.id for i in everything if i.id in seen and i.meta.get("from") == item.id)
        )
