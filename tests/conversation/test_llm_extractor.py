"""The optional LLM extractor against a real local chat-completions server: it proposes, the rules decide."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer, completion

from reverie import Memory
from reverie.conversation.llm import ChatEndpoint, ChatExtractor, ChatSummariser
from reverie.errors import InvalidInputError

SCOPE = "user:alice"


def claims_reply(*claims: dict[str, Any]) -> Any:
    return lambda body: (200, completion(json.dumps({"claims": list(claims)})))


def close_with(mem: Memory, server: ChatServer, *, timeout: float = 5.0) -> Any:
    extractor = ChatExtractor(ChatEndpoint(server.url(), "test-model", timeout=timeout))
    conv = mem.conversation("c", scope=SCOPE, extractor=extractor)
    conv.add("Honestly the Porto flat has a great view of the river and costs 900 euros.", speaker="Alice")
    conv.add("Nice.", speaker="Bot", role="assistant")
    conv.add("ok", speaker="Alice")
    return conv.close().extraction


def llm_claims(mem: Memory) -> list[str]:
    return [i.text for i in mem.list(scope=SCOPE, limit=100).items if i.meta.get("extracted") == "llm"]


def test_a_grounded_proposal_is_written_with_its_provenance(mem: Memory, server: ChatServer) -> None:
    server.reply = claims_reply({"message": 1, "text": "Alice's Porto flat costs 900 euros", "about": "Alice"})
    report = close_with(mem, server)
    assert llm_claims(mem) == ["Alice's Porto flat costs 900 euros."]
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions" and request["body"]["model"] == "test-model"
    assert "Nice." not in request["body"]["messages"][1]["content"]  # only people's messages are sent
    assert report.skipped == []


def test_the_rules_drop_what_the_message_does_not_say(mem: Memory, server: ChatServer) -> None:
    server.reply = claims_reply(
        {"message": 1, "text": "Alice owns three yachts in Monaco", "about": "Alice"},
        "not an object",
        {"message": 1, "text": "Bob's flat costs 900 euros", "about": "Bob"},
        {"message": 9, "text": "Porto flat costs 900 euros", "about": "Alice"},
        {"message": 1, "text": "Does the flat cost 900 euros?", "about": "Alice"},
    )
    report = close_with(mem, server)
    assert llm_claims(mem) == []
    reasons = " | ".join(s.reason for s in report.skipped)
    for why in ("does not", "someone the message does not name", "cites no message", "question", "not a JSON object"):
        assert why in reasons


def test_a_runaway_reply_is_cut_with_a_reason(mem: Memory, server: ChatServer) -> None:
    server.reply = claims_reply(*[{"message": 1, "text": f"Alice {i}", "about": "Alice"} for i in range(50)])
    report = close_with(mem, server)
    assert any("proposed 50 claims for 2 message(s); kept the first 8" in s.reason for s in report.skipped)


@pytest.mark.parametrize(
    "reply",
    [
        (200, completion("Sure! Here are the facts: Alice likes rivers.")),
        (200, b"<html>not json</html>"),
        (200, completion('{"facts": []}')),
        (500, b'{"error": "overloaded"}'),
        (302, b""),
    ],
)
def test_garbage_from_the_endpoint_is_skipped_with_a_reason(
    mem: Memory, server: ChatServer, reply: tuple[int, bytes]
) -> None:
    server.reply = lambda body: reply
    report = close_with(mem, server)
    assert report.stopped is None and [s.reason[:5] for s in report.skipped] == ["llm: "]
    assert llm_claims(mem) == []


def test_a_timeout_is_skipped_and_the_rule_claims_are_still_written(mem: Memory, server: ChatServer) -> None:
    server.delay = 1.0
    extractor = ChatExtractor(ChatEndpoint(server.url(), "m", timeout=0.2))
    conv = mem.conversation("c", scope=SCOPE, extractor=extractor)
    conv.add("I live in Porto.", speaker="Alice")
    report = conv.close().extraction
    assert any("timed out" in s.reason for s in report.skipped)
    assert [mem.get(c, scope=SCOPE).text for c in report.claims] == ["Alice lives in Porto."]


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/v1",
        "http://10.0.0.5:8000/v1",
        "http://example.com/v1",
        "ftp://127.0.0.1/v1",
        "http://user:pw@127.0.0.1/v1",
        "http://127.0.0.1/v1\nHost: evil",
    ],
)
def test_an_endpoint_url_is_checked_like_the_embedding_endpoint(url: str) -> None:
    with pytest.raises(InvalidInputError):
        ChatEndpoint(url, "m")


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        ChatEndpoint("http://127.0.0.1:1/v1", "")
    with pytest.raises(InvalidInputError):
        ChatEndpoint("http://127.0.0.1:1/v1", "m", timeout=0)
    with pytest.raises(InvalidInputError):
        ChatExtractor("http://127.0.0.1:1/v1")  # type: ignore[arg-type]


def test_the_key_is_sent_as_a_bearer_header_and_never_shown(server: ChatServer) -> None:
    endpoint = ChatEndpoint(server.url("/v1/chat/completions"), "m", api_key="sk-secret")
    assert "sk-secret" not in repr(endpoint)
    seen: list[Any] = []
    server.reply = lambda body: (seen.append(body) or 200, completion('{"claims": []}'))  # type: ignore[func-returns-value]
    endpoint.complete([{"role": "user", "content": "hi"}])
    assert seen and seen[0]["temperature"] == 0


def summarised(mem: Memory, server: ChatServer) -> Any:
    conv = mem.conversation("s", scope=SCOPE, summariser=ChatSummariser(ChatEndpoint(server.url(), "m", timeout=2)))
    conv.add("I am planning a trip to Lisbon in May.", speaker="Alice")
    conv.add("Book the tram tour in Lisbon.", speaker="Bot", role="assistant")
    conv.tool_call("search", args={"q": "trams"}, detail="RESULT: 40 trams listed")
    return conv.close().recap


def test_a_grounded_model_summary_becomes_the_recap(mem: Memory, server: ChatServer) -> None:
    server.reply = lambda body: (
        200,
        completion("Alice is planning a Lisbon trip in May; the tram tour was suggested."),
    )
    recap = summarised(mem, server)
    assert "Alice is planning a Lisbon trip in May" in recap.text and recap.meta["summariser"] == "llm"
    sent = server.requests[0]["body"]["messages"][1]["content"]
    assert "tool search (ok)" in sent and "40 trams" not in sent  # that a tool ran, never what it returned


@pytest.mark.parametrize(
    "reply",
    [
        (200, completion("Alice robbed a bank in Madrid and fled to Peru with accomplices.")),
        (200, b"garbage"),
        (503, b"busy"),
    ],
)
def test_an_invented_or_failed_summary_falls_back_to_the_extractive_one(
    mem: Memory, server: ChatServer, reply: tuple[int, bytes]
) -> None:
    server.reply = lambda body: reply
    recap = summarised(mem, server)
    assert recap.meta["summariser"] == "extractive" and recap.meta["fallback"]
    assert "planning a trip to Lisbon" in recap.text and "Peru" not in recap.text


def test_a_message_without_a_speaker_is_the_conversations_own_user_for_the_model_too(
    mem: Memory, server: ChatServer
) -> None:
    # outside probe 4, finding 9: "the user" of every conversation was one person of the scope
    server.reply = claims_reply({"message": 1, "text": "The user of ticket-1 lives in Porto", "about": "the user"})
    extractor = ChatExtractor(ChatEndpoint(server.url(), "test-model", timeout=5.0))
    conv = mem.conversation("ticket-1", scope=SCOPE, extractor=extractor)
    conv.add("I live in Porto near the river.")
    report = conv.close().extraction
    assert "the user of ticket-1: I live in Porto" in server.requests[0]["body"]["messages"][1]["content"]
    [written] = [
        mem.get(i, scope=SCOPE) for i in report.claims if mem.get(i, scope=SCOPE).meta.get("extracted") == "llm"
    ]
    assert written is not None and written.text == "The user of ticket-1 lives in Porto."
    assert written.source == "user_stated"  # the speaker said it of themselves
    assert mem.people(scope=SCOPE) == []  # no person record for an anonymous speaker
