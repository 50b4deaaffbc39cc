"""Who is one person: a new name joins a known person only if it fits them and clashes with none
of their names; a short name that fits several people is ambiguous.

Regression (outside probe, finding 6): after "Bob" joined Robert Smith, "Robert Jones" fitted
the name "Bob" and was merged into Robert Smith — two people's relations and facts became one's.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.conversation.people.book import Book
from reverie.conversation.people.enroll import Enroller
from reverie.conversation.people.names import clash, tokens
from reverie.errors import InvalidInputError

SCOPE = "u"


def talk(mem: Memory, *texts: str, speaker: str = "Alice") -> None:
    conv = mem.conversation("c", scope=SCOPE)
    for text in texts:
        conv.add(text, speaker=speaker, role="user")
    conv.close()


def names_of(mem: Memory) -> dict[str, set[str]]:
    return {p.name: set(p.aliases) for p in mem.people(scope=SCOPE)}


def test_regression_a_nickname_does_not_pull_another_surname_into_a_person(mem: Memory) -> None:
    talk(
        mem,
        "My colleague Robert Smith moved to Leeds.",
        "Bob loves cycling.",
        "My cousin Robert Jones lives in York.",
    )
    people = names_of(mem)
    assert people["Robert Smith"] == {"Bob"} and people["Robert Jones"] == set()
    jones = mem.person("Robert Jones", scope=SCOPE)
    assert jones.name == "Robert Jones"
    assert {(r.type, r.person_name) for r in jones.relations} == {("cousin", "Robert Jones")}
    assert {c.text for c in jones.claims} == {
        "Robert Jones lives in York.",  # in his own name: his later facts meet it
        "Robert Jones is Alice's cousin.",
    }
    smith = mem.person("Robert Smith", scope=SCOPE)
    assert "York" not in " ".join(c.text for c in smith.claims)


@pytest.mark.parametrize("short", ["Bob", "Robert", "Rob", "bob"])
def test_a_short_name_fitting_two_people_is_ambiguous(mem: Memory, short: str) -> None:
    talk(
        mem,
        "My colleague Robert Smith moved to Leeds.",
        "Bob loves cycling.",
        "My cousin Robert Jones lives in York.",
    )
    with pytest.raises(InvalidInputError, match=r"fits several people.*Robert Jones, Robert Smith"):
        mem.person(short, scope=SCOPE)


def test_a_first_name_person_takes_one_full_name_and_refuses_a_second(mem: Memory) -> None:
    talk(mem, "Felix lives in Berlin.", "Felix Braun works at a bakery.", "Felix Schmidt works at a bank.")
    people = names_of(mem)
    assert people["Felix Braun"] == {"Felix"} and people["Felix Schmidt"] == set()


def test_a_titled_surname_does_not_join_two_given_names(mem: Memory) -> None:
    talk(mem, "Dr. Patel moved to Leeds.", "Anita Patel loves cycling.", "Raj Patel lives in York.")
    people = names_of(mem)
    assert people["Anita Patel"] == {"Dr. Patel"} and people["Raj Patel"] == set()


def test_a_speaker_is_not_guessed_into_a_person_the_talk_was_about(mem: Memory) -> None:
    """A speaker's label names a participant: "Bob" speaking after two Roberts were mentioned is
    a person of their own (not the latest Robert), and keeps their facts."""
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My colleague Robert Smith moved to Leeds.", speaker="Alice", role="user")
    conv.add("My cousin Robert Jones lives in York.", speaker="Alice", role="user")
    conv.add("I work as a nurse.", speaker="Bob", role="user")
    conv.add("I live in Porto.", speaker="Bob", role="user")
    conv.close()
    bob = mem.person("Bob", scope=SCOPE)
    assert bob.name == "Bob" and bob.aliases == ()
    assert {c.text for c in bob.claims} == {"Bob works as a nurse.", "Bob lives in Porto."}
    for robert in ("Robert Smith", "Robert Jones"):
        assert mem.person(robert, scope=SCOPE).aliases == ()


# -- the general case: random sequences of full names, nicknames and first names ---------------

GIVEN = ("Robert", "Bob", "Rob", "Katherine", "Kate", "William", "Bill", "Felix")
SURNAMES = ("Smith", "Jones", "Lee")
PLACES = ("Leeds", "York", "Porto")
mention = st.one_of(
    st.tuples(st.sampled_from(GIVEN), st.sampled_from(SURNAMES)).map(" ".join),  # a full name
    st.sampled_from(GIVEN),  # a first name or nickname
    st.sampled_from(SURNAMES).map(lambda s: f"Dr. {s}"),  # a titled surname
)


def enroll_all(mem: Memory, mentions: list[str], prefer_recent: bool) -> Book:
    enroller = Enroller(mem._core, SCOPE)  # the enroller extraction uses, on the memory's own host
    recent: list[str] = []
    for m in mentions:
        person = enroller.person_of(enroller.ensure(m, conversation=None, prefer=recent if prefer_recent else ()))
        recent = [person, *(p for p in recent if p != person)]
    return Book(mem.store, SCOPE)


def assert_no_clash(book: Book, said: list[str], *, all_enrolled: bool = True) -> None:
    """No person holds two clashing names; a full name said is at most one person's (exactly one,
    who holds it, when every name said was enrolled)."""
    for group in book.groups:
        for a, b in itertools.combinations([n.text for n in group.names], 2):
            assert not clash(a, b), f"{a!r} and {b!r} fused into one person from {said}"
        full = {tokens(n.text) for n in group.names if len(tokens(n.text)) > 1}
        assert len({t[-1] for t in full}) <= 1, f"two surnames in one person: {full} from {said}"
    for m in {m for m in said if len(tokens(m)) > 1 and not m.startswith("Dr.")}:
        holders = [g for g in book.groups if any(tokens(n.text) == tokens(m) for n in g.names)]
        assert len(holders) == (1 if all_enrolled else len(holders[:1])), f"{m!r} is {len(holders)} people"
        assert not holders or book.resolve(m) is holders[0]


def fresh() -> Memory:
    return Memory(":memory:", embedder="hash", clock=ManualClock(), seed=0)


@settings(max_examples=80, deadline=None)
@given(mentions=st.lists(mention, min_size=1, max_size=14), prefer_recent=st.booleans())
def test_enrolling_names_in_any_order_never_fuses_clashing_names(mentions: list[str], prefer_recent: bool) -> None:
    """Whatever order the names come in, with or without a conversation's recency to break ties,
    one person never holds two names that clash (two surnames, two given names no nickname
    joins): two full names that differ are never fused."""
    mem = fresh()
    try:
        assert_no_clash(enroll_all(mem, mentions, prefer_recent), mentions)
    finally:
        mem.close()


@settings(max_examples=12, deadline=None)
@given(mentions=st.lists(st.tuples(mention, st.sampled_from(PLACES)), min_size=1, max_size=8))
def test_a_conversation_naming_people_in_any_order_never_fuses_clashing_names(
    mentions: list[tuple[str, str]],
) -> None:
    """The same through the public path: messages, close, extraction."""
    mem = fresh()
    try:
        talk(mem, *(f"{who} lives in {where}." for who, where in mentions))
        # extraction may not take every word for a name ("Bill"): only what it enrolled is checked
        assert_no_clash(Book(mem.store, SCOPE), [who for who, _ in mentions], all_enrolled=False)
    finally:
        mem.close()
