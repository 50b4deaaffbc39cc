"""A person named in a message a principal may see is a person to that principal, whatever audience
the message that named them first had (outside probe 4, finding 13).

Before: a person's name item took the audience of the first message it was enrolled from and kept
it. Alice's first mined message was restricted to ``agent:a``, so when Bert later said publicly
"Alice is my coworker", the public claim's ``about`` edge pointed at a name ``agent:b`` may not see:
``agent:b`` recalled the claim, yet ``people()`` had no Alice and ``person("Alice")`` was
``not_found``. Now a mention whose audience the known name does not cover gets a name item of its
own audience, joined to the person as an alias, so each reader sees the person its messages name.
"""

from __future__ import annotations

import json

from reverie import Memory

SCOPE = "user:alice"


def _talk(mem: Memory) -> None:
    conv = mem.conversation("c1", scope=SCOPE)
    conv.add("Hello there.", speaker="Alice", role="user")
    conv.add("My sister Zorvina lives in Oslo.", speaker="Alice", role="user", visibility=["agent:a"])
    conv.add("Alice is my coworker.", speaker="Bert", role="user")
    conv.close()


def test_a_person_first_named_in_a_restricted_message_is_a_person_to_readers_of_a_later_public_one(
    mem: Memory,
) -> None:
    _talk(mem)
    outsider = mem.as_principal("agent:b")
    assert sorted(p.name for p in outsider.people(scope=SCOPE)) == ["Alice", "Bert"]
    alice = outsider.person("Alice", scope=SCOPE)
    assert [c.text for c in alice.claims] == ["Alice is Bert's coworker."]
    # What only the restricted message said stays out of the outsider's view of her.
    assert "zorvina" not in json.dumps([str(p) for p in outsider.people(scope=SCOPE)]).lower()
    assert "zorvina" not in str(alice).lower()


def test_the_owner_and_the_restricted_audience_still_see_one_alice(mem: Memory) -> None:
    _talk(mem)
    for reader in (mem, mem.as_principal("agent:a")):
        people = reader.people(scope=SCOPE)
        assert [p.name for p in people].count("Alice") == 1
        alice = reader.person("Alice", scope=SCOPE)
        assert alice.aliases == ()
        texts = {c.text for c in alice.claims}
        assert "Alice is Bert's coworker." in texts
        assert any("Zorvina" in t for t in texts)
