"""A short name that fits two known people, and short names said by anonymous speakers.

Regressions (session 33, after the two-Danas split of session 32):

- once Alice's sister Dana and Carl's friend Dana were two people, every later bare "Dana" —
  Alice's own "Dana got a new job." included, even in the conversation that named her — became a
  third person with nobody's relations, and recall could not tie it to either;
- two support tickets whose customers gave no name ("My sister Dana lives in Lisbon." in one, "My
  sister Dana works at Acme." in the other) made one Dana of two customers' sisters;
- "Dan" said by Carl joined the "Daniel" Alice spoke of in another conversation on the nickname
  table alone.
"""

from __future__ import annotations

import pytest

from reverie import Memory, Q
from reverie.errors import InvalidInputError

SCOPE = "user:alice"
SISTER = "My sister Dana lives in Lisbon."
FRIEND = "My friend Dana works at Acme."


def say(mem: Memory, conversation: str, speaker: str | None, *texts: str) -> None:
    conv = mem.conversation(conversation, scope=SCOPE)
    for text in texts:
        conv.add(text, speaker=speaker, role="user")
    conv.close()


def people_called(mem: Memory, first: str) -> list[tuple[set[tuple[str, str]], set[str]]]:
    """Each person whose name starts with ``first``: relations (type, of whom) and claim texts."""
    out = []
    for p in mem.people(scope=SCOPE):
        if p.name.split()[0] != first:
            continue
        person = mem.person(p.id, scope=SCOPE)
        out.append(({(r.type, r.of_name) for r in person.relations}, {c.text for c in person.claims}))
    return sorted(out, key=lambda d: (sorted(d[0]), sorted(d[1])))


def two_danas(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "carl-chat", "Carl", FRIEND)


def claims_of(mem: Memory, relation: tuple[str, str]) -> set[str]:
    (claims,) = [c for r, c in people_called(mem, "Dana") if relation in r]
    return claims


# -- 1. a bare name that fits two people ----------------------------------------------------------


@pytest.mark.parametrize("conversation", ["alice-chat", "alice-chat-2"])
def test_regression_a_bare_name_joins_the_dana_its_speaker_spoke_of(mem: Memory, conversation: str) -> None:
    two_danas(mem)
    say(mem, conversation, "Alice", "Dana got a new job at Google.")
    assert len(people_called(mem, "Dana")) == 2  # not a third Dana
    assert "Dana got a new job at Google." in claims_of(mem, ("sister", "Alice"))
    assert "Dana got a new job at Google." not in claims_of(mem, ("friend", "Carl"))


def test_a_bare_name_joins_the_dana_related_to_someone_the_talk_named(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "bea-chat", "Bea", "I had lunch with Carl today.", "Dana is moving to Porto.")
    assert len(people_called(mem, "Dana")) == 2
    assert "Dana is moving to Porto." in claims_of(mem, ("friend", "Carl"))


def test_an_undecidable_bare_name_is_an_ambiguous_mention_not_a_third_person(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "bea-chat", "Bea", "Dana loves jazz.", "Dana plays the cello.")
    danas = people_called(mem, "Dana")
    assert len(danas) == 2 and all("Dana loves jazz." not in claims for _, claims in danas)
    with pytest.raises(InvalidInputError, match="fits several people") as refused:
        mem.person("Dana", scope=SCOPE)
    message = refused.value.message
    assert "not attributed" in message and "mem.link" in message
    (mention,) = [i for i in mem.list(scope=SCOPE, where=Q.kind("person"), limit=50).items if i.meta.get("ambiguous")]
    assert mention.id in message
    with pytest.raises(InvalidInputError, match="not attributed"):
        mem.person(mention.id, scope=SCOPE)
    # Saying who it is attributes the mention (both claims: one mention per conversation).
    sister = next(p.id for p in mem.people(scope=SCOPE) if p.name == "Dana" and p.relations[0].of_name == "Alice")
    mem.link(mention.id, sister, "alias", scope=SCOPE)
    assert {"Dana loves jazz.", "Dana plays the cello."} <= claims_of(mem, ("sister", "Alice"))
    assert len(people_called(mem, "Dana")) == 2


def test_purging_the_message_erases_its_ambiguous_mention(mem: Memory) -> None:
    two_danas(mem)
    conv = mem.conversation("bea-chat", scope=SCOPE)
    said = conv.add("Dana loves jazz.", speaker="Bea", role="user")
    conv.close()
    assert [i.text for i in mem.list(scope=SCOPE, where=Q.kind("person"), limit=50).items if i.meta.get("ambiguous")]
    conv.purge(said.id, reason="asked")
    assert not [i for i in mem.list(scope=SCOPE, where=Q.kind("person"), limit=50).items if i.meta.get("ambiguous")]
    assert len(people_called(mem, "Dana")) == 2


def test_a_later_tie_in_the_same_conversation_attributes_the_ambiguous_mention(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "bea-chat", "Bea", "Dana loves jazz.")
    say(mem, "bea-chat", "Bea", "Alice's sister Dana plays the cello.")
    claims = claims_of(mem, ("sister", "Alice"))
    assert {"Dana loves jazz.", "Dana plays the cello."} <= claims
    assert len(people_called(mem, "Dana")) == 2


