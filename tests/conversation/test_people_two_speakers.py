"""A bare first name two speakers use in two conversations, tied by relations to different people,
is two persons until something says it is one (a full name, an alias, the same speaker, the same
conversation, the same relation).

Regression (outside probe 6, finding 3): Alice's "My sister Dana lives in Lisbon." and Carl's "My
friend Dana works at Acme." made one Dana, sister of Alice and friend of Carl, and recall answered
"where does Alice's sister work?" with what Carl said about his friend.
"""

from __future__ import annotations

import pytest

from reverie import Memory
from reverie.errors import InvalidInputError

SCOPE = "user:alice"
SISTER = "My sister Dana lives in Lisbon."
FRIEND = "My friend Dana works at Acme."


def say(mem: Memory, conversation: str, speaker: str, *texts: str) -> None:
    conv = mem.conversation(conversation, scope=SCOPE)
    for text in texts:
        conv.add(text, speaker=speaker, role="user")
    conv.close()


def danas(mem: Memory) -> list[tuple[set[tuple[str, str]], set[str]]]:
    """Each person called Dana: their relations (type, of whom) and the texts of their claims."""
    out = []
    for p in mem.people(scope=SCOPE):
        if p.name.split()[0] != "Dana":
            continue
        person = mem.person(p.id, scope=SCOPE)
        out.append(({(r.type, r.of_name) for r in person.relations}, {c.text for c in person.claims}))
    return sorted(out, key=lambda d: sorted(d[0]))


def test_regression_two_speakers_dana_are_two_people(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "carl-chat", "Carl", FRIEND)
    assert danas(mem) == [
        ({("friend", "Carl")}, {"Dana is Carl's friend.", "Dana works at Acme."}),
        ({("sister", "Alice")}, {"Dana is Alice's sister.", "Dana lives in Lisbon."}),
    ]
    ids = sorted(p.id for p in mem.people(scope=SCOPE) if p.name == "Dana")
    with pytest.raises(InvalidInputError, match="fits several people") as refused:
        mem.person("Dana", scope=SCOPE)
    assert all(f"Dana [id {i}]" in refused.value.message for i in ids)  # one name: told apart by id
    hits = mem.recall("where does Alice's sister work?", scope=SCOPE, record_use=False)
    assert hits and "Acme" not in hits[0].item.text
    assert all(not h.why.get("about_person") for h in hits if "Acme" in h.item.text)


def test_an_explicit_alias_joins_them_and_later_mentions_follow(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "carl-chat", "Carl", FRIEND)
    first, second = (p.id for p in mem.people(scope=SCOPE) if p.name == "Dana")
    mem.link(second, first, "alias", scope=SCOPE)
    (relations, claims) = danas(mem)[0]
    assert len(danas(mem)) == 1
    assert relations == {("sister", "Alice"), ("friend", "Carl")}
    assert {"Dana works at Acme.", "Dana lives in Lisbon."} <= claims
    say(mem, "carl-chat-2", "Carl", "My friend Dana moved to Porto.")
    assert len(danas(mem)) == 1 and "Dana moved to Porto." in danas(mem)[0][1]


def test_a_later_mention_tied_the_same_way_finds_the_right_dana(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "carl-chat", "Carl", FRIEND)
    say(mem, "carl-chat-2", "Carl", "My friend Dana moved to Porto.")
    say(mem, "bea-chat", "Bea", "Alice's sister Dana loves jazz.")
    carls, alices = danas(mem)
    assert carls[0] == {("friend", "Carl")} and "Dana moved to Porto." in carls[1]
    assert alices[0] == {("sister", "Alice")} and "Dana loves jazz." in alices[1]
    assert "Dana loves jazz." not in carls[1] and "Dana moved to Porto." not in alices[1]


# -- look-alikes that are one person -------------------------------------------------------------


def test_one_speaker_in_two_conversations_speaks_of_one_dana(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "alice-chat-2", "Alice", FRIEND)
    assert [d[0] for d in danas(mem)] == [{("sister", "Alice"), ("friend", "Alice")}]


def test_two_speakers_in_one_conversation_speak_of_one_dana(mem: Memory) -> None:
    conv = mem.conversation("group", scope=SCOPE)
    conv.add(SISTER, speaker="Alice", role="user")
    conv.add(FRIEND, speaker="Carl", role="user")
    conv.close()
    assert [d[0] for d in danas(mem)] == [{("sister", "Alice"), ("friend", "Carl")}]


def test_the_same_full_name_is_one_person(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", "My sister Dana Silva lives in Lisbon.")
    say(mem, "carl-chat", "Carl", "My friend Dana Silva works at Acme.")
    assert [d[0] for d in danas(mem)] == [{("sister", "Alice"), ("friend", "Carl")}]


def test_the_same_relation_said_by_another_speaker_is_one_person(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "carl-chat", "Carl", "Alice's sister Dana works at Acme.")
    ((relations, claims),) = danas(mem)
    assert relations == {("sister", "Alice")} and "Dana works at Acme." in claims


def test_a_bare_name_with_no_relation_still_joins_the_one_dana(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", SISTER)
    say(mem, "carl-chat", "Carl", "Dana works at Acme.")
    ((relations, claims),) = danas(mem)
    assert relations == {("sister", "Alice")} and "Dana works at Acme." in claims


def test_a_new_relation_of_a_dana_with_none_yet_joins_her(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", "Dana lives in Lisbon.")
    say(mem, "carl-chat", "Carl", FRIEND)
    ((relations, claims),) = danas(mem)
    assert relations == {("friend", "Carl")} and "Dana lives in Lisbon." in claims
