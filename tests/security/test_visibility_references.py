"""A visible claim that refers to a hidden one shows a principal nothing of the hidden one.

Regression tests for the parents leak: a claim everyone may see, derived from a restricted one
(``parents=[hidden]``), was returned to every principal with the hidden claim's id in its
``parents`` — by get, list, history, recall (and its ``why``), the thinking queue and slice
export — and ``Q.parent(hidden_id)`` / ``Q.parents_count`` answered as if the parent were there,
an existence oracle. The same held for a hidden id in ``meta`` or ``provenance`` (a dream gist's
``representative`` and ``locator``) and in an edge's ``meta``.

What a principal is shown instead (``reverie.model.conceal``): the reference is omitted — no
placeholder, no count — and filters answer as if it had never been there. The owner and the
principals who may see the hidden claim keep seeing every reference. Run on every backend
(SQLite file, reference store, PostgreSQL): the filters compile per backend.
"""

from __future__ import annotations

from typing import Any

from reverie import Memory, Q
from reverie.model.query import Filter

from .kit import dump

SCOPE = "team:ops"
OPS, BOB = "agent:ops", "agent:bob"


def _world(mem: Memory) -> dict[str, str]:
    """A hidden claim and a visible one pointing at it every way a claim can; their ids."""
    hidden = mem.remember("zqhid secret plan to buy Initech", scope=SCOPE, visibility=[OPS]).id
    derived = mem.remember(
        "zqpub public note derived from a plan",
        scope=SCOPE,
        parents=[hidden],
        meta={"see": hidden, "also": [hidden, "kept"], "nest": {"ref": hidden, "k": 1}, "plain": "x"},
        provenance={"origin": "tool", "ref": hidden, "locator": hidden},
    ).id
    plain = mem.remember("zqpub plain public note", scope=SCOPE).id
    mem.link(derived, plain, "supports", scope=SCOPE, meta={"because": hidden, "note": "n"})
    return {"hidden": hidden, "derived": derived, "plain": plain}


def _ids(mem: Memory, where: Filter) -> list[str]:
    return sorted(i.id for i in mem.list(scope=SCOPE, where=where, include_closed=True).items)


def _everything(view: Memory, ids: dict[str, str]) -> dict[str, Any]:
    """Every read a principal can make about the visible claims, as JSON-ready values."""
    derived = ids["derived"]
    return {
        "get": view.get(derived, scope=SCOPE).to_dict(),
        "list": [i.to_dict() for i in view.list(scope=SCOPE, include_closed=True).items],
        "history": [v.to_dict() for v in view.history(derived, scope=SCOPE).versions],
        "recall": [
            {"item": h.item.to_dict(), "why": h.why}
            for h in view.recall("zqpub public note plan", scope=SCOPE, k=10, record_use=False)
        ],
        "context": view.context("zqpub public note plan", scope=SCOPE),
        "edges": [e.to_dict() for e in view.edges(scope=SCOPE, include_closed=True)],
        "events": [e.to_dict() for e in view.events(scope=SCOPE)],
        "queue": [q.item.to_dict() for q in view.thinking_queue(scope=SCOPE)],
        "slice": view.export_slice(scope=SCOPE).to_dict(),
        "summary": view.summary(scope=SCOPE),
    }


def test_a_hidden_parent_or_id_is_omitted_from_every_read_of_a_visible_claim(any_mem: Memory) -> None:
    ids = _world(any_mem)
    bob = any_mem.as_principal(BOB)
    seen = _everything(bob, ids)
    assert ids["hidden"] not in dump(seen) and "zqhid" not in dump(seen)
    got = bob.get(ids["derived"], scope=SCOPE)
    assert got.parents == ()
    assert got.meta == {"also": ["kept"], "nest": {"k": 1}, "plain": "x"}
    assert (got.provenance.origin, got.provenance.ref, got.provenance.locator) == ("tool", None, None)
    (edge,) = bob.edges(scope=SCOPE)
    assert edge.meta == {"note": "n"}


