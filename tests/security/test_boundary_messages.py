"""Regressions (outside tester): refusals that named the wrong thing, or nothing.

- An empty recall query said "query is empty; give the claim as non-blank text" — it is a
  query, not a claim — on every face, conversation search included.
- MCP ``k=0`` said "k must be in [1, inf]": the upper bound is ``Limits.max_k`` (1000), not
  infinity; a schema with only a minimum now says "at least".
- An HTTP body that is not UTF-8, or JSON nested too deep, got only "There was an error parsing
  the body"; it now says what was wrong and how to fix it (still 400, the one error shape).

Real SQLite files; a real uvicorn server; the MCP server spawned over stdio.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from reverie import Memory
from reverie.errors import InvalidInputError
from reverie.http import create_app

from .http_sec_helpers import serving

SCOPE = "user:alice"


def _about_the_query(message: str) -> None:
    assert message.startswith("query is empty"), message
    assert "claim" not in message and "the query" in message, message


def test_python_empty_query_speaks_of_the_query(tmp_path: Path) -> None:
    with Memory(tmp_path / "p.db", embedder="hash") as mem:
        mem.remember("baseline", scope=SCOPE)
        mem.conversation("c1", scope=SCOPE).add("hello there", speaker="Alice")
        for call in (
            lambda: mem.recall("", scope=SCOPE),
            lambda: mem.recall("   ", scope=SCOPE),
            lambda: mem.context("", scope=SCOPE),
            lambda: mem.archive_search(" ", scope=SCOPE),
        ):
            with pytest.raises(InvalidInputError) as info:
                call()
            _about_the_query(info.value.message)
        with pytest.raises(InvalidInputError, match="give the claim as non-blank text"):
            mem.remember(" ", scope=SCOPE)  # a claim's text still says claim


def _bad_request(r: httpx.Response) -> str:
    assert r.status_code == 400, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"code", "error", "status"} and body["status"] == 400, body
    assert "There was an error parsing the body" not in body["error"], body
    return str(body["error"])


def test_http_messages_say_what_was_wrong(tmp_path: Path) -> None:
    with Memory(tmp_path / "h.db", embedder="hash") as mem:
        mem.remember("baseline", scope=SCOPE)
        mem.conversation("c1", scope=SCOPE).add("hello there", speaker="Alice")
        before = len(mem.events(scope=SCOPE))
        with serving(create_app(mem)) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}") as c:
            _about_the_query(_bad_request(c.post("/recall", json={"query": ""})))
            _about_the_query(_bad_request(c.post("/context", json={"query": " "})))
            _about_the_query(_bad_request(c.get("/conversations/search", params={"q": ""})))
            json_type = {"content-type": "application/json"}
            utf8 = _bad_request(c.post("/items", content=b'{"text": "a\xff\xfeb"}', headers=json_type))
            assert "not valid UTF-8" in utf8 and "0xff" in utf8 and "UTF-8" in utf8.split(";")[1], utf8
            deep = '{"text": "x", "meta": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"
            nested = _bad_request(c.post("/items", content=deep.encode(), headers=json_type))
            assert "nested too deeply" in nested, nested
        assert len(mem.events(scope=SCOPE)) == before  # refused, so nothing stored


def test_mcp_stdio_messages_name_the_query_and_the_real_bound(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "reverie.mcp", "--db", str(tmp_path / "m.db"), "--create", "--embedder", "hash"],
    )

    async def go() -> list[dict[str, Any]]:
        out = []
        async with Client(params, mode="legacy") as client:
            await client.call_tool("remember", {"text": "Alice likes tea", "scope": SCOPE})
            for args in ({"k": 0}, {"k": 5000}, {"query": ""}):
                result = await client.call_tool("recall", {"scope": SCOPE, "query": "tea", **args})
                assert result.is_error
                out.append(json.loads(result.content[0].text))
        return out

    zero, huge, empty = anyio.run(go)
    assert zero["error"] == "k must be at least 1, got 0", zero
    assert "inf" not in zero["error"]
    assert "1000" in huge["error"] and "Limits.max_k" in huge["error"], huge
    _about_the_query(empty["error"])
