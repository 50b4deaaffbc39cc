"""The CLI reads every time it takes the same way, and every number the same way (probe 6, findings 5, 7).

README (CLI): "a time given without an offset is read as UTC". ``--since 2020-01-01`` was, but the
same time inside ``recall --where`` JSON was refused as "must be timezone-aware". And a number no
float holds (``--importance 1e-400``: 0.0 silently; ``1e400`` in ``--meta`` JSON: "inf") is refused
by its spelling, as on HTTP and MCP; ``--value 1e400`` is text and kept exactly.
"""

from __future__ import annotations

import json

import pytest
from cli_support import Cli

WHERE = '{"time": {"field": "recorded_at", "%s": "%s"}}'


@pytest.mark.parametrize("command", ["recall", "context"])
def test_a_naive_time_inside_where_is_read_as_utc_like_since(run: Cli, command: str) -> None:
    run.remember("Alice works at Acme")
    run.ok("list", "--since", "2020-01-01")
    since = run.ok(command, "Alice works", "--where", WHERE % ("since", "2020-01-01T00:00:00"))
    assert "Alice works at Acme" in since.stdout
    until = run.ok("--json", command, "Alice works", "--where", WHERE % ("until", "2020-01-01"))
    assert "Alice works at Acme" not in until.stdout


def test_a_where_time_that_is_not_iso_is_still_refused(run: Cli) -> None:
    run.remember("Alice works at Acme")
    result = run.fails(2, "invalid_query", "recall", "x", "--where", WHERE % ("since", "yesterday"))
    assert "not an ISO-8601 time" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("--importance", "1e-400"),
        ("--authority", "1e-999"),
        ("--meta", '{"x": 1e400}'),
    ],
)
def test_a_number_no_float_holds_is_refused_by_its_spelling(run: Cli, args: tuple[str, str]) -> None:
    run.remember("Alice works at Acme")
    result = run.fails(2, "invalid_input", "remember", "Big quota", *args)
    assert "float" in result.stderr and args[1].split(": ")[-1].rstrip("}") in result.stderr, result.stderr
    assert "got inf" not in result.stderr
    assert [i["text"] for i in run.json("list")["items"]] == ["Alice works at Acme"]


def test_value_1e400_is_text_and_kept_exactly(run: Cli) -> None:
    item = run.json("remember", "Big quota", "--key", "q.big", "--value", "1e400")["item"]
    assert item["value"] == "1e400"
    assert json.loads(json.dumps(item))["value"] == "1e400"