def test_a_new_dana_named_later_in_the_same_conversation_takes_its_ambiguous_mention(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "bea-chat", "Bea", "Dana loves jazz.")
    say(mem, "bea-chat", "Bea", "My cousin Dana plays the cello.")
    assert {"Dana loves jazz.", "Dana plays the cello."} <= claims_of(mem, ("cousin", "Bea"))
    assert len(people_called(mem, "Dana")) == 3  # Alice's sister, Carl's friend, Bea's cousin


def test_recall_in_alices_conversation_answers_with_her_danas_claims(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "alice-chat-2", "Alice", "Dana works at Google now.")
    conv = mem.conversation("alice-chat-2", scope=SCOPE)
    hits = conv.recall("where does my sister work?", record_use=False)
    texts = [h.item.text for h in hits]
    assert "Dana works at Google now." in texts  # hers, so boosted as the claims about Alice's sister
    assert all(h.why.get("about_person") for h in hits if h.item.text == "Dana works at Google now.")
    assert all(not h.why.get("about_person") for h in hits if "Acme" in h.item.text)
    assert "Dana works at Acme." not in texts[: texts.index("Dana works at Google now.")]


# -- 2. anonymous speakers of different conversations ----------------------------------------------


def test_regression_two_anonymous_customers_sisters_are_two_people(mem: Memory) -> None:
    say(mem, "ticket-1", None, "My sister Dana lives in Lisbon.")
    say(mem, "ticket-2", None, "My sister Dana works at Acme.")
    assert [claims for _, claims in people_called(mem, "Dana")] == [
        {"Dana lives in Lisbon.", "Dana is the user of ticket-1's sister."},
        {"Dana works at Acme.", "Dana is the user of ticket-2's sister."},
    ]


def test_anonymous_speakers_bare_names_do_not_merge_across_conversations(mem: Memory) -> None:
    say(mem, "ticket-1", None, "Dana lives in Lisbon.")
    say(mem, "ticket-2", None, "Dana works at Acme.")
    say(mem, "carl-chat", "Carl", "Dana moved to Porto.")  # a named speaker's guess needs more than a ticket's
    assert [claims for _, claims in people_called(mem, "Dana")] == [
        {"Dana lives in Lisbon."},
        {"Dana moved to Porto."},
        {"Dana works at Acme."},
    ]


def test_one_anonymous_conversation_speaks_of_one_dana_across_sessions(mem: Memory) -> None:
    say(mem, "ticket-1", None, "My sister Dana lives in Lisbon.")
    say(mem, "ticket-1", None, "Dana works at Acme.")
    (_, claims), *more = people_called(mem, "Dana")
    assert not more and {"Dana lives in Lisbon.", "Dana works at Acme."} <= claims


def test_the_same_full_name_from_two_anonymous_customers_is_one_person(mem: Memory) -> None:
    say(mem, "ticket-1", None, "Dana Silva lives in Lisbon.")
    say(mem, "ticket-2", None, "Dana Silva works at Acme.")
    (_, claims), *more = people_called(mem, "Dana")
    assert not more and claims == {"Dana Silva lives in Lisbon.", "Dana Silva works at Acme."}


# -- 3. nicknames and surnames across conversations ------------------------------------------------


def test_regression_a_nickname_from_another_speaker_needs_an_alias_link(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", "My brother Daniel lives in Oslo.")
    say(mem, "carl-chat", "Carl", "Dan works at Acme.")
    ids = {p.name: p.id for p in mem.people(scope=SCOPE)}
    assert mem.person(ids["Dan"], scope=SCOPE).aliases == ()
    assert {c.text for c in mem.person(ids["Dan"], scope=SCOPE).claims} == {"Dan works at Acme."}
    assert "Dan works at Acme." not in {c.text for c in mem.person(ids["Daniel"], scope=SCOPE).claims}
    mem.link(ids["Dan"], ids["Daniel"], "alias", scope=SCOPE)
    say(mem, "carl-chat-2", "Carl", "Dan moved to Bergen.")
    joined = mem.person("Daniel", scope=SCOPE)
    assert {"Dan works at Acme.", "Dan moved to Bergen.", "Daniel lives in Oslo."} <= {c.text for c in joined.claims}
    assert [p.name for p in mem.people(scope=SCOPE) if p.name.startswith("Dan")] == ["Daniel"]


def test_a_nickname_in_the_same_conversation_or_from_the_same_speaker_joins(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", "My brother Daniel lives in Oslo.", "Dan loves chess.")
    say(mem, "alice-chat-2", "Alice", "Danny moved to Bergen.")
    daniel = mem.person("Daniel", scope=SCOPE)
    assert set(daniel.aliases) == {"Dan", "Danny"}
    assert {"Dan loves chess.", "Danny moved to Bergen."} <= {c.text for c in daniel.claims}


def test_a_surname_said_later_joins_the_dana_its_speaker_spoke_of(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "alice-chat-2", "Alice", "Dana Silva got a new job at Google.")
    assert len(people_called(mem, "Dana")) == 2
    silva = mem.person("Dana Silva", scope=SCOPE)
    assert {(r.type, r.of_name) for r in silva.relations} == {("sister", "Alice")}
    assert "Dana Silva got a new job at Google." in {c.text for c in silva.claims}
