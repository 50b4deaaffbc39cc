"""The MCP face through a real client session, in process.

``mode="legacy"`` runs the SDK's in-memory transport: JSON-RPC over memory streams with the
initialize handshake, exactly what a stdio client speaks. ``mode="auto"`` takes the SDK's
2026-era in-process path (direct dispatch, no framing). Both must behave the same.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp_support import INJECTION, MISSING_ID, SCOPE, assert_only_in_data, call, descriptions, fail, snapshot

from reverie import Limits, ManualClock, Memory
from reverie.mcp import DATA_NOTE, DESCRIPTIONS, TOOL_NAMES, build_server, tools
from reverie.mcp.catalog import INSTRUCTIONS

pytestmark = pytest.mark.anyio

EXPECTED_TOOLS = {
    "remember",
    "recall",
    "get",
    "history",
    "list",
    "context",
    "revise",
    "forget",
    "dismiss",
    "link",
    "contradictions",
    "resolve",
    "dismiss_contradiction",
    "alerts",
    "dismiss_alert",
    "dream",
    "summary",
    "pause_learning",
    "resume_learning",
    "slice_export",
    "slice_import",
    # intents and tasks (reverie.mcp.agenda_catalog)
    "intent_create",
    "intent_move",
    "intent_list",
    "intent_get",
    "intent_suggest",
    "task_create",
    "task_move",
    "task_list",
    "task_get",
    # conversations and people (reverie.mcp.conversation_catalog)
    "conversation_add",
    "conversation_set_visibility",
    "conversation_tool_call",
    "conversation_close",
    "conversation_history",
    "conversation_search",
    "conversation_recap",
    "people",
    "person",
}


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


@asynccontextmanager
async def connected(mem: Memory, mode: str) -> AsyncIterator[Client]:
    async with Client(build_server(mem), mode=mode, raise_exceptions=True) as client:
        yield client


async def remember(client: Client, text: str, **fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = (await call(client, "remember", text=text, scope=SCOPE, **fields))["item"]
    return item


# -- the catalog -------------------------------------------------------------------------------
async def test_list_tools_returns_exactly_the_catalogued_tools_with_input_schemas(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == list(TOOL_NAMES)
    assert {t.name for t in listed} == EXPECTED_TOOLS
    for tool in listed:
        schema = tool.input_schema
        assert schema["type"] == "object", tool.name
        assert "scope" in schema["required"], tool.name
        assert schema["additionalProperties"] is False, tool.name
        assert set(schema["required"]) <= set(schema["properties"]), tool.name


async def test_tool_descriptions_match_the_committed_snapshot(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        listed = (await client.list_tools()).tools
    assert descriptions(listed) == snapshot()
    assert dict(DESCRIPTIONS) == snapshot()


def test_tools_hands_out_copies_so_the_catalog_cannot_be_mutated() -> None:
    first = tools()
    first[0].input_schema["properties"].clear()
    assert tools()[0].input_schema["properties"], "a caller's edit leaked into the static catalog"


# -- round trip --------------------------------------------------------------------------------
async def test_remember_then_recall_returns_the_item_with_provenance_and_the_data_marker(
    mem: Memory, mode: str
) -> None:
    async with connected(mem, mode) as client:
        item = await remember(
            client,
            "Alice is allergic to peanuts",
            kind="assertion",
            source="user_stated",
            provenance={"origin": "conversation", "ref": "chat-42", "locator": "turn-3"},
            importance=0.9,
        )
        result = await call(client, "recall", query="what is alice allergic to", scope=SCOPE)
    assert item["note"] == DATA_NOTE
    assert result["count"] == 1
    hit = result["hits"][0]
    assert hit["note"] == DATA_NOTE
    assert hit["id"] == item["id"]
    assert hit["text"] == "Alice is allergic to peanuts"
    assert (hit["kind"], hit["source"]) == ("assertion", "user_stated")
    assert hit["scores"]["importance"] == 0.9
    assert hit["recorded_at"] == item["recorded_at"]
    assert hit["provenance"]["ref"] == "chat-42"
    assert hit["provenance"]["event_id"]
    assert isinstance(hit["why"], dict) and hit["why"]
    assert hit["score"] > 0


async def test_recall_reads_only_its_own_scope(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        await remember(client, "Alice is allergic to peanuts")
        result = await call(client, "recall", query="peanuts", scope="user:bob")
    assert result == {"count": 0, "hits": []}


async def test_recall_filters_by_kind_and_tag(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        await remember(client, "Alice likes green tea", kind="trait", tags=["drinks"])
        await remember(client, "Alice drank green tea on Monday", kind="episodic")
        traits = await call(client, "recall", query="green tea", scope=SCOPE, kinds=["trait"])
        tagged = await call(client, "recall", query="green tea", scope=SCOPE, tags=["drinks"])
    assert [h["kind"] for h in traits["hits"]] == ["trait"]
    assert [h["text"] for h in tagged["hits"]] == ["Alice likes green tea"]


async def test_recall_accepts_a_json_filter_in_the_query_algebra(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        await remember(client, "Alice likes green tea", kind="trait", importance=0.9, meta={"turn": 3})
        await remember(client, "Alice drank green tea on Monday", kind="episodic", importance=0.9)
        await remember(client, "Alice once tried green tea ice cream", kind="trait", importance=0.2)
        important_traits = await call(
            client,
            "recall",
            query="green tea",
            scope=SCOPE,
            where={"kind": "trait", "score": {"name": "importance", "ge": 0.8}},
        )
        not_traits = await call(client, "recall", query="green tea", scope=SCOPE, where={"not": {"kind": "trait"}})
        by_meta = await call(
            client, "recall", query="green tea", scope=SCOPE, where={"meta": {"path": "turn", "value": 3}}
        )
        either = await call(
            client, "recall", query="green tea", scope=SCOPE, where={"or": [{"kind": "episodic"}, {"tag": "none"}]}
        )
    assert [h["text"] for h in important_traits["hits"]] == ["Alice likes green tea"]
    assert [h["text"] for h in not_traits["hits"]] == ["Alice drank green tea on Monday"]
    assert [h["text"] for h in by_meta["hits"]] == ["Alice likes green tea"]
    assert [h["text"] for h in either["hits"]] == ["Alice drank green tea on Monday"]


async def test_get_reads_one_item_with_provenance_and_as_of(mem: Memory, mode: str, clock: ManualClock) -> None:
    async with connected(mem, mode) as client:
        parent = await remember(client, "Alice said she avoids nuts")
        item = await remember(
            client,
            "Alice is allergic to peanuts",
            parents=[parent["id"]],
            provenance={"origin": "conversation", "ref": "chat-7", "locator": "turn-2"},
        )
        got = (await call(client, "get", id=item["id"], scope=SCOPE))["item"]
        clock.advance(days=1)
        await call(client, "forget", id=item["id"], scope=SCOPE, reason="outdated")
        then = (await call(client, "get", id=item["id"], scope=SCOPE, as_of=item["recorded_at"]))["item"]
        now = (await call(client, "get", id=item["id"], scope=SCOPE))["item"]
        before = await fail(client, "get", id=item["id"], scope=SCOPE, as_of="2000-01-01T00:00:00Z")
        other_scope = await fail(client, "get", id=item["id"], scope="user:bob")
    assert got["note"] == DATA_NOTE and got["text"] == "Alice is allergic to peanuts"
    assert got["parents"] == [parent["id"]]
    assert (got["provenance"]["ref"], got["provenance"]["locator"]) == ("chat-7", "turn-2")
    assert got["provenance"]["event_id"]
    assert (then["status"], now["status"]) == ("live", "forgotten")
    assert before["code"] == other_scope["code"] == "not_found"


async def test_history_returns_every_version_and_its_events_marked_as_data(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        old = await remember(client, "Alice lives in Paris")
        new = (await call(client, "revise", id=old["id"], new_text="Alice lives in Lyon", scope=SCOPE, reason="moved"))[
            "item"
        ]
        from_old = await call(client, "history", id=old["id"], scope=SCOPE)
        from_new = await call(client, "history", id=new["id"], scope=SCOPE)
        missing = await fail(client, "history", id=MISSING_ID, scope=SCOPE)
    assert from_old == from_new
    assert from_new["count"] == 2
    assert [v["text"] for v in from_new["versions"]] == ["Alice lives in Paris", "Alice lives in Lyon"]
    assert all(v["note"] == DATA_NOTE for v in from_new["versions"])
    assert all(e["note"] == DATA_NOTE for e in from_new["events"])
    assert "memory.revised" in [e["type"] for e in from_new["events"]]
    assert "moved" in [e["payload"].get("reason") for e in from_new["events"]]
    assert missing["code"] == "not_found"


async def test_list_filters_sorts_and_pages_with_a_cursor(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        for i in range(5):
            await remember(client, f"fact number {i}", kind="assertion", importance=i / 10)
        await remember(client, "an observation")
        closed = await remember(client, "a closed assertion", kind="assertion")
        await call(client, "forget", id=closed["id"], scope=SCOPE)
        first = await call(client, "list", scope=SCOPE, where={"kind": "assertion"}, sort=["-importance"], limit=3)
        rest = await call(client, "list", scope=SCOPE, where={"kind": "assertion"}, sort=["-importance"], limit=3,
                          cursor=first["next_cursor"])  # fmt: skip
        with_closed = await call(client, "list", scope=SCOPE, where={"kind": "assertion"}, include_closed=True)
        everything = await call(client, "list", scope=SCOPE)
        other = await call(client, "list", scope="user:bob")
    assert [i["text"] for i in first["items"]] == ["fact number 4", "fact number 3", "fact number 2"]
    assert first["count"] == 3 and first["next_cursor"]
    assert [i["text"] for i in rest["items"]] == ["fact number 1", "fact number 0"]
    assert rest["next_cursor"] is None
    assert all(i["note"] == DATA_NOTE for i in first["items"])
    assert with_closed["count"] == 6
    assert everything["count"] == 6
    assert other == {"count": 0, "items": [], "next_cursor": None}


async def test_list_cursor_survives_forgets_and_is_refused_for_another_listing(mem: Memory, mode: str) -> None:
    """Probe 5 #4: an offset cursor hid one unseen item per item forgotten between pages."""
    async with connected(mem, mode) as client:
        ids = {(await remember(client, f"todo number {n}"))["id"] for n in range(5)}
        seen: list[str] = []
        page = await call(client, "list", scope=SCOPE, limit=2)
        while True:
            for item in page["items"]:
                seen.append(item["id"])
                await call(client, "forget", id=item["id"], scope=SCOPE)
            if page["next_cursor"] is None:
                break
            page = await call(client, "list", scope=SCOPE, limit=2, cursor=page["next_cursor"])
        await remember(client, "one more")
        await remember(client, "and another")
        cursor = (await call(client, "list", scope=SCOPE, limit=1))["next_cursor"]
        bad = await fail(client, "list", scope=SCOPE, limit=1, sort=["-importance"], cursor=cursor)
    assert sorted(seen) == sorted(ids)
    assert bad["code"] == "invalid_input" and "another listing" in bad["error"]


