"""Regression (outside tester): filter bounds no item can meet were answered with silence.

``reverie list --min-importance 2``, ``--max-importance -5`` and ``--since`` later than
``--until`` exited 0 with "no items", though the README promises exit 2 for a score outside
[0, 1]. The refusal lives in the query algebra (``Q.score`` / ``Q.time``), which every face's
filter is built with: the CLI's options, HTTP's and MCP's JSON ``where``.
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

from reverie import Memory, Q
from reverie.errors import InvalidQueryError
from reverie.http import create_app

from .http_sec_helpers import serving
from .input_faces import cli_refuses, run_cli

SCOPE = "user:alice"

CLI_CASES = {
    "min-importance-above-1": ("--min-importance", "2"),
    "max-importance-below-0": ("--max-importance", "-5"),
    "min-authority-inf": ("--min-authority", "inf"),
    "min-above-max": ("--min-importance", "0.8", "--max-importance", "0.2"),
    "since-after-until": ("--since", "2025-01-01", "--until", "2024-01-01"),
}


@pytest.mark.parametrize("args", list(CLI_CASES.values()), ids=list(CLI_CASES))
def test_cli_list_refuses_bounds_nothing_could_meet(tmp_path: Path, args: tuple[str, ...]) -> None:
    db = tmp_path / "c.db"
    assert run_cli(db, "remember", "baseline", "--importance", "0.5").exit_code == 0
    err = cli_refuses(db, "list", *args, code="invalid_query")
    assert "nothing could match" in err or "outside [0, 1]" in err, err


def test_cli_list_still_takes_bounds_at_the_edges(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    assert run_cli(db, "remember", "baseline", "--importance", "1").exit_code == 0
    listed = run_cli(db, "--json", "list", "--min-importance", "1", "--max-importance", "1")
    assert listed.exit_code == 0 and len(json.loads(listed.stdout)["items"]) == 1
    same = run_cli(db, "--json", "list", "--since", "2024-01-01", "--until", "2024-01-01")
    assert same.exit_code == 0


def test_the_algebra_refuses_them_with_a_message_that_says_how_to_fix_it() -> None:
    with pytest.raises(InvalidQueryError, match=r"outside \[0, 1\]"):
        Q.score("importance", ge=2)
    with pytest.raises(InvalidQueryError, match="swap them"):
        Q.score("confidence", gt=0.9, lt=0.1)
    with pytest.raises(InvalidQueryError, match="swap them"):
        Q.score("use_count", ge=5, le=1)
    Q.score("use_count", ge=5)  # counts are not scores: no [0, 1] bound
    from datetime import UTC, datetime

    with pytest.raises(InvalidQueryError, match="later than until"):
        Q.recorded(since=datetime(2025, 1, 1, tzinfo=UTC), until=datetime(2024, 1, 1, tzinfo=UTC))


WHERE = [
    {"score": {"name": "importance", "ge": 2}},
    {"score": {"name": "importance", "le": -5}},
    {"time": {"field": "recorded_at", "since": "2025-01-01T00:00:00Z", "until": "2024-01-01T00:00:00Z"}},
]


def test_http_where_refuses_bounds_nothing_could_meet(tmp_path: Path) -> None:
    with Memory(tmp_path / "h.db", embedder="hash") as mem:
        mem.remember("baseline", scope=SCOPE)
        with serving(create_app(mem)) as port:
            base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}"
            for where in WHERE:
                for r in (
                    httpx.get(f"{base}/items", params={"where": json.dumps(where)}),
                    httpx.post(f"{base}/recall", json={"query": "baseline", "where": where}),
                ):
                    assert r.status_code == 400, r.text
                    body = r.json()
                    assert set(body) == {"code", "error", "status"} and body["code"] == "invalid_query", body
                    assert "nothing could match" in body["error"] or "outside [0, 1]" in body["error"], body


def test_mcp_stdio_where_refuses_bounds_nothing_could_meet(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "reverie.mcp", "--db", str(tmp_path / "m.db"), "--create", "--embedder", "hash"],
    )

    async def go() -> list[tuple[bool, dict[str, Any]]]:
        out = []
        async with Client(params, mode="legacy") as client:
            await client.call_tool("remember", {"text": "baseline", "scope": SCOPE})
            for where in WHERE:
                for tool, extra in (("list", {}), ("recall", {"query": "baseline"})):
                    result = await client.call_tool(tool, {"scope": SCOPE, "where": where, **extra})
                    out.append((bool(result.is_error), json.loads(result.content[0].text)))
        return out

    for is_error, payload in anyio.run(go):
        assert is_error and payload["code"] == "invalid_query", payload
        assert "nothing could match" in payload["error"] or "outside [0, 1]" in payload["error"], payload
