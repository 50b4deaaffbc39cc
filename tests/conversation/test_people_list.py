"""The people list says what it knows: each person's relations, and how many claims are about them.

Regression (outside probe, finding 7): ``mem.people`` — and every face's ``people`` — reported every
person with ``relations=()`` and ``claims=()`` although ``mem.person`` found both, so a client
reading the list concluded nobody had a relation or a claim.
"""

from __future__ import annotations

import dataclasses

from reverie import Memory
from reverie.conversation.people import PersonSummary

SCOPE = "team:acme"


def talk(mem: Memory, *texts: str) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    for text in texts:
        conv.add(text, speaker="Alice", role="user")
    conv.close()


def test_regression_the_list_carries_relations_and_a_true_claim_count(mem: Memory) -> None:
    talk(mem, "My sister Dana lives in Lisbon.", "She works as a nurse.", "Omar is my manager.")
    listed = {p.name: p for p in mem.people(scope=SCOPE)}
    dana = listed["Dana"]
    assert isinstance(dana, PersonSummary)
    assert [(r.person_name, r.type, r.of_name) for r in dana.relations] == [("Dana", "sister", "Alice")]
    assert dana.claim_count == 3  # the relation, where she lives, her work
    assert "claims" not in {f.name for f in dataclasses.fields(dana)}  # counted, never claimed empty


def test_every_listed_person_agrees_with_person(mem: Memory) -> None:
    talk(
        mem,
        "My sister Dana lives in Lisbon.",
        "Dana, my sister, loves jazz.",
        "Omar is my manager.",
        "Omar's wife Lena works at a bank.",
        "Bob Smith called me.",
        "Bob loves cycling.",
    )
    listed = mem.people(scope=SCOPE)
    assert len(listed) >= 5
    for summary in listed:
        full = mem.person(summary.id, scope=SCOPE)
        assert (summary.id, summary.name, summary.aliases, summary.attributes) == (
            full.id,
            full.name,
            full.aliases,
            full.attributes,
        )
        assert summary.relations == full.relations
        assert summary.claim_count == len(full.claims)


def test_a_forgotten_claim_leaves_the_count_and_a_forgotten_relation_the_relations(mem: Memory) -> None:
    talk(mem, "My sister Dana lives in Lisbon.")
    dana = mem.person("Dana", scope=SCOPE)
    [relation] = dana.relations
    mem.forget(relation.claim, scope=SCOPE)
    [listed] = [p for p in mem.people(scope=SCOPE) if p.name == "Dana"]
    assert listed.relations == () and listed.claim_count == len(dana.claims) - 1


def test_a_person_whose_claims_are_all_forgotten_is_listed_with_none(mem: Memory) -> None:
    talk(mem, "My sister Dana lives in Lisbon.")
    for claim in mem.person("Dana", scope=SCOPE).claims:
        mem.forget(claim.id, scope=SCOPE)
    listed = {p.name: (p.relations, p.claim_count) for p in mem.people(scope=SCOPE)}
    assert listed == {"Dana": ((), 0), "Alice": ((), 0)}
