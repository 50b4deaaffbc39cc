"""Huge integers and non-finite numbers: refused with a clear error by every face, nothing stored.

``value=10**5000`` and every score given ``10**5000``, NaN or ±infinity were already refused by
the Python API. The other faces refused the huge integer too, but said the wrong thing or
nothing: HTTP answered "the body could not be read as JSON" (it is JSON), the CLI "'1000…0' is
not a valid integer" with all 5,001 digits echoed, a ``where`` / ``--meta`` JSON "is not JSON",
and the MCP stdio server never answered the request at all (the SDK drops a line it cannot
parse; the client waited for ever). Each now names the problem: an integer of N digits, longer
than Python reads (``sys.get_int_max_str_digits()``, 4300).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory

from .input_faces import SCOPE, api_refuses, cli_refuses, http, http_refuses, run_cli

sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))

from mcp_support import RawStdio

DIGITS = 5001
BIG = "1" + "0" * (DIGITS - 1)
SAYS = f"integer of {DIGITS} digits"
SCORES = ("authority", "confidence", "importance", "durability")
BAD_NUMBERS = [10**5000, -(10**5000), float("nan"), float("inf"), float("-inf")]
NUM = "<number>"
JSON = {"content-type": "application/json"}


def raw(doc: object, literal: str) -> str:
    """``doc`` as JSON text with the string ``NUM`` replaced by the number ``literal``, as written
    (Python's ``json`` cannot write a 5,001-digit integer, and writes no ``1e999``)."""
    return json.dumps(doc).replace(json.dumps(NUM), literal)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "n.db", embedder="hash") as m:
        yield m


@pytest.mark.parametrize("bad", BAD_NUMBERS, ids=["big", "-big", "nan", "inf", "-inf"])
def test_python_refuses_a_huge_or_non_finite_number_for_every_score_and_the_value(mem: Memory, bad: object) -> None:
    item = mem.remember("Alice likes tea", scope=SCOPE)
    other = mem.remember("Alice likes coffee", scope=SCOPE)
    before = len(mem.events(scope=SCOPE))
    calls: list[Any] = [lambda: mem.remember("Alice is 30", scope=SCOPE, key="alice.age", value=bad)]
    calls.append(lambda: mem.revise(item.id, "Alice likes green tea", scope=SCOPE, value=bad))
    calls.append(lambda: mem.remember("x", scope=SCOPE, scores={"value": bad}))
    calls.append(lambda: mem.set_scores(item.id, scope=SCOPE, value=bad))
    calls.append(lambda: mem.link(item.id, other.id, "supports", scope=SCOPE, authority=bad))
    for name in SCORES:
        calls.append(lambda name=name: mem.remember("x", scope=SCOPE, **{name: bad}))
        calls.append(lambda name=name: mem.set_scores(item.id, scope=SCOPE, **{name: bad}))
    for call in calls:
        exc = api_refuses(call)
        assert len(exc.message) < 400, exc.message  # the number is described, not printed
    assert len(mem.events(scope=SCOPE)) == before


@pytest.mark.parametrize(
    ("path", "body", "literal"),
    [
        ("/items", {"text": "x", "key": "a.b", "value": NUM}, BIG),
        ("/items", {"text": "x", "value": NUM}, "-" + BIG),
        ("/items", {"text": "x", "importance": NUM}, BIG),
        ("/items", {"text": "x", "scores": {"value": NUM}}, BIG),
        ("/recall", {"query": "tea", "k": NUM}, BIG),
    ],
)
def test_http_names_a_huge_integer_in_the_body(mem: Memory, path: str, body: object, literal: str) -> None:
    with http(mem) as client:
        sent = client.post(f"/v1/scopes/{SCOPE}{path}", content=raw(body, literal), headers=JSON)
    error = http_refuses(sent)["error"]
    assert SAYS in error and "could not be read as JSON" not in error, error
    assert mem.events(scope=SCOPE) == []


def test_http_names_a_huge_integer_in_a_where_filter_and_refuses_non_finite_scores(mem: Memory) -> None:
    with http(mem) as client:
        where = json.dumps({"score": {"name": "importance", "ge": 0}}).replace("0}", BIG + "}")
        got = http_refuses(client.get(f"/v1/scopes/{SCOPE}/items", params={"where": where}), "invalid_query")
        assert SAYS in got["error"] and "is not JSON" not in got["error"], got
        for name in SCORES:
            for literal in ("NaN", "Infinity", "-Infinity", "1e999"):
                sent = client.post(
                    f"/v1/scopes/{SCOPE}/items", content=raw({"text": "x", name: NUM}, literal), headers=JSON
                )
                assert name in http_refuses(sent, "invalid_input")["error"]
    assert mem.events(scope=SCOPE) == []


def test_cli_names_a_huge_integer_and_refuses_huge_or_non_finite_scores(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    assert run_cli(db, "remember", "Alice likes tea").exit_code == 0
    for args in (("recall", "tea", "--k", BIG), ("list", "--limit", "-" + BIG)):
        said = cli_refuses(db, *args, code="usage")
        assert SAYS in said and BIG not in said, said[:300]
    said = cli_refuses(db, "remember", "x", "--meta", raw({"n": NUM}, BIG), code="limit_exceeded")
    assert SAYS in said and "--meta" in said
    for name in SCORES:
        for bad in (BIG, "nan", "inf", "-inf", "1e999"):
            assert name in cli_refuses(db, "remember", "x", f"--{name}", bad, code="invalid_input")
    with Memory(db, embedder="hash") as mem:
        assert len(mem.events(scope=SCOPE)) == 1


class _Stdio(RawStdio):
    """The raw stdio client of ``mcp_support``, with ``remember`` calls whose numbers are written raw."""

    def call(self, n: int, arguments: dict[str, Any], literal: str = "0") -> dict[str, Any]:
        """``remember`` with ``arguments`` (``NUM`` standing for the number ``literal``)."""
        request = {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "remember", "arguments": arguments},
        }
        answer = self.ask(raw(request, literal))
        assert answer["id"] == n
        result: dict[str, Any] = answer["result"]
        return result


def test_mcp_stdio_answers_a_huge_integer_instead_of_leaving_the_client_waiting(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    server = _Stdio(db)
    try:
        for n, field in enumerate(("importance", "value"), 1):
            result = server.call(n, {"text": "x", "scope": SCOPE, "key": "a.b", field: NUM}, BIG)
            assert result["isError"] is True
            assert result["structuredContent"]["code"] == "invalid_input"
            assert result["structuredContent"]["error"].startswith(f"{field} is an {SAYS}")
        for n, literal in enumerate(("NaN", "Infinity", "-Infinity", "1e999"), 3):
            result = server.call(n, {"text": "x", "scope": SCOPE, "importance": NUM}, literal)
            assert result["isError"] is True and result["structuredContent"]["code"] == "invalid_input"
        other = server.ask(raw({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"cursor": NUM}}, BIG))
        assert other["id"] == 9 and SAYS in other["error"]["message"]
        ok = server.call(10, {"text": "Alice likes tea", "scope": SCOPE})  # still serving
        assert "isError" not in ok or ok["isError"] is False
    finally:
        server.close()
    with Memory(db, embedder="hash") as mem:
        assert [i.text for i in mem.list(scope=SCOPE).items] == ["Alice likes tea"]
