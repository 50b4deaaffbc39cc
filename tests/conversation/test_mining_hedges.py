"""Hearsay, hedges and prefixed denials (outside tester, session 32).

"Rumour has it that the office moves to Leeds." and "It's not true that Dana lives in Lisbon."
were stored word for word as claims, as firm as "Dana lives in Lisbon." said outright.

- A hedged or hearsay report ("Rumour has it that …", "I heard that …", "Supposedly …", "People
  say …", "Apparently …", "I think maybe …", "Dana probably …") is no firm claim: it is proposed
  as a hypothesis (``Proposal.hedged``, written as kind ``hypothesis``) with a lower confidence,
  and its words still say that it is hearsay or a guess.
- "It's not true that X" / "It is false that X" / "That X is a myth" deny X, as "X, but that's not
  true" already did: X is not proposed; who it names is still who a "she" after it means.
- Look-alikes stay as they were: "It's true that X" states X; "The rumour mill …", "I heard a
  noise", "Priya said Omar got promoted" (a report from someone named) are not hearsay.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie import Memory
from reverie.conversation.extract import HEDGED_CONFIDENCE, Proposal, RuleExtractor
from reverie.model.conversation import Entry

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SCOPE = "user:alice"


def propose(*turns: tuple[str, str]) -> list[list[Proposal]]:
    entries = [
        Entry(id=f"m{i}", scope="s", conversation="c", kind="message", text=text, at=AT, speaker=who, role="user")
        for i, (who, text) in enumerate(turns)
    ]
    by_id = {e.id: ps for e, ps in RuleExtractor().propose(entries)}
    return [by_id.get(e.id, []) for e in entries]


def said(line: str) -> list[Proposal]:
    [got] = propose(("Alice", line))
    return got


def firm(ps: list[Proposal]) -> list[str]:
    return [p.text for p in ps if not p.hedged]


# --- hearsay and hedges ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ("Rumour has it that Dana lives in Lisbon.", "Rumour has it that Dana lives in Lisbon."),
        ("Rumor has it Dana lives in Lisbon.", "Rumor has it Dana lives in Lisbon."),
        ("Word is Dana lives in Lisbon.", "Word is Dana lives in Lisbon."),
        ("The rumour is that Dana lives in Lisbon.", "The rumour is that Dana lives in Lisbon."),
        ("I heard that Dana lives in Lisbon.", "Alice heard that Dana lives in Lisbon."),
        ("I've heard Dana lives in Lisbon.", "Alice has heard Dana lives in Lisbon."),
        ("Supposedly Dana lives in Lisbon.", "Supposedly Dana lives in Lisbon."),
        ("Supposedly, Dana lives in Lisbon.", "Supposedly, Dana lives in Lisbon."),
        ("Allegedly Dana lives in Lisbon.", "Allegedly Dana lives in Lisbon."),
        ("People say Dana lives in Lisbon.", "People say Dana lives in Lisbon."),
        ("Everyone says that Dana lives in Lisbon.", "Everyone says that Dana lives in Lisbon."),
        ("Someone told me Dana lives in Lisbon.", "Someone told Alice Dana lives in Lisbon."),
        ("Apparently Dana lives in Lisbon.", "Apparently Dana lives in Lisbon."),
        ("Well, apparently Dana lives in Lisbon.", "Apparently Dana lives in Lisbon."),
        ("Probably Dana lives in Lisbon.", "Probably Dana lives in Lisbon."),
        ("I think maybe Dana lives in Lisbon.", "Alice thinks maybe Dana lives in Lisbon."),
        ("I think Dana lives in Lisbon.", "Alice thinks Dana lives in Lisbon."),
        ("Dana supposedly lives in Lisbon.", "Dana supposedly lives in Lisbon."),
        ("Dana probably lives in Lisbon.", "Dana probably lives in Lisbon."),
        ("Dana lives in Lisbon, apparently.", "Dana lives in Lisbon, apparently."),
    ],
)
def test_hearsay_or_a_hedge_is_a_hypothesis_about_the_person_not_a_firm_claim(line: str, claim: str) -> None:
    got = said(line)
    assert [(p.text, p.subject, p.hedged, p.confidence) for p in got] == [(claim, "Dana", True, HEDGED_CONFIDENCE)]
    assert Proposal("x", None, "fact", first_person=False).confidence > HEDGED_CONFIDENCE


def test_rumour_about_no_person_still_yields_nothing() -> None:
    """Like "Acme just announced layoffs": about no one, so nothing — and never a firm claim."""
    assert said("Rumour has it that the office moves to Leeds.") == []


def test_a_hedged_statement_about_the_speaker_is_a_hypothesis_too() -> None:
    got = said("Apparently I'm moving to Leeds.")
    assert [(p.text, p.subject, p.first_person, p.hedged) for p in got] == [
        ("Apparently Alice is moving to Leeds.", "Alice", True, True)
    ]


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ("I probably start at Acme in May.", "Alice probably starts at Acme in May."),
        ("I maybe live in Oslo.", "Alice maybe lives in Oslo."),
        ("I supposedly owe Dana money.", "Alice supposedly owes Dana money."),
        ("I might move to Oslo.", "Alice might move to Oslo."),
    ],
)
def test_a_hedge_between_i_and_its_verb_stays_a_hedge_and_the_verb_agrees(line: str, claim: str) -> None:
    """Helper mining33: "I probably start …" was the firm "Alice probablies start …" — the hedge
    taken for the verb, so neither read as a hedge nor agreed."""
    assert [(p.text, p.hedged, p.confidence) for p in said(line)] == [(claim, True, HEDGED_CONFIDENCE)]


def test_the_speakers_own_relation_said_inside_hearsay_stays_firm() -> None:
    """ "my sister Dana" is what Alice knows; only what she heard about Dana is hearsay."""
    got = said("I heard my sister Dana moved to Lisbon.")
    assert [(p.text, p.hedged, p.relation) for p in got] == [
        ("Dana is Alice's sister.", False, ("Dana", "sister", "Alice")),
        ("Alice heard Dana moved to Lisbon.", True, None),
    ]


def test_someone_elses_relation_said_as_hearsay_is_no_relation() -> None:
    got = said("I heard that Omar is Jess's dad.")
    assert [p.relation for p in got] == [None] and all(p.hedged for p in got), got


@pytest.mark.parametrize(
    ("line", "claims"),
    [
        ("The rumour mill is in Leeds.", []),
        ("Dana runs the rumour mill in Leeds.", ["Dana runs the rumour mill in Leeds."]),
        ("I heard a noise downstairs.", ["Alice heard a noise downstairs."]),
        ("Priya said Omar got promoted.", ["Omar got promoted."]),
        ("Dana lives in Lisbon.", ["Dana lives in Lisbon."]),
        ("Dana likes Lisbon.", ["Dana likes Lisbon."]),
        ("Honestly, Dana lives in Lisbon.", ["Dana lives in Lisbon."]),
    ],
)
def test_look_alikes_of_hearsay_stay_firm(line: str, claims: list[str]) -> None:
    got = said(line)
    assert firm(got) == claims and not [p for p in got if p.hedged]


# --- denials said in front ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "It's not true that Dana lives in Lisbon.",
        "It is not true that Dana lives in Lisbon.",
        "It isn't true that Dana lives in Lisbon.",
        "It is false that Dana lives in Lisbon.",
        "It's a myth that Dana lives in Lisbon.",
        "It's a lie that Dana lives in Lisbon.",
        "Not true that Dana lives in Lisbon.",
        "But it's not true that Dana lives in Lisbon.",
        "That Dana lives in Lisbon is a myth.",
        "That Dana lives in Lisbon is not true.",
        "That Dana lives in Lisbon is false.",
        "Rumour has it that Dana lives in Lisbon, but that's not true.",
    ],
)
def test_a_clause_denied_in_front_is_no_claim(line: str) -> None:
    assert said(line) == []


def test_what_follows_a_denied_clause_is_still_mined_and_its_person_is_the_she() -> None:
    got = said("It's not true that Dana lives in Lisbon; she lives in Porto.")
    assert [(p.text, p.subject, p.hedged) for p in got] == [("Dana lives in Porto.", "Dana", False)]


@pytest.mark.parametrize(
    "line",
    ["It's true that Dana lives in Lisbon.", "It is true that Dana lives in Lisbon.", "True, Dana lives in Lisbon."],
)
def test_it_is_true_that_states_the_claim(line: str) -> None:
    got = said(line)
    assert [(p.text, p.subject, p.hedged) for p in got] == [("Dana lives in Lisbon.", "Dana", False)]


# --- what is written --------------------------------------------------------------------------------


def test_what_a_closed_conversation_writes_for_hearsay_and_denials(mem: Memory) -> None:
    conv = mem.conversation("chat", scope=SCOPE)
    for text in (
        "Rumour has it that the office moves to Leeds.",
        "It's not true that Omar lives in Porto.",
        "I heard that Dana lives in Lisbon.",
        "I live in Braga.",
    ):
        conv.add(text, speaker="Alice", role="user")
    closed = conv.close()
    assert closed.extraction is not None
    claims = [mem.get(i, scope=SCOPE) for i in closed.extraction.claims]
    got = {c.text: (c.kind, c.source, c.scores.confidence) for c in claims}
    assert got == {
        "Alice heard that Dana lives in Lisbon.": ("hypothesis", "observed", HEDGED_CONFIDENCE),
        "Alice lives in Braga.": ("assertion", "user_stated", 0.7),
    }
    mined = [i.text for i in mem.list(scope=SCOPE, limit=100).items if "message" not in i.meta]
    assert not [t for t in mined if "Leeds" in t or "Porto" in t]
