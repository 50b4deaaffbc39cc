"""Generic words for people are nobody in particular (helper mining2, session 32).

"People said the food was good." stored a person "People": a capitalised word opening a sentence
before "said" / "told" was taken for a name, and "Folks", "Parents", "Customers", "Users",
"Management", "Staff" and the plural of any role noun ("Teachers", "Neighbours") went the same
way. They are a closed class of English words for people in general (indefinite pronouns,
collective nouns, plural role and relation nouns), never one person. And "Maybe Tomorrow is my
favourite song" read the title's "Maybe" as a hedge.

Look-alikes stay people: a given name ("Dana said …", "Rosa lives in Lisbon"), a name ending in
"s" ("James", "Marcus"). Unchanged on purpose: a name that is also a word ("Will said …", "Rose
lives in Lisbon") is a person only as a speaker or once known — README and the property test of
test_person_recognition say a common word is never a person from one sentence; "Mum said …"
stays the speaker's mother, never a person "Mum" (README, "Who a fact is about").
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie import Memory
from reverie.conversation.extract import Proposal, RuleExtractor
from reverie.model.conversation import Entry

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SCOPE = "user:alice"


def said(line: str, speaker: str = "Alice") -> list[Proposal]:
    entry = Entry(id="m0", scope="s", conversation="c", kind="message", text=line, at=AT, speaker=speaker, role="user")
    [(_, found)] = RuleExtractor().propose([entry]) or [(entry, [])]
    return found


def people_in(ps: list[Proposal]) -> set[str]:
    return {n for p in ps for n in (p.subject, *p.mentions) if n}


@pytest.mark.parametrize(
    "line",
    [
        "People said the food was good.",
        "Folks said the food was good.",
        "Friends told me the film is great.",
        "Parents said the school is fine.",
        "Customers said the app is slow.",
        "Users said the app is slow.",
        "Management said the office closes in May.",
        "Staff said the shop closes early.",
        "Teachers said the school is fine.",
        "Neighbours said the street is loud.",
        "Doctors said the clinic is busy.",
        "Colleagues said the boss quit.",
        "Critics said the film is great.",
        "Kids said the food was good.",
        "Everyone said the food was good.",
        "Nobody said the food was good.",
        "Guys said it was fine.",
        "Locals said the beach is quiet.",
    ],
)
def test_a_generic_word_for_people_opening_a_sentence_is_no_person(line: str) -> None:
    assert people_in(said(line)) == set()


def test_a_song_title_after_maybe_is_neither_a_hedge_nor_a_person() -> None:
    [p] = said("Maybe Tomorrow is my favourite song.")
    assert (p.subject, p.hedged, p.text) == ("Alice", False, "Maybe Tomorrow is Alice's favourite song.")


def test_maybe_before_a_name_or_a_weekday_is_still_a_hedge() -> None:
    [p] = said("Maybe Dana lives in Leeds.")
    assert (p.subject, p.hedged) == ("Dana", True)
    [q] = said("Maybe Monday I'll move to Leeds.")
    assert (q.subject, q.hedged) == ("Alice", True)


@pytest.mark.parametrize(
    ("line", "who"),
    [
        ("Dana said the food was good.", "Dana"),
        ("Rosa lives in Lisbon.", "Rosa"),
        ("Kwame lives in Accra.", "Kwame"),
        ("James said the food was good.", "James"),
        ("Marcus lives in Leeds.", "Marcus"),
        ("Everyone loves Dana.", "Dana"),
    ],
)
def test_a_name_stays_a_person(line: str, who: str) -> None:
    assert who in people_in(said(line))


@pytest.mark.parametrize(
    "line",
    ["Will said the food was good.", "Rose lives in Lisbon.", "May works for me.", "August was hot.", "Will it rain?"],
)
def test_a_given_name_that_is_also_a_word_still_needs_more_than_the_sentence(line: str) -> None:
    """Unchanged on purpose (README: never a common word; the property test in
    test_person_recognition): "Will", "Rose", "May" are people only as a speaker or once known."""
    assert people_in(said(line)) <= {"Alice"}


def test_a_name_that_is_also_a_word_is_a_person_as_a_speaker() -> None:
    [p] = said("I live in Lisbon.", speaker="Rose")
    assert (p.subject, p.text) == ("Rose", "Rose lives in Lisbon.")


def test_mum_said_is_the_speakers_mother_and_no_person_called_mum() -> None:
    [p] = said("Mum said the food was good.")
    assert (p.subject, p.text) == ("Alice", "Alice's mum said the food was good.")


def test_a_closed_conversation_enrolls_no_generic_person(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    for line in ("People said the food was good.", "Customers said the app is slow.", "Dana said the app is slow."):
        conv.add(line, speaker="Alice")
    conv.close()
    names = {p.name for p in mem.people(scope=SCOPE)}
    assert "Dana" in names and names <= {"Alice", "Dana"}
