"""MCP tools for intents and tasks, through a real client session: results marked as data, errors in the one shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agenda_kit import OTHER, SCOPE
from mcp import Client

from reverie import Memory
from reverie.mcp import DATA_NOTE, build_server

pytestmark = pytest.mark.anyio


async def _call(client: Client, name: str, ok: bool = True, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    payload: dict[str, Any] = json.loads(result.content[0].text)
    assert result.is_error is (not ok), payload
    return payload


async def test_intent_and_task_tools_round_trip(mem: Memory) -> None:
    claim = mem.remember("Alice may be allergic to peanuts", scope=SCOPE, importance=0.9, authority=0.2)
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as c:
        suggested = await _call(c, "intent_suggest", scope=SCOPE)
        assert suggested["note"] == DATA_NOTE and suggested["suggestions"][0]["memory_ids"] == [claim.id]
        assert mem.intents.list(scope=SCOPE) == []  # a suggestion writes nothing
        goal = (await _call(c, "intent_create", scope=SCOPE, label="confirm", memory_ids=[claim.id]))["intent"]
        task = (await _call(c, "task_create", scope=SCOPE, action="ask Alice", intent=goal["id"]))["task"]
        await _call(c, "task_move", scope=SCOPE, id=task["id"], move="start")
        await _call(c, "task_move", scope=SCOPE, id=task["id"], move="fail", reason="no answer")
        failed = await _call(c, "task_list", scope=SCOPE, failed=True)
        assert [t["id"] for t in failed["tasks"]] == [task["id"]]
        assert failed["tasks"][0]["failures"][0]["reason"] == "no answer"
        await _call(c, "task_move", scope=SCOPE, id=task["id"], move="retry")
        done = await _call(c, "task_move", scope=SCOPE, id=task["id"], move="complete", outputs=[claim.id])
        assert done["task"]["status"] == "completed"
        detail = await _call(c, "intent_get", scope=SCOPE, id=goal["id"])
        assert [t["id"] for t in detail["tasks"]] == [task["id"]]
        assert [e["type"] for e in (await _call(c, "task_get", scope=SCOPE, id=task["id"]))["history"]][-1] == (
            "task.completed"
        )
        moved = await _call(c, "intent_move", scope=SCOPE, id=goal["id"], move="complete")
        assert moved["intent"]["status"] == "completed"
        assert (await _call(c, "intent_list", scope=SCOPE, status=["completed"]))["count"] == 1


async def test_refusals_come_back_as_code_and_error(mem: Memory) -> None:
    theirs = mem.intents.create("Bob's", scope=OTHER)
    mine = mem.intents.create("mine", scope=SCOPE)
    mem.intents.cancel(mine, scope=SCOPE)
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as c:
        wrong = await _call(c, "task_create", ok=False, scope=SCOPE, action="x", intent=theirs.id)
        assert set(wrong) == {"code", "error"} and wrong["code"] == "not_found"
        final = await _call(c, "intent_move", ok=False, scope=SCOPE, id=mine.id, move="resume")
        assert final["code"] == "invalid_transition" and "it is cancelled" in final["error"]
        bad = await _call(c, "intent_move", ok=False, scope=SCOPE, id=mine.id, move="explode")
        assert bad["code"] == "invalid_input"
    assert mem.tasks.list(scope=SCOPE) == []
