"""The rule extractor on its own: whom a sentence is about, and what claim it yields."""

from __future__ import annotations

from datetime import UTC, datetime

from reverie.conversation.extract import Proposal, RuleExtractor, sentences
from reverie.model.conversation import Entry

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def propose(*turns: tuple[str, str] | tuple[str, str, str]) -> list[list[Proposal]]:
    entries = [
        Entry(
            id=f"m{i}",
            scope="s",
            conversation="c",
            kind="message",
            text=t[1],
            at=AT,
            speaker=t[0],
            role=t[2] if len(t) > 2 else "user",
        )
        for i, t in enumerate(turns)
    ]
    by_id = {e.id: ps for e, ps in RuleExtractor().propose(entries)}
    return [by_id.get(e.id, []) for e in entries]


def test_first_person_facts_are_rewritten_to_the_speaker() -> None:
    [[p]] = propose(("Alice", "I live in Porto now."))
    assert (p.text, p.subject, p.first_person, p.category) == ("Alice lives in Porto now.", "Alice", True, "fact")


def test_preferences_plans_and_decisions_are_told_apart() -> None:
    got = propose(("Chen", "I prefer tea over coffee."), ("Chen", "I'm going to buy a purifier on Saturday."),
                  ("Nina", "We decided to go with the blue logo."))  # fmt: skip
    assert [ps[0].category for ps in got] == ["preference", "plan", "decision"]
    assert got[1][0].text == "Chen is going to buy a purifier on Saturday."


def test_my_sister_dana_yields_the_relation_and_a_fact_about_dana() -> None:
    [[rel, fact]] = propose(("Alice", "My sister Dana lives in Lisbon."))
    assert rel.relation == ("Dana", "sister", "Alice") and rel.text == "Dana is Alice's sister."
    assert fact.subject == "Dana" and fact.text == "Dana lives in Lisbon." and not fact.first_person


def test_a_pronoun_points_back_to_the_person_last_mentioned_not_the_speaker() -> None:
    got = propose(("Alice", "My sister Dana lives in Lisbon."), ("Alice", "She works as a nurse."))
    assert [(p.subject, p.text) for p in got[1]] == [("Dana", "Dana works as a nurse.")]


def test_his_girlfriend_is_the_girlfriend_of_the_person_before_not_of_herself() -> None:
    """Regression: the relation's own name became the pronoun's referent ("Ana's girlfriend Ana")."""
    got = propose(("Grace", "Jake is moving to Austin."), ("Grace", "His girlfriend Ana got a job there."))
    assert got[1][0].relation == ("Ana", "girlfriend", "Jake")
    assert got[1][1].text == "Ana got a job there." and got[1][1].subject == "Ana"


def test_quoted_speech_is_about_the_one_quoted() -> None:
    [[p]] = propose(("Clara", 'Tim said "I hate sushi" at dinner.'))
    assert (p.subject, p.text, p.first_person) == ("Tim", "Tim hates sushi.", False)


def test_named_relations_both_ways() -> None:
    got = propose(("Elena", "Dr. Patel is my dentist."), ("Hana", "Yuki's fiance is called Kenji."))
    assert [p.relation for ps in got for p in ps] == [("Dr. Patel", "dentist", "Elena"), ("Kenji", "fiance", "Yuki")]


def test_questions_greetings_and_moods_state_nothing() -> None:
    got = propose(("Omar", "Can you remind me tomorrow?"), ("Omar", "ok thanks"), ("Grace", "I was surprised."),
                  ("Sara", "I'm thinking about it."), ("Hana", "what's a flat white?"))  # fmt: skip
    assert got == [[], [], [], [], []]


def test_greetings_to_someone_and_moods_of_today_state_nothing() -> None:
    """Outside probe 2, finding 18: "Good morning Bob" was a claim (and Bob a person), "I'm so tired
    today" became "Alice is so tired today." The facts said beside them still count."""
    got = propose(("Alice", "Good morning Bob"), ("Alice", "I'm so tired today"), ("Alice", "Thanks, Dana!"),
                  ("Alice", "Hi everyone."), ("Alice", "Good morning Bob. I moved to Porto last week."))  # fmt: skip
    assert got[:4] == [[], [], [], []]
    assert [p.text for p in got[4]] == ["Alice moved to Porto last week."]


def test_assistant_and_system_messages_are_never_mined() -> None:
    got = propose(("Bot", "I live in the cloud.", "assistant"), ("sys", "I am a system prompt.", "system"))
    assert got == [[], []]


def test_need_is_not_a_past_tense() -> None:
    """Regression: "I need" became "Hana need" (``-ed`` taken for a past tense)."""
    [[p]] = propose(("Hana", "I need to buy a dress."))
    assert p.text == "Hana needs to buy a dress."


def test_titles_do_not_end_a_sentence() -> None:
    assert sentences("Dr. Moreau treats her. She is kind.") == ["Dr. Moreau treats her.", "She is kind."]
