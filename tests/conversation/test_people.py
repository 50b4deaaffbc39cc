"""People: person records from speakers and mentions, aliases, relations with evidence, bad input."""

from __future__ import annotations

import pytest

from reverie import Memory
from reverie.errors import InvalidInputError, LimitExceededError, NotFoundError

SCOPE = "team:acme"


def talk(mem: Memory, *turns: tuple[str, str]) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    for speaker, text in turns:
        conv.add(text, speaker=speaker)
    conv.close()


def test_speakers_and_mentioned_people_become_person_records(mem: Memory) -> None:
    talk(mem, ("Omar", "My manager Priya wants the report by Friday."), ("Omar", "I'm allergic to shellfish."))
    people = {p.name: p for p in mem.people(scope=SCOPE)}
    assert set(people) == {"Omar", "Priya"}
    assert people["Omar"].attributes["speaker"] and not people["Priya"].attributes["speaker"]


def test_bob_robert_and_bob_smith_are_one_person(mem: Memory) -> None:
    talk(
        mem,
        ("Maya", "Bob Smith is joining our team next week."),
        ("Maya", "Bob used to work at Google."),
        ("Maya", "Robert likes to be called Bob, not Robert."),
    )
    [bob] = [p for p in mem.people(scope=SCOPE) if p.name != "Maya"]
    assert bob.name == "Bob Smith" and set(bob.aliases) == {"Bob", "Robert"}
    for name in ("Bob", "Robert", "bob smith", bob.id):
        assert mem.person(name, scope=SCOPE).id == bob.id
    texts = {c.text for c in mem.person("Robert", scope=SCOPE).claims}
    assert {"Bob used to work at Google.", "Robert likes to be called Bob, not Robert."} <= texts


def test_two_different_surnames_are_two_people(mem: Memory) -> None:
    talk(mem, ("Sara", "Bob Smith called me."), ("Sara", "Bob Jones lives in Leeds."))
    assert {p.name for p in mem.people(scope=SCOPE)} >= {"Bob Smith", "Bob Jones"}
    with pytest.raises(InvalidInputError, match="fits several people"):
        mem.person("Bob", scope=SCOPE)


def test_relations_carry_their_evidence_both_ways(mem: Memory) -> None:
    talk(mem, ("Alice", "My sister Dana lives in Lisbon."), ("Alice", "Omar is my manager."))
    alice = mem.person("Alice", scope=SCOPE)
    rels = {(r.person_name, r.type, r.of_name) for r in alice.relations}
    assert rels == {("Dana", "sister", "Alice"), ("Omar", "manager", "Alice")}
    [sister] = mem.person("Dana", scope=SCOPE).relations
    said = mem.conversation("c", scope=SCOPE).messages()[0]
    assert sister.text == "Dana is Alice's sister." and sister.message_id == said.id


def test_claims_are_linked_to_the_people_they_are_about(mem: Memory) -> None:
    talk(mem, ("Alice", "My sister Dana lives in Lisbon."), ("Alice", "She works as a nurse."))
    dana = mem.person("Dana", scope=SCOPE)
    assert "Dana works as a nurse." in {c.text for c in dana.claims}
    assert "Dana works as a nurse." not in {c.text for c in mem.person("Alice", scope=SCOPE).claims}


def test_an_unknown_person_is_not_found_and_says_how_to_list(mem: Memory) -> None:
    talk(mem, ("Alice", "I live in Porto."))
    with pytest.raises(NotFoundError, match=r"mem\.people"):
        mem.person("Zed", scope=SCOPE)


@pytest.mark.parametrize("name", ["Dana\n", "Da\x1bna", "Dana\u200b", "", "   "])
def test_a_name_with_control_characters_or_none_is_refused(mem: Memory, name: str) -> None:
    with pytest.raises(InvalidInputError):
        mem.person(name, scope=SCOPE)


def test_a_huge_name_is_refused(mem: Memory) -> None:
    with pytest.raises(LimitExceededError):
        mem.person("A" * 500, scope=SCOPE)


def test_a_speaker_with_control_characters_stores_nothing(mem: Memory, snapshot: object) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    with pytest.raises(InvalidInputError, match="control character"):
        conv.add("I live in Porto.", speaker="Al\x07ice")
    assert conv.close().extraction.claims == [] and mem.people(scope=SCOPE) == []


def test_people_are_scoped(mem: Memory) -> None:
    talk(mem, ("Alice", "My sister Dana lives in Lisbon."))
    assert mem.people(scope="team:other") == []
    with pytest.raises(NotFoundError):
        mem.person("Dana", scope="team:other")
