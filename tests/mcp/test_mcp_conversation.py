"""The conversation and people tools through a real in-process MCP client.

Each tool is one ``Memory`` call; every refusal is ``{"code", "error"}`` with ``is_error`` and
leaves the archive as it was; results carry the stored-data marker before any message text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp_support import INJECTION, SCOPE, call, fail

from reverie import Memory
from reverie.mcp import DATA_NOTE, build_server

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def connected(mem: Memory) -> AsyncIterator[Client]:
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
        yield client


async def _talk(client: Client) -> list[dict[str, Any]]:
    said = []
    for text, at in (("My sister Dana lives in Lisbon.", "2024-12-31T23:59:00+00:00"), ("Omar is my manager.", None)):
        args: dict[str, Any] = {"conversation": "c1", "text": text, "speaker": "Alice", "scope": SCOPE}
        if at is not None:
            args["at"] = at
        said.append((await call(client, "conversation_add", **args))["message"])
    return said


async def call_with(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``call`` for a tool whose arguments include ``name`` (``call``'s own first parameter)."""
    return await _raw(client, tool, arguments, ok=True)


async def fail_with(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return await _raw(client, tool, arguments, ok=False)


async def _raw(client: Client, tool: str, arguments: dict[str, Any], *, ok: bool) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    payload: dict[str, Any] = json.loads(result.content[0].text)
    assert bool(result.is_error) is not ok, payload
    return payload


def _messages(mem: Memory) -> list[str]:
    return [e.text for e in mem.conversation("c1", scope=SCOPE, create=False).messages()]


async def test_add_then_history_returns_the_messages_marked_as_data(mem: Memory) -> None:
    async with connected(mem) as client:
        said = await _talk(client)
        out = await call(client, "conversation_history", conversation="c1", scope=SCOPE)
    assert said[0]["turn"] == 1 and said[1]["turn"] == 2 and said[0]["item_id"]
    assert out["note"] == DATA_NOTE and next(iter(out)) == "note"
    assert [e["text"] for e in out["entries"]] == ["My sister Dana lives in Lisbon.", "Omar is my manager."]


async def test_search_returns_the_quote_and_its_span(mem: Memory) -> None:
    async with connected(mem) as client:
        await _talk(client)
        out = await call(client, "conversation_search", query="dana lives", scope=SCOPE)
    [hit] = out["hits"]
    assert hit["quote"] == "Dana lives" and hit["text"][hit["span"][0] : hit["span"][1]] == "Dana lives"
    assert hit["note"] == DATA_NOTE


async def test_recap_and_people_after_close(mem: Memory) -> None:
    async with connected(mem) as client:
        await _talk(client)
        assert (await call(client, "conversation_recap", scope=SCOPE))["recap"] is None
        mem.conversation("c1", scope=SCOPE, create=False).close()
        recap = (await call(client, "conversation_recap", scope=SCOPE))["recap"]
        people = (await call(client, "people", scope=SCOPE))["people"]
        alice = (await call_with(client, "person", {"name": "Alice", "scope": SCOPE}))["person"]
    assert recap["conversation"] == "c1" and recap["messages"] == 2
    assert {"Alice", "Dana", "Omar"} <= {p["name"] for p in people}
    assert ("Dana", "sister", "Alice") in {(r["person_name"], r["type"], r["of_name"]) for r in alice["relations"]}


async def test_regression_people_lists_relations_and_claim_counts_not_empty_claims(mem: Memory) -> None:
    """Outside probe, finding 7: the ``people`` tool said every person had no relation and no claim."""
    async with connected(mem) as client:
        await _talk(client)
        mem.conversation("c1", scope=SCOPE, create=False).close()
        listed = {p["name"]: p for p in (await call(client, "people", scope=SCOPE))["people"]}
        dana = (await call_with(client, "person", {"name": "Dana", "scope": SCOPE}))["person"]
    assert "claims" not in listed["Dana"] and listed["Dana"]["claim_count"] == len(dana["claims"]) > 0
    assert listed["Dana"]["relations"] == dana["relations"] != []


async def test_regression_people_tools_show_a_revised_relation_by_its_current_words(mem: Memory) -> None:
    """Session 31: after ``revise`` of "Dana is Alice's sister." to "… cousin." the tools still said sister."""
    async with connected(mem) as client:
        await _talk(client)
        mem.conversation("c1", scope=SCOPE, create=False).close()
        dana = (await call_with(client, "person", {"name": "Dana", "scope": SCOPE}))["person"]
        [rel] = [r for r in dana["relations"] if r["type"] == "sister"]
        await call(client, "revise", id=rel["claim"], new_text="Dana is Alice's cousin.", scope=SCOPE)
        alice = (await call_with(client, "person", {"name": "Alice", "scope": SCOPE}))["person"]
        listed = {p["name"]: p for p in (await call(client, "people", scope=SCOPE))["people"]}
    assert {(r["person_name"], r["type"]) for r in alice["relations"]} >= {("Dana", "cousin")}
    assert "sister" not in {r["type"] for r in alice["relations"]}
    assert [r["type"] for r in listed["Dana"]["relations"]] == ["cousin"]


async def test_an_unknown_conversation_is_not_found_and_names_the_tool_to_open_one(mem: Memory) -> None:
    async with connected(mem) as client:
        await _talk(client)
        err = await fail(client, "conversation_history", conversation="nope", scope=SCOPE)
        err2 = await fail(client, "conversation_search", query="dana", conversation="nope", scope=SCOPE)
    assert err["code"] == "not_found" and "conversation_add" in err["error"] and "mem." not in err["error"]
    assert err2["code"] == "not_found"
    assert [c.id for c in mem.conversations(scope=SCOPE)] == ["c1"]


async def test_an_unknown_person_is_not_found(mem: Memory) -> None:
    async with connected(mem) as client:
        err = await fail_with(client, "person", {"name": "Zed", "scope": SCOPE})
    assert err["code"] == "not_found" and "people tool" in err["error"]


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"text": "x" * 200_000}, "limit_exceeded"),
        ({"text": "hi", "speaker": "Al\x1bice"}, "invalid_input"),
        ({"text": "late", "at": "2024-01-01T00:00:00+00:00"}, "invalid_input"),
        ({"text": "when?", "at": "yesterday"}, "invalid_input"),
        ({"text": "hi", "role": "boss"}, "invalid_input"),
        ({"text": "hi", "colour": "red"}, "invalid_input"),
    ],
)
async def test_bad_messages_are_refused_and_nothing_is_stored(mem: Memory, fields: dict[str, Any], code: str) -> None:
    async with connected(mem) as client:
        await _talk(client)
        err = await fail(client, "conversation_add", conversation="c1", scope=SCOPE, **fields)
    assert err["code"] == code, err
    assert len(_messages(mem)) == 2


