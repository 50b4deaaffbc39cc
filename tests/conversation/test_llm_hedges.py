"""The LLM extractor's proposals pass the hedge and denial checks the rules apply (helper mining2, session 32).

The model only proposes. It read "Rumour has it Dana moves to Leeds." and proposed the firm fact
"Dana moves to Leeds": hearsay the rules write as a hypothesis (``conversation.hedging``) went in
as an assertion at the model's confidence, and a statement the speaker denied ("It's not true
that …") could be written as if asserted. Each proposal is now read against the clause of its
message it rests on: hearsay or a hedge there makes it a hypothesis at ``HEDGED_CONFIDENCE``;
a denial there drops it with a reason. Against a real chat-completions server on 127.0.0.1.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from chat_server import ChatServer, completion

from reverie import Memory
from reverie.conversation.hedging import HEDGED_CONFIDENCE
from reverie.conversation.llm import LLM_CONFIDENCE, ChatEndpoint, ChatExtractor
from reverie.conversation.proposal import Proposal
from reverie.model.conversation import Entry

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SCOPE = "user:alice"


def proposed(server: ChatServer, message: str, text: str, about: str) -> tuple[list[Proposal], list[str]]:
    """What the extractor keeps of one model proposal for one message by Alice, and its skip reasons."""
    claim = {"message": 1, "text": text, "about": about, "category": "fact"}
    server.reply = lambda body: (200, completion(json.dumps({"claims": [claim]})))
    extractor = ChatExtractor(ChatEndpoint(server.url(), "test-model", timeout=5.0))
    entry = Entry(id="m0", scope="s", conversation="c", kind="message", text=message, at=AT, speaker="Alice",
                  role="user")  # fmt: skip
    found = [p for _, ps in extractor.propose([entry]) for p in ps]
    return found, extractor.skipped


@pytest.mark.parametrize(
    ("message", "text", "about", "written"),
    [
        ("Rumour has it Dana moves to Leeds.", "Dana moves to Leeds", "Dana", "Rumour has it Dana moves to Leeds."),
        ("Rumour has it that Dana moves to Leeds.", "Rumour has it that Dana moves to Leeds", "Dana",
         "Rumour has it that Dana moves to Leeds."),
        ("I heard that Dana lives in Lisbon.", "Dana lives in Lisbon", "Dana",
         "Alice heard that Dana lives in Lisbon."),
        ("I heard that Dana lives in Lisbon.", "Alice heard that Dana lives in Lisbon", "Dana",
         "Alice heard that Dana lives in Lisbon."),
        ("Dana probably lives in Lisbon.", "Dana lives in Lisbon", "Dana", "Dana probably lives in Lisbon."),
        ("Apparently Dana lives in Lisbon.", "Dana lives in Lisbon", "Dana", "Apparently Dana lives in Lisbon."),
        ("Honestly the flat is great. People say Dana lives in Lisbon.", "Dana lives in Lisbon", "Dana",
         "People say Dana lives in Lisbon."),
    ],
)  # fmt: skip
def test_hearsay_or_a_hedge_in_the_message_makes_the_models_proposal_a_hypothesis(
    server: ChatServer, message: str, text: str, about: str, written: str
) -> None:
    [p], _ = proposed(server, message, text, about)
    assert (p.text, p.subject, p.hedged, p.confidence) == (written, about, True, HEDGED_CONFIDENCE)
    assert p.origin == "llm" and p.relation is None


@pytest.mark.parametrize(
    "message",
    [
        "It's not true that Dana lives in Lisbon.",
        "Dana lives in Lisbon, but that's not true.",
        "That Dana lives in Lisbon is a myth.",
    ],
)
def test_a_statement_the_speaker_denies_is_dropped_with_a_reason(server: ChatServer, message: str) -> None:
    found, skipped = proposed(server, message, "Dana lives in Lisbon", "Dana")
    assert found == [] and any("denies" in why for why in skipped)


@pytest.mark.parametrize(
    ("message", "text", "about"),
    [
        ("Dana lives in Lisbon.", "Dana lives in Lisbon", "Dana"),
        ("I heard a noise downstairs last night.", "Alice heard a noise downstairs", "Alice"),
        ("Priya said Omar got promoted.", "Omar got promoted", "Omar"),
        ("Maybe Tomorrow is my favourite song.", "Maybe Tomorrow is Alice's favourite song", "Alice"),
        ("Dana lives in Lisbon, but that's not true, she lives in Porto.", "Dana lives in Porto", "Dana"),
    ],
)
def test_what_the_speaker_states_stays_a_firm_proposal(server: ChatServer, message: str, text: str, about: str) -> None:
    [p], _ = proposed(server, message, text, about)
    assert (p.text, p.hedged, p.confidence) == (text + ".", False, LLM_CONFIDENCE)


def test_a_hedged_model_claim_is_written_as_a_hypothesis(mem: Memory, server: ChatServer) -> None:
    claim = {"message": 1, "text": "Dana is moving to Leeds", "about": "Dana"}
    server.reply = lambda body: (200, completion(json.dumps({"claims": [claim]})))
    conv = mem.conversation("c", scope=SCOPE, extractor=ChatExtractor(ChatEndpoint(server.url(), "m", timeout=5.0)))
    conv.add("Rumour has it Dana moves to Leeds.", speaker="Alice")
    conv.close()
    [item] = [i for i in mem.list(scope=SCOPE, limit=100).items if i.meta.get("extracted") == "llm"]
    got = (item.text, item.kind, item.scores.confidence)
    assert got == ("Rumour has it Dana is moving to Leeds.", "hypothesis", HEDGED_CONFIDENCE)