def test_the_owner_and_an_allowed_principal_still_see_every_reference(any_mem: Memory) -> None:
    ids = _world(any_mem)
    for view in (any_mem, any_mem.as_principal(OPS)):
        got = view.get(ids["derived"], scope=SCOPE)
        assert got.parents == (ids["hidden"],)
        assert got.meta["see"] == ids["hidden"] and got.meta["also"] == [ids["hidden"], "kept"]
        assert got.provenance.ref == got.provenance.locator == ids["hidden"]
        assert view.edges(scope=SCOPE)[0].meta["because"] == ids["hidden"]
        assert _ids(view, Q.parent(ids["hidden"])) == [ids["derived"]]


def test_filters_on_parents_and_meta_answer_as_the_concealed_claim_reads(any_mem: Memory) -> None:
    """Else a filter naming a guessed id would say whether it exists (an existence oracle)."""
    ids = _world(any_mem)
    bob = any_mem.as_principal(BOB)
    hidden, derived, plain = ids["hidden"], ids["derived"], ids["plain"]
    assert _ids(bob, Q.parent(hidden)) == []
    assert _ids(bob, ~Q.parent(hidden)) == sorted([derived, plain])
    assert _ids(bob, Q.parents_count(ge=1)) == []
    assert _ids(bob, Q.parents_count(le=0)) == sorted([derived, plain])
    assert _ids(bob, Q.meta("see", hidden)) == []
    assert _ids(bob, Q.meta("nest.ref", hidden)) == []
    assert _ids(bob, Q.meta_has("see")) == []
    assert _ids(bob, Q.meta_has("nest.ref")) == []
    assert _ids(bob, Q.meta_has("nest.k")) == [derived]
    assert _ids(bob, Q.meta_has("also")) == [derived]  # the list stays, without the hidden element
    assert _ids(bob, Q.meta_has("plain") & Q.parents_count(ge=0, le=0)) == [derived]
    # The owner's view of the same filters: the concealment is the principal's only.
    assert _ids(any_mem, Q.parents_count(ge=1)) == [derived]
    assert _ids(any_mem, Q.meta_has("see")) == [derived]
    assert _ids(any_mem.as_principal(OPS), Q.meta("see", hidden)) == [derived]


def test_a_visible_parent_is_kept_beside_a_hidden_one(any_mem: Memory) -> None:
    hidden = any_mem.remember("zqhid restricted source", scope=SCOPE, visibility=[OPS]).id
    shown = any_mem.remember("zqpub open source", scope=SCOPE).id
    child = any_mem.remember("zqpub child of both", scope=SCOPE, parents=[hidden, shown]).id
    bob = any_mem.as_principal(BOB)
    assert bob.get(child, scope=SCOPE).parents == (shown,)
    assert _ids(bob, Q.parents_count(ge=1, le=1)) == [child]
    assert _ids(bob, Q.parents_count(ge=2)) == []
    assert _ids(bob, Q.parent(shown)) == [child]
    assert any_mem.get(child, scope=SCOPE).parents == (hidden, shown)


def test_a_principals_revision_keeps_the_parent_it_cannot_see(any_mem: Memory) -> None:
    """Concealment is a read's: a write by the principal leaves the stored reference as it was."""
    ids = _world(any_mem)
    bob = any_mem.as_principal(BOB)
    new = bob.revise(ids["derived"], "zqpub public note derived from a plan, revised", scope=SCOPE)
    assert new.parents == ()
    stored = any_mem.get(new.id, scope=SCOPE)
    assert stored.parents == (ids["hidden"],) and stored.meta["see"] == ids["hidden"]