async def test_message_text_comes_back_only_inside_marked_data(mem: Memory) -> None:
    async with connected(mem) as client:
        await call(client, "conversation_add", conversation="c1", text=INJECTION, scope=SCOPE)
        out = await call(client, "conversation_history", conversation="c1", scope=SCOPE)
    assert next(iter(out)) == "note" and out["entries"][0]["text"] == INJECTION


async def test_a_refused_first_message_does_not_open_the_conversation(mem: Memory) -> None:
    """Regression: conversation_add opened the conversation before the message was checked."""
    async with connected(mem) as client:
        await fail(client, "conversation_add", conversation="new", text="hi", speaker="Al\x1bice", scope=SCOPE)
    assert mem.conversations(scope=SCOPE) == []


async def test_tool_call_is_recorded_in_the_conversation_and_shown_in_its_history(mem: Memory) -> None:
    async with connected(mem) as client:
        await _talk(client)
        args = {"conversation": "c1", "name": "reship", "args": {"order": 1182}, "scope": SCOPE}
        out = await call_with(client, "conversation_tool_call", {**args, "status": "error", "detail": "no stock"})
        history = await call(client, "conversation_history", conversation="c1", scope=SCOPE)
    entry = out["entry"]
    assert out["note"] == DATA_NOTE and next(iter(out)) == "note"
    assert (entry["kind"], entry["text"], entry["position"]) == ("tool_call", "reship", 3)
    assert entry["meta"] == {"args": {"order": 1182}, "status": "error", "detail": "no stock"}
    assert [e["kind"] for e in history["entries"]] == ["message", "message", "tool_call"]
    stored = mem.conversation("c1", scope=SCOPE, create=False).entries()[-1]
    assert (stored.id, stored.meta["status"]) == (entry["id"], "error")


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"status": "exploded"}, "invalid_input"),
        ({"args": {"blob": "x" * 9_000}}, "limit_exceeded"),
        ({"name": "re\x1bship"}, "invalid_input"),
        ({"detail": "d" * 2_001}, "limit_exceeded"),
        ({"args": "not an object"}, "invalid_input"),
        ({"output": "the tool's whole answer"}, "invalid_input"),
        ({"conversation": "nope"}, "not_found"),
    ],
)
async def test_a_bad_tool_call_is_refused_with_the_error_shape_and_nothing_is_stored(
    mem: Memory, fields: dict[str, Any], code: str
) -> None:
    async with connected(mem) as client:
        await _talk(client)
        args = {"conversation": "c1", "name": "reship", "scope": SCOPE, **fields}
        err = await fail_with(client, "conversation_tool_call", args)
    assert err["code"] == code and set(err) == {"code", "error"}, err
    assert [e.kind for e in mem.conversation("c1", scope=SCOPE, create=False).entries()] == ["message"] * 2
    assert [c.id for c in mem.conversations(scope=SCOPE)] == ["c1"]


