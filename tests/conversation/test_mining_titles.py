"""A title named as a favourite, and a greeting word that is part of one (helper mining33, session 33).

"Perfect Day is my favourite song" wrote nothing; "Jolene is my favourite song" and "Sweet
Caroline is my favourite song" were filed under a person (Jolene, Caroline — the second with its
"my" left as said); "Stand By Me is my favourite film" became "Stand By Alice …"; "Hey Jude is my
favourite song" lost its "Hey" to the filler-word stripper ("Jude is Alice's favourite song.").
A user who says which song is their favourite expects that preference kept, the title word for
word, and no person made of it. "Hey, I moved to Denver" still drops the "Hey"; "Hey Dana I moved
to Denver" greets Dana and is the speaker's fact (it was "Dana Alice moved to Denver.", about Dana).
Real SQLite store, public API: what a closed conversation writes, and whom it enrolls.
"""

from __future__ import annotations

import pytest

from reverie import Memory

SCOPE = "user:alice"


def mined(mem: Memory, line: str, conversation: str = "c") -> list[tuple[str, str, str | None]]:
    """(text, kind, person it is about) of each claim a closed conversation of ``line`` (by Alice) wrote."""
    conv = mem.conversation(conversation, scope=SCOPE)
    conv.add(line, speaker="Alice", role="user")
    closed = conv.close()
    assert closed.extraction is not None
    claims = [mem.get(i, scope=SCOPE) for i in closed.extraction.claims]
    about = {c.id: p.name for p in mem.people(scope=SCOPE) for c in mem.person(p.id, scope=SCOPE).claims}
    return [(c.text, c.kind, about.get(c.id)) for c in claims]


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ("Perfect Day is my favourite song", "Perfect Day is Alice's favourite song."),
        ("The Left Hand of Darkness is my favourite book", "The Left Hand of Darkness is Alice's favourite book."),
        ("My favourite film is Spirited Away", "Alice's favourite film is Spirited Away."),
        ("Hey Jude is my favourite song.", "Hey Jude is Alice's favourite song."),
        ("Jolene is my favourite song.", "Jolene is Alice's favourite song."),
        ("Sweet Caroline is my favourite song.", "Sweet Caroline is Alice's favourite song."),
        ("Stand By Me is my favourite film.", "Stand By Me is Alice's favourite film."),
        ("Oh, Perfect Day is my favourite song.", "Perfect Day is Alice's favourite song."),
        ('"Perfect Day" has always been my favourite song.', '"Perfect Day" has always been Alice\'s favourite song.'),
        ("Perfect Day was my all-time favourite Lou Reed song as a kid.",
         "Perfect Day was Alice's all-time favourite Lou Reed song as a kid."),
    ],
)  # fmt: skip
def test_a_title_named_as_a_favourite_is_the_speakers_preference_and_no_person(
    mem: Memory, line: str, claim: str
) -> None:
    assert mined(mem, line) == [(claim, "trait", "Alice")]
    assert {p.name for p in mem.people(scope=SCOPE)} == {"Alice"}


def test_a_title_named_as_a_named_persons_favourite_is_theirs(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana is visiting.", speaker="Alice", role="user")
    conv.add("Hey Jude is Dana's favourite song.", speaker="Alice", role="user")
    conv.close()
    dana = mem.person("Dana", scope=SCOPE)
    assert "Hey Jude is Dana's favourite song." in [c.text for c in dana.claims]
    assert {p.name for p in mem.people(scope=SCOPE)} == {"Alice", "Dana"}


@pytest.mark.parametrize(
    "line",
    [
        "Hey, I moved to Denver.",
        "Hey I moved to Denver.",
        "Hey Dana, I moved to Denver.",
        "Hey Dana I moved to Denver.",
    ],
)
def test_a_greeting_and_the_one_greeted_are_dropped_before_the_speakers_statement(mem: Memory, line: str) -> None:
    assert mined(mem, line) == [  # the move also says where Alice lives now (``conversation.moves``)
        ("Alice moved to Denver.", "assertion", "Alice"),
        ("Alice lives in Denver.", "assertion", "Alice"),
    ]


@pytest.mark.parametrize(
    ("line", "claim", "about"),
    [
        ("Taylor Swift is my favourite singer.", "Taylor Swift is Alice's favourite singer.", "Taylor Swift"),
        ("Pizza is my favourite food.", "Pizza is Alice's favourite food.", "Alice"),
        ("So Dana moved to Lisbon.", "Dana moved to Lisbon.", "Dana"),
    ],
)
def test_look_alikes_are_mined_as_before(mem: Memory, line: str, claim: str, about: str) -> None:
    [(text, _, who)] = mined(mem, line)
    assert (text, who) == (claim, about)


def test_a_greeting_of_a_name_with_nothing_said_after_it_stays_nothing(mem: Memory) -> None:
    assert mined(mem, "Hey Evan, good to see you.") == []
    assert {p.name for p in mem.people(scope=SCOPE)} <= {"Alice"}