def test_an_event_whose_reason_quotes_a_hidden_id_is_not_shown(any_mem: Memory) -> None:
    """The dream pass flags a claim whose parent was retracted, with the reason "dream/provenance:
    parent <id> was retracted (superseded)": the event was about a visible claim, so it was shown,
    id and fate of the hidden parent included (found by the property test's ``derive`` step)."""
    ids = _world(any_mem)
    any_mem.revise(ids["hidden"], "zqhid secret plan, revised", scope=SCOPE)
    any_mem.dream(scope=SCOPE)
    flagged = any_mem.get(ids["derived"], scope=SCOPE)
    assert "stale_derived" in flagged.flags
    assert any(ids["hidden"] in str(e.payload.get("reason")) for e in any_mem.events(scope=SCOPE))
    bob = any_mem.as_principal(BOB)
    shown = dump([e.to_dict() for e in bob.events(scope=SCOPE)])
    shown += dump([e.to_dict() for e in bob.history(ids["derived"], scope=SCOPE).events])
    assert ids["hidden"] not in shown and "zqhid" not in shown


def _gist(mem: Memory) -> tuple[list[str], Any]:
    """Three near-duplicates everyone may see, and the dream gist made from them."""
    texts = ("Alice prefers Kx5Gist tea in the morning", "In the morning Alice prefers Kx5Gist tea")
    members = [mem.remember(t, scope=SCOPE, kind="episodic").id for t in (*texts, texts[0] + " daily")]
    mem.clock.advance(days=40)  # type: ignore[attr-defined]
    created = [o.created for o in mem.dream(scope=SCOPE).outcomes if o.created]
    assert len(created) == 1
    gist = mem.get(str(created[0]), scope=SCOPE)
    assert gist.source == "system" and sorted(gist.parents) == sorted(members) and not gist.visibility
    return members, gist


def test_restricting_a_member_restricts_the_dream_gist_made_from_it(any_mem: Memory) -> None:
    """The gist quoted its representative and counted every member: restricting any member made
    both visible to principals the member was now hidden from (its words, its id, that it exists)."""
    members, gist = _gist(any_mem)
    rep = str(gist.meta["representative"])
    for member in (rep, sorted(m for m in members if m != rep)[0]):
        any_mem.set_visibility(member, scope=SCOPE, visibility=[OPS], reason="private")
        assert any_mem.get(gist.id, scope=SCOPE).visibility == (OPS,)
        bob = any_mem.as_principal(BOB)
        seen = dump([i.to_dict() for i in bob.list(scope=SCOPE, include_closed=True).items])
        assert gist.id not in seen and member not in seen and "(consolidated)" not in seen
        assert any_mem.as_principal(OPS).get(gist.id, scope=SCOPE).parents == gist.parents
        any_mem.set_visibility(member, scope=SCOPE, visibility=None, reason="open again")
        # Widening a member widens no copy: the owner opens the gist itself.
        assert any_mem.get(gist.id, scope=SCOPE).visibility == (OPS,)
        any_mem.set_visibility(gist.id, scope=SCOPE, visibility=None, reason="open again")


def test_a_restricted_copy_only_ever_narrows(any_mem: Memory) -> None:
    """A copy keeps the principals in both audiences, and never gains one — not even the writer's."""
    members, gist = _gist(any_mem)
    any_mem.set_visibility(gist.id, scope=SCOPE, visibility=[OPS, "agent:cto"], reason="team")
    any_mem.set_visibility(members[0], scope=SCOPE, visibility=["agent:cto", BOB], reason="narrow")
    assert any_mem.get(gist.id, scope=SCOPE).visibility == ("agent:cto",)
    # Disjoint audiences: nothing left to keep, and BOB (the writer) must not gain the gist.
    any_mem.as_principal(BOB).set_visibility(members[1], scope=SCOPE, visibility=[BOB], reason="mine")
    assert any_mem.get(gist.id, scope=SCOPE).visibility == ("agent:cto",)
    assert gist.id not in dump([i.to_dict() for i in any_mem.as_principal(BOB).list(scope=SCOPE).items])