async def test_close_writes_the_recap_mines_claims_and_writes_nothing_twice(mem: Memory) -> None:
    async with connected(mem) as client:
        await _talk(client)
        first = await call(client, "conversation_close", conversation="c1", scope=SCOPE)
        again = await call(client, "conversation_close", conversation="c1", scope=SCOPE)
        recap = (await call(client, "conversation_recap", scope=SCOPE))["recap"]
    assert first["note"] == DATA_NOTE and next(iter(first)) == "note"
    assert first["recap"]["kind"] == "recap" and "2 message(s)" in first["recap"]["text"]
    claims = first["extraction"]["claims"]
    assert claims and all(mem.get(c, scope=SCOPE).meta["conversation"] == "c1" for c in claims)
    assert any("Dana" in mem.get(c, scope=SCOPE).text for c in claims)
    assert again["recap"] is None and again["extraction"]["claims"] == []
    assert again["extraction"]["messages_already_mined"] == first["extraction"]["messages_mined"]
    assert recap["conversation"] == "c1" and recap["messages"] == 2


async def test_close_of_an_unknown_conversation_is_not_found_and_opens_nothing(mem: Memory) -> None:
    async with connected(mem) as client:
        err = await fail(client, "conversation_close", conversation="nope", scope=SCOPE)
        bad = await fail(client, "conversation_close", conversation="c1", scope="no spaces allowed")
    assert err["code"] == "not_found" and "conversation_add" in err["error"]
    assert bad["code"] == "invalid_scope"
    assert mem.conversations(scope=SCOPE) == []


def test_the_tool_call_status_enum_is_the_wings_own_list() -> None:
    from reverie.conversation.checks import TOOL_STATUSES
    from reverie.mcp.catalog import SCHEMAS

    assert tuple(SCHEMAS["conversation_tool_call"]["properties"]["status"]["enum"]) == TOOL_STATUSES


async def test_a_message_dated_far_in_the_future_is_refused_and_the_conversation_goes_on(mem: Memory) -> None:
    """Regression #15: a message at 2099 was accepted and every later message was then "before the
    previous message". Refused (``invalid_input`` naming the time and the limit); the next one appends."""
    async with connected(mem) as client:
        await _talk(client)
        err = await fail(
            client, "conversation_add", conversation="c1", text="hi", at="2099-01-01T00:00:00+00:00", scope=SCOPE
        )
        await call(client, "conversation_add", conversation="c1", text="back in the present", scope=SCOPE)
    assert err["code"] == "invalid_input", err
    assert "2099-01-01T00:00:00+00:00" in err["error"] and "Limits.max_clock_skew_seconds" in err["error"], err
    assert _messages(mem)[-1] == "back in the present" and len(_messages(mem)) == 3


async def test_a_conversation_id_with_a_slash_round_trips(mem: Memory) -> None:
    """Issue #17: ``support/2026-12`` is a valid id on every face."""
    name = "support/2026-12"
    async with connected(mem) as client:
        added = await call(client, "conversation_add", conversation=name, text="Omar is my manager.", scope=SCOPE)
        history = await call(client, "conversation_history", conversation=name, scope=SCOPE)
        closed = await call(client, "conversation_close", conversation=name, scope=SCOPE)
    assert added["message"]["conversation"] == name
    assert [e["id"] for e in history["entries"]] == [added["message"]["id"]]
    assert closed["recap"]["conversation"] == name
