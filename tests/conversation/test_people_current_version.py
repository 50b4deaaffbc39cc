"""A person's relations and names are read from the current version of each claim and name item.

Regression (session 31): after ``revise`` of a relation claim ("Dana is Alice's sister." →
"Dana is Alice's cousin."), ``person("Dana").relations`` — and Alice's, and the people list —
still said ``type="sister"``: the relation was read from ``meta["relation"]``, which ``revise``
carries over to the new version unchanged. The type is now read from the current version's
text when the claim was corrected (and the relation dropped when the text no longer states
one). The same defect for names: revising a person's name item ("Dana" → "Dana Smith") left a
new person with no claims and lost Dana's claims and relations, because the ``about`` and
``alias`` edges point at the first version.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from reverie import Memory
from reverie.errors import NotFoundError
from reverie.testing import ManualClock

S = "user:alice"


def _talk(mem: Memory, *lines: str) -> None:
    conv = mem.conversation("c1", scope=S)
    for line in lines:
        conv.add(line, speaker="Bob", role="user")
    conv.close()


def _rels(mem: Memory, name: str) -> set[tuple[str, str, str, str]]:
    return {(r.person_name, r.type, r.of_name, r.text) for r in mem.person(name, scope=S).relations}


def _listed(mem: Memory) -> dict[str, set[tuple[str, str, str, str]]]:
    return {p.name: {(r.person_name, r.type, r.of_name, r.text) for r in p.relations} for p in mem.people(scope=S)}


def _sister_claim(mem: Memory) -> str:
    [rel] = mem.person("Dana", scope=S).relations
    assert (rel.type, rel.person_name, rel.of_name) == ("sister", "Dana", "Alice")
    return rel.claim


def test_regression_a_revised_relation_reads_its_type_from_the_current_text(any_mem: Memory) -> None:
    _talk(any_mem, "Dana is Alice's sister.", "Dana lives in Porto.")
    new = any_mem.revise(_sister_claim(any_mem), "Dana is Alice's cousin.", scope=S)
    want = {("Dana", "cousin", "Alice", "Dana is Alice's cousin.")}
    assert _rels(any_mem, "Dana") == want and _rels(any_mem, "Alice") == want
    assert _listed(any_mem) == {"Dana": want, "Alice": want}
    [rel] = any_mem.person("Dana", scope=S).relations
    assert rel.claim == new.id


def test_a_relation_revised_twice_reads_the_last_version(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.")
    first = mem.revise(_sister_claim(mem), "Dana is Alice's cousin.", scope=S)
    mem.revise(first.id, "Dana is Alice's older half-sister.", scope=S)
    assert {(r.type, r.text) for r in mem.person("Alice", scope=S).relations} == {
        ("half-sister", "Dana is Alice's older half-sister.")
    }


def test_a_revision_that_no_longer_states_a_relation_drops_it(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.")
    mem.revise(_sister_claim(mem), "Dana is not Alice's sister.", scope=S)
    assert _rels(mem, "Dana") == set() and _rels(mem, "Alice") == set()
    assert _listed(mem) == {"Dana": set(), "Alice": set()}
    # the claim itself is still one of Dana's current claims, in its current words
    assert "Dana is not Alice's sister." in [c.text for c in mem.person("Dana", scope=S).claims]


def test_a_revision_to_another_fact_drops_the_relation(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.")
    mem.revise(_sister_claim(mem), "Dana moved to Alice's town.", scope=S)
    assert _rels(mem, "Dana") == set() and _rels(mem, "Alice") == set()


def test_a_revision_that_keeps_the_relation_in_other_words_keeps_it(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.")
    mem.revise(_sister_claim(mem), "Alice's sister is called Dana.", scope=S)
    assert {(r.person_name, r.type, r.of_name) for r in mem.person("Alice", scope=S).relations} == {
        ("Dana", "sister", "Alice")
    }


@pytest.mark.parametrize("how", ["forget", "dismiss"])
def test_a_closed_relation_claim_is_no_current_relation(mem: Memory, how: str) -> None:
    _talk(mem, "Dana is Alice's sister.")
    new = mem.revise(_sister_claim(mem), "Dana is Alice's cousin.", scope=S)
    getattr(mem, how)(new.id, scope=S)
    assert _rels(mem, "Dana") == set() and _rels(mem, "Alice") == set()
    assert _listed(mem) == {"Dana": set(), "Alice": set()}


def test_a_relation_claim_corrected_into_another_is_read_from_that_one(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.", "Omar is Alice's manager.")
    mem.revise(_sister_claim(mem), "Omar is Alice's manager.", scope=S)  # said what another claim says
    assert {(r.person_name, r.type) for r in mem.person("Alice", scope=S).relations} == {("Omar", "manager")}
    assert _rels(mem, "Dana") == set()


def test_a_revised_relation_rewrites_the_recall_question_by_its_new_type(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.", "Dana lives in Porto.")
    mem.revise(_sister_claim(mem), "Dana is Alice's cousin.", scope=S)
    cousin = mem.recall("where does Alice's cousin live?", scope=S)
    assert any(h.why.get("about_person") for h in cousin)
    sister = mem.recall("where does Alice's sister live?", scope=S)
    assert not any(h.why.get("about_person") for h in sister)


def test_regression_a_revised_name_keeps_the_persons_claims_relations_and_id(any_mem: Memory) -> None:
    _talk(any_mem, "Dana is Alice's sister.", "Dana lives in Porto.")
    before = any_mem.person("Dana", scope=S)
    any_mem.revise(before.id, "Dana Smith", scope=S)
    after = any_mem.person("Dana Smith", scope=S)
    assert after.name == "Dana Smith"
    assert sorted(c.text for c in after.claims) == sorted(c.text for c in before.claims)
    assert {(r.person_name, r.type, r.of_name) for r in after.relations} == {("Dana Smith", "sister", "Alice")}
    assert any_mem.person(before.id, scope=S).id == after.id  # the old id still finds her
    listed = {p.name: p for p in any_mem.people(scope=S)}
    assert sorted(listed) == ["Alice", "Dana Smith"]
    assert listed["Dana Smith"].claim_count == len(before.claims)
    assert listed["Dana Smith"].relations == after.relations
    assert {(r.person_name, r.of_name) for r in any_mem.person("Alice", scope=S).relations} == {("Dana Smith", "Alice")}


def test_a_revised_alias_stays_a_name_of_its_person(mem: Memory) -> None:
    _talk(mem, "Robert Smith is Alice's brother.", "Bob lives in Leeds.")
    bob = mem.person("Robert Smith", scope=S)
    assert "Bob" in bob.aliases
    alias_item = next(i for i in mem.list(scope=S, limit=100).items if i.kind == "person" and i.text == "Bob")
    mem.revise(alias_item.id, "Rob", scope=S)
    rob = mem.person("Rob", scope=S)
    assert rob.id == bob.id and "Rob" in rob.aliases and "Bob" not in rob.aliases
    assert "Bob lives in Leeds." in [c.text for c in rob.claims]
    assert [p.name for p in mem.people(scope=S)].count("Robert Smith") == 1


def test_a_forgotten_name_is_no_longer_found(mem: Memory) -> None:
    _talk(mem, "Dana is Alice's sister.")
    dana = mem.person("Dana", scope=S)
    mem.forget(dana.id, scope=S)
    with pytest.raises(NotFoundError):
        mem.person("Dana", scope=S)
    assert _rels(mem, "Alice") == set()


def test_a_relation_changed_in_the_world_is_the_one_valid_now(mem: Memory, clock: ManualClock) -> None:
    _talk(mem, "Dana is Alice's girlfriend.", "Dana lives in Porto.")
    [rel] = mem.person("Dana", scope=S).relations
    wedding = clock.now() + timedelta(days=1)
    mem.revise(rel.claim, "Dana is Alice's wife.", scope=S, valid_from=wedding)
    assert {r.type for r in mem.person("Alice", scope=S).relations} == {"girlfriend"}  # not married yet
    clock.advance(days=2)
    assert {r.type for r in mem.person("Alice", scope=S).relations} == {"wife"}
    assert {r.type for p in mem.people(scope=S) for r in p.relations} == {"wife"}
    # both claims are still believed (a change in the world keeps the old one, valid until then),
    # but the ended one is no longer one of Dana's current claims (outside probe 4, finding 8)
    assert [c.text for c in mem.person("Dana", scope=S).claims] == ["Dana is Alice's wife.", "Dana lives in Porto."]
    then = wedding - timedelta(hours=1)
    assert any(i.text == "Dana is Alice's girlfriend." for i in mem.list(scope=S, valid_at=then).items)
    assert any(h.why.get("about_person") for h in mem.recall("where does Alice's wife live?", scope=S))
    assert not any(h.why.get("about_person") for h in mem.recall("where does Alice's girlfriend live?", scope=S))
    then = mem.recall("where does Alice's girlfriend live?", scope=S, valid_at=wedding - timedelta(hours=1))
    assert any(h.why.get("about_person") for h in then)
