"""Two people of one name, after extraction told them apart: recall and contradictions (session 33).

Alice's sister Dana and Carl's friend Dana are two persons (``test_people_same_name.py``). Two
defects remained:

- a bare-name question asked in Alice's conversation ("where does Dana work?") ranked Carl's
  "Dana works at Acme." first: the recall did not know which Dana the conversation means;
- "Dana works at Google now." about Alice's sister was flagged as contradicting "Dana works at
  Acme." about Carl's friend: the rules compared the words, not the persons.
"""

from __future__ import annotations

from collections.abc import Callable

from reverie import Memory

SCOPE = "user:alice"
GOOGLE, ACME = "Dana works at Google now.", "Dana works at Acme."


def say(mem: Memory, conversation: str, speaker: str, *texts: str) -> None:
    conv = mem.conversation(conversation, scope=SCOPE)
    for text in texts:
        conv.add(text, speaker=speaker, role="user")
    conv.close()


def two_danas(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", "My sister Dana lives in Lisbon.", "Dana works at Google now.")
    say(mem, "carl-chat", "Carl", "My friend Dana works at Acme.")


def ranked(hits: list) -> list[str]:
    """The claims' texts among ``hits``, best first (the messages quoting them left out)."""
    return [h.item.text for h in hits if h.item.text in (GOOGLE, ACME)]


def conflicting_texts(mem: Memory) -> set[frozenset[str]]:
    return {frozenset((alert.a.text, alert.b.text)) for alert in mem.contradictions(scope=SCOPE)}


# -- 1. recall in a conversation prefers the person the conversation spoke of ----------------------


def test_regression_a_bare_name_question_in_alices_chat_finds_alices_dana_first(mem: Memory) -> None:
    two_danas(mem)
    conv = mem.conversation("alice-chat", scope=SCOPE)
    hits = conv.recall("where does Dana work?", record_use=False)
    assert ranked(hits) == [GOOGLE, ACME]
    assert next(h for h in hits if h.item.text == GOOGLE).why.get("about_person") is True


def test_the_speakers_other_conversation_also_prefers_the_dana_they_spoke_of(mem: Memory) -> None:
    two_danas(mem)
    say(mem, "alice-chat-2", "Alice", "Good morning.")
    carl = mem.conversation("carl-chat-2", scope=SCOPE)
    carl.add("Hello again.", speaker="Carl", role="user")
    assert ranked(carl.recall("where does Dana work?", record_use=False)) == [ACME, GOOGLE]
    alice = mem.conversation("alice-chat-2", scope=SCOPE)
    assert ranked(alice.recall("where does Dana work?", record_use=False)) == [GOOGLE, ACME]


def test_plain_recall_and_a_conversation_that_spoke_of_no_dana_prefer_nobody(mem: Memory) -> None:
    two_danas(mem)
    plain = mem.recall("where does Dana work?", scope=SCOPE, record_use=False)
    assert not any(h.why.get("about_person") for h in plain)
    bea = mem.conversation("bea-chat", scope=SCOPE)
    bea.add("Hi there.", speaker="Bea", role="user")
    assert not any(h.why.get("about_person") for h in bea.recall("where does Dana work?", record_use=False))


# -- 2. claims about two different persons are not checked against each other -------------------


def test_regression_claims_about_two_danas_are_not_a_contradiction(mem: Memory) -> None:
    two_danas(mem)
    flagged = conflicting_texts(mem)
    assert not any(any("Acme" in t for t in pair) and any("Google" in t for t in pair) for pair in flagged), flagged


def test_regression_the_dream_pass_does_not_flag_claims_about_two_danas(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(detect_conflicts=False)  # every claim is left to the dream pass's check
    two_danas(mem)
    mem.dream(scope=SCOPE)
    flagged = conflicting_texts(mem)
    assert not any(any("Acme" in t for t in pair) and any("Google" in t for t in pair) for pair in flagged), flagged


def test_the_dream_pass_still_flags_claims_about_one_dana(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(detect_conflicts=False)
    say(mem, "alice-chat", "Alice", "My sister Dana works at Acme.", "Dana works at Google now.")
    assert not conflicting_texts(mem)
    mem.dream(scope=SCOPE)
    flagged = conflicting_texts(mem)
    assert any(any("Acme" in t for t in pair) and any("Google" in t for t in pair) for pair in flagged), flagged


def test_claims_about_one_dana_are_still_checked(mem: Memory) -> None:
    say(mem, "alice-chat", "Alice", "My sister Dana works at Acme.", "Dana works at Google now.")
    flagged = conflicting_texts(mem)
    assert any(any("Acme" in t for t in pair) and any("Google" in t for t in pair) for pair in flagged), flagged


def test_a_claim_linked_to_nobody_is_still_checked_against_a_persons_claim(mem: Memory) -> None:
    say(mem, "carl-chat", "Carl", "My friend Dana works at Acme.")
    mem.remember("Dana works at Google now.", scope=SCOPE, kind="fact")
    flagged = conflicting_texts(mem)
    assert any(any("Acme" in t for t in pair) and any("Google" in t for t in pair) for pair in flagged), flagged
