"""MCP answers a naive time and an out-of-float-range number as the HTTP face does (probe 6, findings 6, 7).

A naive ``as_of`` was refused with "e.g. datetime.now(UTC)" — a Python call no JSON caller can
make; HTTP gave an ISO example. ``"value": 1e400`` (a finite JSON number) was refused as "inf",
and ``"importance": 1e-400`` would have been stored as 0.0: a JSON number no float holds is now
refused by its spelling on every JSON face. Raw JSON-RPC lines to a real ``python -m reverie.mcp``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_support import SCOPE, RawStdio
from test_mcp_repeated_keys import refused, stored, tool_call

from reverie.mcp.repeated import refusal


def test_a_naive_as_of_gets_an_iso_example_not_a_python_call(tmp_path: Path) -> None:
    server = RawStdio(tmp_path / "t.db")
    try:
        for n, tool in enumerate(("recall", "context"), start=1):
            args = {"scope": SCOPE, "as_of": "2026-01-01T00:00:00"} | {"query": "x"}
            message = refused(server.ask(tool_call(n, json.dumps(args), tool)), n)
            assert "as_of must be timezone-aware (e.g. 2030-01-01T00:00:00Z)" in message, message
            assert "datetime" not in message
    finally:
        server.close()


@pytest.mark.parametrize(
    ("field", "number"),
    [("value", "1e400"), ("value", "-1e400"), ("value", "1e-400"), ("importance", "1e-400"), ("meta", "1e400")],
)
def test_a_json_number_no_float_holds_is_refused_by_its_spelling(tmp_path: Path, field: str, number: str) -> None:
    db = tmp_path / "n.db"
    body = f'{{"meta": {{"x": {number}}}}}' if field == "meta" else f'{{"{field}": {number}}}'
    args = f'{{"text": "Big quota", "scope": "{SCOPE}", "key": "q.big", {body[1:-1]}}}'
    server = RawStdio(db)
    try:
        message = refused(server.ask(tool_call(1, args)), 1)
    finally:
        server.close()
    assert number in message and "float" in message, message
    assert "inf" not in message.replace("info", "")
    assert stored(db) == ([], 0)


def test_the_same_number_as_a_string_is_kept_exactly(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    server = RawStdio(db)
    try:
        args = json.dumps({"text": "Big quota", "scope": SCOPE, "key": "q.big", "value": "1e400"})
        answer = server.ask(tool_call(1, args))
    finally:
        server.close()
    assert answer["result"].get("isError") is not True, answer
    assert answer["result"]["structuredContent"]["item"]["value"] == "1e400"


def test_the_raw_line_check_names_where_the_number_sits() -> None:
    """The check both MCP transports share (stdio lines, streamable-HTTP bodies: ``RefuseRepeatedKeys``)."""
    found = refusal(tool_call(7, f'{{"text": "t", "scope": "{SCOPE}", "meta": {{"a": [1, 1e400]}}}}'))
    assert found is not None and found.message.startswith("meta.a.1 holds the number 1e400"), found
    assert refusal(tool_call(8, f'{{"text": "t", "scope": "{SCOPE}", "meta": {{"a": [2.5e-324, 0e9]}}}}')) is None
