"""How a statement is framed, read before it is mined (outside probe 4, findings 10, 11, 15 and 17).

- A label in front of a statement ("Correction:", "Update:", "Note:", "PS:", "Quick update —") is
  how people mark a correction; the statement after it is mined as if said alone (10). A person's
  name as the label ("Dana: I live in Berlin") says someone else may be the "I": nothing is mined.
- A clause the speaker denies ("…, but that's not true", "which is false", "— not really", a next
  sentence "That's not true.") is not a fact; what follows the denial still is (15).
- First-person irregular past tenses keep their form ("I slept" → "Alice slept", never "slepts"):
  a table of them is checked before a verb is given the third-person -s (17).
- "My sister Dana lives in Lisbon" yields the relation and Dana's own fact in Dana's own words
  ("Dana lives in Lisbon."), so her later facts meet her earlier ones (11).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie.conversation.extract import Proposal, RuleExtractor
from reverie.conversation.people.lexicon import IRREGULAR_PASTS
from reverie.conversation.rewrite import first_person
from reverie.model.conversation import Entry

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def propose(*turns: tuple[str, str]) -> list[list[Proposal]]:
    entries = [
        Entry(id=f"m{i}", scope="s", conversation="c", kind="message", text=text, at=AT, speaker=who, role="user")
        for i, (who, text) in enumerate(turns)
    ]
    by_id = {e.id: ps for e, ps in RuleExtractor().propose(entries)}
    return [by_id.get(e.id, []) for e in entries]


def texts(ps: list[Proposal]) -> list[str]:
    return [p.text for p in ps]


# --- labels (finding 10) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label",
    ["Correction:", "Update:", "Note:", "UPDATE:", "Quick update:", "PS:", "P.S.", "FYI:", "Edit:", "NB:",
     "Side note:", "Small correction:", "For the record:", "To clarify:", "Update -", "Update —", "Note to self:"],
)  # fmt: skip
def test_a_labelled_statement_is_mined_as_if_said_alone(label: str) -> None:
    [got] = propose(("Alice", f"{label} I live in Berlin now."))
    assert [(p.text, p.subject, p.first_person) for p in got] == [("Alice lives in Berlin now.", "Alice", True)]


def test_the_label_is_not_part_of_the_claim_about_someone_else() -> None:
    [got] = propose(("Alice", "Correction: Dana lives in Madrid."))
    assert [(p.text, p.subject) for p in got] == [("Dana lives in Madrid.", "Dana")]


def test_a_labelled_correction_in_a_later_message_and_in_casual_typing() -> None:
    got = propose(("Alice", "I'm allergic to peanuts."), ("Alice", "Correction: I'm allergic to cashews, not peanuts."),
                  ("Alice", "update: i live in berlin now"))  # fmt: skip
    assert texts(got[1]) == ["Alice is allergic to cashews, not peanuts."]
    assert texts(got[2]) == ["Alice lives in berlin now."]


@pytest.mark.parametrize("line", ["Dana: I live in Berlin.", "Bob: I'm allergic to peanuts.", "Mom: I'm home."])
def test_a_person_as_the_label_is_not_the_speaker_so_nothing_is_mined(line: str) -> None:
    """Was "Dana: Alice lives in Berlin." filed under Dana: whose "I" it is cannot be told."""
    assert propose(("Alice", line)) == [[]]


def test_a_colon_inside_a_sentence_is_no_label() -> None:
    [got] = propose(("Alice", "At 10:30 I left the office."))
    assert texts(got) == ["At 10:30 Alice left the office."]


# --- denials (finding 15) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "My friend told me that Kenji lives in Osaka, but that's not true.",
        "Kenji lives in Osaka, which is false.",
        "Kenji lives in Osaka — not really.",
        "Kenji lives in Osaka, but that isn't true.",
        "Kenji lives in Osaka (not true).",
        "People say Kenji lives in Osaka, but that's a lie.",
        "Kenji lives in Osaka, which turned out to be wrong.",
        "Kenji lives in Osaka; that's not the case.",
        "Kenji lives in Osaka. That's not true, though.",
        "Kenji lives in Osaka. Not true!",
        "Omar is my manager, but that's not true anymore.",
    ],
)
def test_a_denied_clause_is_no_fact(line: str) -> None:
    [got] = propose(("Alice", line))
    assert not [p for p in got if "Osaka" in p.text or p.relation is not None], texts(got)


def test_what_follows_the_denial_is_still_mined() -> None:
    [got] = propose(("Alice", "Kenji lives in Osaka, but that's not true, he lives in Kyoto."))
    assert [(p.text, p.subject) for p in got] == [("Kenji lives in Kyoto.", "Kenji")]


def test_a_denial_in_its_own_sentence_takes_back_only_the_sentence_before_it() -> None:
    [got] = propose(("Alice", "I live in Porto. Kenji lives in Osaka. That's not true."))
    assert texts(got) == ["Alice lives in Porto."]


def test_a_denial_in_the_next_message_takes_back_nothing_of_the_one_before() -> None:
    """Across messages "that's not true" may answer anyone (the assistant, another person)."""
    got = propose(("Alice", "I live in Porto."), ("Alice", "That's not true."))
    assert texts(got[0]) == ["Alice lives in Porto."] and got[1] == []


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ("I'm allergic to cashews, not peanuts.", "Alice is allergic to cashews, not peanuts."),
        ("Kenji lives in Osaka, not Kyoto.", "Kenji lives in Osaka, not Kyoto."),
        ("Kenji lives in Osaka, which is true.", "Kenji lives in Osaka, which is true."),
        ("I live in Porto, which is not far from Braga.", "Alice lives in Porto, which is not far from Braga."),
    ],
)
def test_a_not_that_denies_nothing_said_before_keeps_the_claim(line: str, claim: str) -> None:
    [got] = propose(("Alice", line))
    assert texts(got) == [claim]


# --- irregular pasts (finding 17) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "claim"),
    [
        ("I slept badly.", "Alice slept badly."),
        ("I meant to call Dana.", "Alice meant to call Dana."),
        ("I learnt Spanish in Madrid.", "Alice learnt Spanish in Madrid."),
        ("I lent my car to Tom.", "Alice lent Alice's car to Tom."),
        ("I bet 50 euros on the match.", "Alice bet 50 euros on the match."),
        ("I dealt with the landlord.", "Alice dealt with the landlord."),
        ("I dreamt about the sea.", "Alice dreamt about the sea."),
        ("I wept at the end.", "Alice wept at the end."),
        ("I swam in the lake.", "Alice swam in the lake."),
        ("I ate sushi for lunch.", "Alice ate sushi for lunch."),
        ("I did my taxes.", "Alice did Alice's taxes."),
        ("I never slept well there.", "Alice never slept well there."),
    ],
)
def test_an_irregular_past_keeps_its_form(said: str, claim: str) -> None:
    [got] = propose(("Alice", said))
    assert texts(got) == [claim]


@pytest.mark.parametrize(
    ("said", "claim"),
    [("I want a dog.", "Alice wants a dog."), ("I eat meat.", "Alice eats meat."),
     ("I visit Lisbon often.", "Alice visits Lisbon often."), ("I go to the gym.", "Alice goes to the gym."),
     ("I watch films.", "Alice watches films.")],
)  # fmt: skip
def test_a_present_verb_still_takes_the_third_person_s(said: str, claim: str) -> None:
    [got] = propose(("Alice", said))
    assert texts(got) == [claim]


def test_i_bet_before_a_clause_is_a_guess_and_states_nothing() -> None:
    assert propose(("Alice", "I bet he will come."), ("Alice", "I bet that it rains tomorrow.")) == [[], []]


def test_no_past_in_the_table_is_given_an_s() -> None:
    wrong = {v: first_person(f"I {v} it", "Alice") for v in IRREGULAR_PASTS}
    assert {v: t for v, t in wrong.items() if t != f"Alice {v} it"} == {}
    assert {"slept", "meant", "learnt", "lent", "bet", "dealt", "dreamt", "burnt", "spelt", "wept", "crept"} <= set(
        IRREGULAR_PASTS
    )


# --- a relation's person says their own facts (finding 11) ---------------------------------------


@pytest.mark.parametrize(
    ("turns", "fact", "subject"),
    [
        ([("Alice", "My sister Dana lives in Lisbon.")], "Dana lives in Lisbon.", "Dana"),
        ([("Hiro", "Omar's wife Lena grew up in Berlin.")], "Lena grew up in Berlin.", "Lena"),
        ([("Alice", "Dana, my sister, just got engaged.")], "Dana just got engaged.", "Dana"),
        ([("Grace", "Jake is moving to Austin."), ("Grace", "His girlfriend Ana got a job there.")],
         "Ana got a job there.", "Ana"),
        ([("Alice", "My friends Tom and Liam live in Oslo.")], "Tom and Liam live in Oslo.", "Tom"),
        ([("Alice", "My sister Dana thinks my job is boring.")], "Dana thinks Alice's job is boring.", "Dana"),
    ],
)  # fmt: skip
def test_the_relation_is_its_own_claim_and_the_persons_fact_is_in_their_own_name(
    turns: list[tuple[str, str]], fact: str, subject: str
) -> None:
    got = propose(*turns)[-1]
    relations = [p for p in got if p.relation is not None]
    facts = [(p.text, p.subject) for p in got if p.relation is None]
    assert relations and all(p.relation and p.relation[0] in fact for p in relations)
    assert facts[-1] == (fact, subject)


def test_a_person_named_only_through_an_unnamed_relation_keeps_the_words_that_say_who_they_are() -> None:
    """ "my wife's brother Sam": no relation claim says who Sam is, so the fact keeps it."""
    [got] = propose(("Greg", "my wife's brother Sam is staying with us this week"))
    assert [(p.text, p.subject) for p in got] == [("Greg's wife's brother Sam is staying with Greg this week.", "Sam")]
