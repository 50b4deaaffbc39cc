"""A repeated key in one JSON object, over MCP stdio: refused by name, as by every other face.

HTTP (body and ``?where=``), the CLI's ``--meta`` and imports refuse ``{"a": 1, "a": 2}``
(``reverie.model.validate.unique_keys``): JSON readers disagree on which of two equal keys
counts, so a proxy or a log may have seen another request than the one run. The MCP SDK parses
stdio lines itself and kept the last value, so ``remember`` with ``"text"`` twice stored one of
them silently. These speak raw JSON-RPC lines to a real ``python -m reverie.mcp`` process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp_support import SCOPE, RawStdio, call
from test_mcp_http import serving

from reverie import Memory
from reverie.mcp.repeated import refusal

TWICE = "twice in one object"


def tool_call(n: int, arguments: str, name: str = "remember") -> str:
    """A ``tools/call`` line with ``arguments`` written as raw JSON text (repeats kept)."""
    params = f'{{"name": "{name}", "arguments": {arguments}}}'
    return f'{{"jsonrpc": "2.0", "id": {n}, "method": "tools/call", "params": {params}}}'


def refused(answer: dict[str, Any], n: int) -> str:
    """The ``invalid_input`` tool error of answer ``n``; returns its message."""
    assert answer["id"] == n, answer
    result = answer["result"]
    assert result["isError"] is True, result
    payload = result["structuredContent"]
    assert payload == json.loads(result["content"][0]["text"])
    assert payload["code"] == "invalid_input", payload
    message: str = payload["error"]
    return message


def stored(db: Path) -> tuple[list[str], int]:
    """The texts in SCOPE and the number of events written there."""
    with Memory(db, embedder="hash") as mem:
        return [i.text for i in mem.list(scope=SCOPE).items], len(mem.events(scope=SCOPE))


@pytest.mark.parametrize(
    ("arguments", "key", "where"),
    [
        (f'{{"text": "Alice likes tea", "text": "Alice likes coffee", "scope": "{SCOPE}"}}', "text", "arguments"),
        (f'{{"text": "x", "scope": "{SCOPE}", "meta": {{"team": "a", "team": "b"}}}}', "team", "meta"),
        (f'{{"text": "x", "scope": "{SCOPE}", "meta": {{"tags": [1, {{"k": 1, "k": 2}}]}}}}', "k", "meta.tags.1"),
    ],
    ids=["top-level", "nested", "inside-a-list"],
)
def test_a_repeated_key_in_tool_arguments_is_refused_by_name_and_nothing_is_stored(
    tmp_path: Path, arguments: str, key: str, where: str
) -> None:
    db = tmp_path / "k.db"
    server = RawStdio(db)
    try:
        message = refused(server.ask(tool_call(1, arguments)), 1)
    finally:
        server.close()
    assert message.startswith(f"{where} has the key {key!r} {TWICE}"), message
    assert "send each key once" in message
    assert stored(db) == ([], 0)


def test_a_repeated_key_elsewhere_in_the_request_is_a_json_rpc_error_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    server = RawStdio(db)
    args = f'{{"text": "x", "scope": "{SCOPE}"}}'
    try:
        two_tools = server.ask(
            f'{{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
            f'"params": {{"name": "list", "name": "remember", "arguments": {args}}}}}'
        )
        two_ids = server.ask(
            f'{{"jsonrpc": "2.0", "id": 3, "id": 4, "method": "tools/call", '
            f'"params": {{"name": "remember", "arguments": {args}}}}}'
        )
        two_lists = server.ask(
            '{"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": "a", "cursor": "b"}}'
        )
    finally:
        server.close()
    assert two_tools["id"] == 2 and two_tools["error"]["message"].startswith(f"params has the key 'name' {TWICE}")
    # Which id is meant cannot be told, so the answer carries none (JSON-RPC's null id).
    assert two_ids["id"] is None and two_ids["error"]["message"].startswith(f"the request has the key 'id' {TWICE}")
    assert two_lists["id"] == 5 and "'cursor'" in two_lists["error"]["message"]
    assert stored(db) == ([], 0)


def test_the_server_keeps_serving_and_equal_keys_in_different_objects_are_no_repeat(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    server = RawStdio(db)
    try:
        refused(server.ask(tool_call(1, f'{{"text": "a", "text": "b", "scope": "{SCOPE}"}}')), 1)
        ok = server.ask(tool_call(2, f'{{"text": "Alice likes tea", "scope": "{SCOPE}", "meta": {{"text": "t"}}}}'))
        listed = server.ask(tool_call(3, f'{{"scope": "{SCOPE}"}}', name="list"))
    finally:
        server.close()
    assert ok["id"] == 2 and ok["result"].get("isError") is not True, ok
    assert [i["text"] for i in listed["result"]["structuredContent"]["items"]] == ["Alice likes tea"]
    assert stored(db) == (["Alice likes tea"], 1)


def test_while_serving_fd_0_is_the_null_device_and_the_client_lines_come_through_a_private_copy() -> None:
    """What the SDK does when it opens stdin itself, kept now that reverie hands it a checked stdin:
    a child process (a git hook run by a vault tool) or a handler reading stdin gets EOF, never
    the client's requests; fd 0 is the wire again afterwards."""
    script = (
        "import os, subprocess, sys\n"
        "from reverie.mcp.stdio_lines import wire_stdin\n"
        "pipe, null = os.fstat(0).st_ino, os.stat(os.devnull).st_ino\n"
        "with wire_stdin() as wire:\n"
        "    child = subprocess.run([sys.executable, '-c', 'import sys; print(repr(sys.stdin.read()))'],"
        " capture_output=True, text=True, check=True).stdout.strip()\n"
        "    mine = os.read(0, 100)\n"
        "    during = os.fstat(0).st_ino == null\n"
        "    first = wire.readline()\n"
        "after = os.fstat(0).st_ino == pipe\n"
        "print(child, repr(mine), during, repr(first), after)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input="one\n", capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["''", "b''", "True", repr("one\n"), "True"], done


@pytest.mark.anyio
async def test_the_http_transport_refuses_a_repeated_key_too_and_keeps_serving(tmp_path: Path) -> None:
    """Streamable HTTP: the SDK reads the body with pydantic, which keeps the last key as well."""
    db = tmp_path / "h.db"
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with serving(db) as url:
        async with httpx.AsyncClient(timeout=20) as http:
            hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
            opened = await http.post(
                url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, headers=headers
            )
            session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            args = f'{{"text": "a", "scope": "{SCOPE}", "meta": {{"team": "x", "team": "y"}}}}'
            in_arguments = await http.post(url, content=tool_call(1, args), headers=session)
            in_params = await http.post(
                url,
                content='{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "a", "cursor": "b"}}',
                headers=session,
            )
        async with Client(url, mode="legacy") as client:
            ok = await call(client, "remember", text="Alice likes tea", scope=SCOPE)
    assert in_arguments.status_code == 200, in_arguments.text
    assert refused(in_arguments.json(), 1).startswith(f"meta has the key 'team' {TWICE}")
    assert in_params.status_code == 400 and in_params.json()["id"] == 2
    assert in_params.json()["error"]["message"].startswith(f"params has the key 'cursor' {TWICE}")
    assert ok["item"]["text"] == "Alice likes tea"
    assert stored(db) == (["Alice likes tea"], 1)


def test_the_rule_on_a_raw_line() -> None:
    """``refusal`` itself: no repeat, no refusal; a notification is refused with nothing to answer;
    text the SDK must refuse anyway (not JSON, too deep) is left to it."""
    assert refusal(tool_call(1, f'{{"text": "a", "scope": "{SCOPE}", "meta": {{"text": "a"}}}}')) is None
    note = refusal(
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "requestId": 2}}'
    )
    assert note is not None and note.reply is None and "'requestId'" in note.message
    assert refusal("not json") is None
    assert refusal("[" * 100_000 + "]" * 100_000) is None
    deep = '{"a": ' * 500 + '{"k": 1, "k": 2}' + "}" * 500  # as deep as the decoder reads: walked without recursion
    found = refusal(tool_call(7, f'{{"text": "a", "scope": "{SCOPE}", "meta": {deep}}}'))
    assert found is not None and found.message.startswith("meta" + ".a" * 500 + " has the key 'k'")
