"""A model proposal that drops the message's hedge keeps it in its words (helper mining33, session 33).

For "Dana probably lives in Oslo." a model proposed "Dana lives in Oslo": the vetting made it a
hypothesis at ``HEDGED_CONFIDENCE`` but stored the words "Dana lives in Oslo." — a reader of the
text (recall, the vault, a person) took it for a fact. The stored text now carries the hedge: put
back where the message had it ("Dana probably lives in Oslo."), or, where the model reworded
the words around it, opening the claim ("Possibly, Omar is relocating to Oslo."). The words are
read as a hedge by conflict detection too (``reverie.model.hedges``). Against a real
chat-completions server on 127.0.0.1, through the public API, on a real SQLite store.
"""

from __future__ import annotations

import json

import pytest
from chat_server import ChatServer, completion

from reverie import Memory
from reverie.conversation.hedging import HEDGED_CONFIDENCE, hedged
from reverie.conversation.llm import ChatEndpoint, ChatExtractor

SCOPE = "user:alice"


def written(mem: Memory, server: ChatServer, message: str, text: str, about: str) -> set[tuple[str, str, float]]:
    """(text, kind, confidence) of every claim a closed conversation wrote for ``message`` by Alice, the
    model proposing ``text`` about ``about`` (the rules' claims among them: one that reads the same
    as the model's is written once)."""
    claim = {"message": 1, "text": text, "about": about, "category": "fact"}
    server.reply = lambda body: (200, completion(json.dumps({"claims": [claim]})))
    conv = mem.conversation("c", scope=SCOPE, extractor=ChatExtractor(ChatEndpoint(server.url(), "m", timeout=5.0)))
    conv.add(message, speaker="Alice", role="user")
    closed = conv.close()
    assert closed.extraction is not None and server.requests
    claims = [mem.get(i, scope=SCOPE) for i in closed.extraction.claims]
    return {(c.text, c.kind, c.scores.confidence) for c in claims}


@pytest.mark.parametrize(
    ("message", "proposal", "about", "stored"),
    [
        ("Dana probably lives in Oslo.", "Dana lives in Oslo", "Dana", "Dana probably lives in Oslo."),
        ("Dana lives in Oslo, apparently.", "Dana lives in Oslo", "Dana", "Dana lives in Oslo, apparently."),
        ("Omar might move to Oslo.", "Omar will move to Oslo", "Omar", "Omar might move to Oslo."),
        ("Omar might move to Oslo.", "Omar moves to Oslo", "Omar", "Omar might move to Oslo."),
        ("I probably start at Acme in May.", "Alice starts at Acme in May", "Alice",
         "Alice probably starts at Acme in May."),
        ("Dana will likely move to Oslo.", "Dana will move to Oslo", "Dana", "Dana will likely move to Oslo."),
        ("Omar might move to Oslo.", "Omar is relocating to Oslo", "Omar", "Possibly, Omar is relocating to Oslo."),
        ("Dana seems to live in Oslo.", "Dana lives in Oslo", "Dana", "Apparently, Dana lives in Oslo."),
    ],
)  # fmt: skip
def test_a_hedge_the_model_dropped_is_kept_in_the_stored_words(
    mem: Memory, server: ChatServer, message: str, proposal: str, about: str, stored: str
) -> None:
    got = written(mem, server, message, proposal, about)
    assert (stored, "hypothesis", HEDGED_CONFIDENCE) in got
    assert all(hedged(text) and kind == "hypothesis" for text, kind, _ in got), got


def test_a_proposal_that_kept_the_hedge_is_stored_as_proposed(mem: Memory, server: ChatServer) -> None:
    got = written(mem, server, "Dana probably lives in Oslo.", "Dana probably lives in Oslo", "Dana")
    assert got == {("Dana probably lives in Oslo.", "hypothesis", HEDGED_CONFIDENCE)}


def test_an_unhedged_message_keeps_the_models_firm_words(mem: Memory, server: ChatServer) -> None:
    [(text, kind, _)] = written(mem, server, "Dana lives in Oslo.", "Dana lives in Oslo", "Dana")  # one: the same
    assert (text, kind) == ("Dana lives in Oslo.", "assertion")
