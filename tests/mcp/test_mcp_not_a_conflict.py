"""MCP ``dismiss_contradiction`` through a real client session (outside probe 7, finding 5: MCP
could only ``resolve``, which supersedes one of two true claims)."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_support import MISSING_ID, SCOPE, call, fail

from reverie import ManualClock, Memory
from reverie.mcp import DATA_NOTE, build_server

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


async def test_dismiss_contradiction_closes_a_false_positive_for_good(
    mem: Memory, clock: ManualClock, mode: str
) -> None:
    async with Client(build_server(mem), mode=mode, raise_exceptions=True) as client:
        await call(client, "remember", text="The pool opens at 7 am.", scope=SCOPE, source="user_stated")
        clock.advance(days=1)
        await call(client, "remember", text="The pool opens at 9 am.", scope=SCOPE, source="user_stated")
        (found,) = (await call(client, "contradictions", scope=SCOPE))["contradictions"]
        edge = (
            await call(client, "dismiss_contradiction", conflict=found["edge_id"], scope=SCOPE, reason="both true")
        )["edge"]
        await call(client, "dream", scope=SCOPE)
        after = await call(client, "contradictions", scope=SCOPE)
        again = await fail(client, "dismiss_contradiction", conflict=found["edge_id"], scope=SCOPE)
        missing = await fail(client, "dismiss_contradiction", conflict=MISSING_ID, scope=SCOPE)
    assert (edge["id"], edge["type"], edge["note"]) == (found["edge_id"], "contradicts", DATA_NOTE)
    assert edge["closed_at"] is not None
    assert after["count"] == 0
    assert again["code"] == "already_closed" and missing["code"] == "not_found"