async def test_context_packs_memories_into_a_marked_block(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        await remember(client, "Alice is allergic to peanuts")
        result = await call(client, "context", query="peanuts", scope=SCOPE, budget_tokens=200)
    assert result["note"] == DATA_NOTE
    assert "Alice is allergic to peanuts" in result["context"]
    assert DATA_NOTE in result["context"]


# -- the rest of the verbs ---------------------------------------------------------------------
async def test_revise_forget_and_dismiss_change_what_recall_returns(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        old = await remember(client, "Alice lives in Paris", key="alice.city", value="Paris")
        new = (await call(client, "revise", id=old["id"], new_text="Alice lives in Lyon", scope=SCOPE, reason="moved"))[
            "item"
        ]
        stale = await fail(client, "revise", id=new["id"], new_text="x", scope=SCOPE, expected_version=99)
        recalled = await call(client, "recall", query="where does alice live", scope=SCOPE)
        forgotten = (await call(client, "forget", id=new["id"], scope=SCOPE))["item"]
        after_forget = await call(client, "recall", query="where does alice live", scope=SCOPE)
        wrong = await remember(client, "Alice is vegan")
        await call(client, "dismiss", id=wrong["id"], scope=SCOPE, reason="she is not")
        again = await fail(client, "remember", text="Alice is vegan", scope=SCOPE)
    assert new["text"] == "Alice lives in Lyon" and new["id"] != old["id"]
    assert stale["code"] == "version_conflict"
    assert [h["text"] for h in recalled["hits"]] == ["Alice lives in Lyon"]
    assert forgotten["closed_at"] is not None and forgotten["status"] == "forgotten"
    assert after_forget["count"] == 0
    assert again["code"] == "dismissed_value"


async def test_forget_with_purge_leaves_only_the_id_and_times(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        item = await remember(client, "the vault code is zq-mcp-canary-4410", tags=["secret"])
        bad = await fail(client, "forget", id=item["id"], scope=SCOPE, purge="yes")
        purged = (await call(client, "forget", id=item["id"], scope=SCOPE, purge=True, reason="leaked"))["item"]
        got = (await call(client, "get", id=item["id"], scope=SCOPE))["item"]
        history = await call(client, "history", id=item["id"], scope=SCOPE)
    assert bad["code"] == "invalid_input"
    assert purged["text"] == got["text"] == "[purged]" and got["tags"] == []
    assert "zq-mcp-canary-4410" not in json.dumps(history)


async def test_link_contradictions_and_resolve_settle_a_conflict(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        a = await remember(client, "The meeting is on Monday", source="user_stated")
        b = await remember(client, "The meeting is on Tuesday", source="inferred")
        edge = (await call(client, "link", src=a["id"], dst=b["id"], type="contradicts", scope=SCOPE))["edge"]
        listed = await call(client, "contradictions", scope=SCOPE)
        kept = (await call(client, "resolve", conflict=edge["id"], keep=a["id"], scope=SCOPE, reason="user said"))[
            "item"
        ]
        settled = await call(client, "contradictions", scope=SCOPE)
        recalled = await call(client, "recall", query="when is the meeting", scope=SCOPE)
    assert edge["note"] == DATA_NOTE and edge["type"] == "contradicts"
    assert listed["count"] == 1
    alert = listed["contradictions"][0]
    assert alert["note"] == DATA_NOTE and alert["edge_id"] == edge["id"]
    assert {alert["a"]["id"], alert["b"]["id"]} == {a["id"], b["id"]}
    assert kept["id"] == a["id"]
    assert settled == {"count": 0, "contradictions": []}
    assert [h["id"] for h in recalled["hits"]] == [a["id"]]


async def test_pause_learning_refuses_remember_until_resumed(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        paused = await call(client, "pause_learning", scope=SCOPE, reason="user asked")
        refused = await fail(client, "remember", text="Alice likes jazz", scope=SCOPE)
        summary_paused = await call(client, "summary", scope=SCOPE)
        resumed = await call(client, "resume_learning", scope=SCOPE)
        await remember(client, "Alice likes jazz")
        summary = await call(client, "summary", scope=SCOPE)
    assert paused == {"scope": SCOPE, "learning_paused": True}
    assert refused["code"] == "learning_paused"
    assert summary_paused["learning_paused"] is True
    assert resumed == {"scope": SCOPE, "learning_paused": False}
    assert (summary["current"], summary["learning_paused"], summary["note"]) == (1, False, DATA_NOTE)


async def test_dream_is_not_available_when_memory_has_no_dream_pass(
    mem: Memory, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(Memory, "dream", raising=False)
    async with connected(mem, mode) as client:
        error = await fail(client, "dream", scope=SCOPE)
    assert error["code"] == "not_available"


async def test_dream_is_looked_up_when_called_so_a_later_dream_pass_is_served(
    mem: Memory, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def dream(self: Memory, *, scope: str) -> dict[str, Any]:
        return {"scope": scope, "merged": 2}

    async with connected(mem, mode) as client:
        monkeypatch.setattr(Memory, "dream", dream, raising=False)
        report = await call(client, "dream", scope=SCOPE)
    assert report == {"note": DATA_NOTE, "dream": {"scope": SCOPE, "merged": 2}}


async def test_dream_dry_run_plans_without_applying(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        await remember(client, "Alice drinks green tea every morning")
        planned = await call(client, "dream", scope=SCOPE, dry_run=True)
        events_before = len(mem.events(scope=SCOPE))
        applied = await call(client, "dream", scope=SCOPE)
    assert planned["note"] == DATA_NOTE
    assert planned["dream"]["dry_run"] is True and applied["dream"]["dry_run"] is False
    assert planned["dream"]["scope"] == SCOPE
    assert events_before == 1, "a dry run wrote events"


# -- refusals ----------------------------------------------------------------------------------
BAD_INPUT = [
    pytest.param("recall", {"query": "x", "scope": "bad scope!"}, "invalid_scope", id="malformed-scope"),
    pytest.param("recall", {"query": "x"}, "invalid_scope", id="missing-scope"),
    pytest.param("summary", {"scope": 7}, "invalid_scope", id="scope-not-a-string"),
    pytest.param("remember", {"text": "x", "scope": SCOPE, "authority": 2.0}, "invalid_input", id="score-2.0"),
    pytest.param("remember", {"text": "x", "scope": SCOPE, "source": "manual"}, "invalid_input", id="forged-source"),
    pytest.param("remember", {"scope": SCOPE}, "invalid_input", id="missing-text"),
    pytest.param("remember", {"text": "x", "scope": SCOPE, "colour": "red"}, "invalid_input", id="unknown-argument"),
    pytest.param("recall", {"query": "x", "scope": SCOPE, "k": "ten"}, "invalid_input", id="k-not-an-integer"),
    pytest.param("recall", {"query": "x", "scope": SCOPE, "k": True}, "invalid_input", id="k-boolean"),
    pytest.param("recall", {"query": "x", "scope": SCOPE, "as_of": "last week"}, "invalid_input", id="bad-time"),
    pytest.param("recall", {"query": "x", "scope": SCOPE, "as_of": "2025-01-01T00:00"}, "invalid_input", id="naive"),
    pytest.param("forget", {"id": MISSING_ID, "scope": SCOPE}, "not_found", id="unknown-id"),
    pytest.param("forget", {"id": "not-an-id", "scope": SCOPE}, "invalid_input", id="malformed-id"),
    pytest.param("link", {"src": MISSING_ID, "dst": MISSING_ID, "type": "likes", "scope": SCOPE}, "invalid_input"),
    pytest.param("resolve", {"conflict": MISSING_ID, "keep": MISSING_ID, "scope": SCOPE}, "not_found"),
    pytest.param("no_such_tool", {"scope": SCOPE}, "unknown_tool", id="unknown-tool"),
    pytest.param("get", {"id": MISSING_ID, "scope": SCOPE}, "not_found", id="get-unknown-id"),
    pytest.param("get", {"id": MISSING_ID, "scope": SCOPE, "as_of": "yesterday"}, "invalid_input", id="get-bad-time"),
    pytest.param("history", {"id": "nope", "scope": SCOPE}, "invalid_input", id="history-malformed-id"),
    pytest.param("list", {"scope": SCOPE, "limit": 0}, "invalid_input", id="list-limit-0"),
    pytest.param("list", {"scope": SCOPE, "cursor": "garbage!"}, "invalid_input", id="list-bad-cursor"),
    pytest.param("list", {"scope": SCOPE, "sort": ["-colour"]}, "invalid_query", id="list-bad-sort"),
    pytest.param("list", {"scope": SCOPE, "where": "kind=trait"}, "invalid_input", id="where-not-an-object"),
    pytest.param("list", {"scope": SCOPE, "where": {"colour": "red"}}, "invalid_query", id="where-unknown-key"),
    pytest.param("list", {"scope": SCOPE, "where": {"kind": 3}}, "invalid_query", id="where-kind-number"),
    pytest.param("list", {"scope": SCOPE, "where": {"scope": "user:bob"}}, "invalid_query", id="where-scope-key"),
    pytest.param(
        "recall",
        {"query": "x", "scope": SCOPE, "where": {"score": {"name": "x", "ge": 1}}},
        "invalid_query",
        id="where-bad-score-name",
    ),
    pytest.param(
        "recall",
        {"query": "x", "scope": SCOPE, "where": {"and": [{"kind": "a"}, {"not": []}]}},
        "invalid_query",
        id="where-nested-not-a-filter",
    ),
    pytest.param(
        "list",
        {"scope": SCOPE, "where": {"time": {"field": "recorded_at", "since": "2025-01-01"}}},
        "invalid_query",
        id="where-naive-time",
    ),
]


async def test_a_bad_filter_names_the_place_that_is_wrong(mem: Memory, mode: str) -> None:
    async with connected(mem, mode) as client:
        error = await fail(
            client, "list", scope=SCOPE, where={"or": [{"kind": "trait"}, {"score": {"name": "loudness", "ge": 1}}]}
        )
    assert error["code"] == "invalid_query"
    assert error["error"].startswith("where.or[1].score.name must be one of authority"), error


async def test_a_left_out_count_follows_a_smaller_max_k_and_a_given_one_is_checked(
    open_mem: Callable[..., Memory], mode: str
) -> None:
    """Every count of a tool (``k``, ``limit``) is passed on only when the caller gave it, so a
    ``Memory`` with ``max_k`` below the built-in defaults clamps them, as the HTTP face and the CLI
    now do too (they used to send their own defaults and be refused)."""
    small = open_mem(limits=Limits(max_k=3))
    for i in range(8):
        small.remember(f"the red kettle number {i} is on shelf {i}", scope=SCOPE)
    async with connected(small, mode) as client:
        assert (await call(client, "recall", query="red kettle shelf", scope=SCOPE))["count"] == 3
        assert (await call(client, "list", scope=SCOPE))["count"] == 3
        assert "kettle" in (await call(client, "context", query="red kettle shelf", scope=SCOPE))["context"]
        await call(client, "contradictions", scope=SCOPE)
        for tool, arguments in (
            ("recall", {"query": "kettle", "k": 4}),
            ("context", {"query": "kettle", "k": 4}),
            ("list", {"limit": 4}),
            ("contradictions", {"limit": 4}),
        ):
            error = await fail(client, tool, scope=SCOPE, **arguments)
            assert error["code"] == "limit_exceeded" and "Limits.max_k (3)" in error["error"], (tool, error)


@pytest.mark.parametrize(("tool", "arguments", "code"), BAD_INPUT)
async def test_bad_input_is_a_tool_error_with_a_stable_code(
    mem: Memory, mode: str, tool: str, arguments: dict[str, Any], code: str
) -> None:
    async with connected(mem, mode) as client:
        error = await fail(client, tool, **arguments)
    assert error["code"] == code, error
    assert error["error"]


async def test_a_bug_inside_a_tool_is_reported_without_a_traceback(
    mem: Memory, mode: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Memory, *, scope: str) -> dict[str, Any]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(Memory, "summary", broken)
    async with connected(mem, mode) as client:
        error = await fail(client, "summary", scope=SCOPE)
    assert error["code"] == "internal"
    assert "secret internals" not in error["error"]
    assert "secret internals" in caplog.text, "the traceback belongs in the server log"


# -- stored text is data -----------------------------------------------------------------------
async def test_stored_instructions_come_back_only_as_marked_data_and_never_change_the_catalog(
    mem: Memory, mode: str
) -> None:
    async with connected(mem, mode) as client:
        before = (await client.list_tools()).tools
        stored = await call(client, "remember", text=f"Alice's note: {INJECTION}", scope=SCOPE, source="user_stated")
        recalled = await call(client, "recall", query="alice note system prompt", scope=SCOPE)
        packed = await call(client, "context", query="alice note system prompt", scope=SCOPE)
        after = (await client.list_tools()).tools
        instructions = client.instructions
    assert assert_only_in_data(stored, INJECTION) == 1
    assert assert_only_in_data(recalled, INJECTION) == 1
    assert assert_only_in_data(packed, INJECTION, fields=("context",)) == 1
    assert descriptions(after) == descriptions(before) == snapshot()
    assert [t.input_schema for t in after] == [t.input_schema for t in before]
    assert all(INJECTION not in (t.description or "") for t in after)
    assert instructions == INSTRUCTIONS
