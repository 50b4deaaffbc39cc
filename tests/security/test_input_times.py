"""Issue #14, finding 11: calendar-edge times are refused clearly, on every face that takes a time.

``0001-01-01T00:00:00+14:00`` is year 0 in UTC and ``9999-12-31T23:59:59-14:00`` is year 10000:
both are valid ``datetime`` values that overflow when converted to UTC, which every time in
reverie is. They crashed with ``OverflowError`` (500 over HTTP, ``error[internal]`` from the CLI
and MCP). The accepted range is the one a UTC ``datetime`` can hold: 0001-01-01T00:00:00Z to
9999-12-31T23:59:59.999999Z, checked in ``ensure_aware`` — the one place every time passes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import InvalidInputError, Memory, Q
from reverie.model.clock import ensure_aware
from reverie.model.query_json import parse_filter

from .input_faces import SCOPE, api_refuses, cli_refuses, http, http_refuses, mcp_refuses, run_cli

EDGES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]
edge = pytest.mark.parametrize("text", EDGES, ids=["year-0-in-utc", "year-10000-in-utc"])


def _time_where(text: str, field: str = "recorded_at", bound: str = "since") -> dict[str, object]:
    return {"time": {"field": field, bound: text}}


@edge
def test_ensure_aware_refuses_a_time_outside_the_utc_calendar_naming_the_range(text: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        ensure_aware(datetime.fromisoformat(text), "as_of")
    message = caught.value.message
    assert message.startswith("as_of ") and "0001-01-01" in message and "9999-12-31" in message


def test_the_edges_of_the_utc_calendar_themselves_are_accepted_and_round_trip(mem: Memory) -> None:
    low, high = datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert ensure_aware(datetime.fromisoformat("0001-01-01T14:00:00+14:00")) == low
    item = mem.remember("Alice likes tea", scope=SCOPE, valid_from=low, valid_to=high)
    again = mem.get(item.id, scope=SCOPE)
    assert (again.valid_from, again.valid_to) == (low, high)
    assert mem.get(item.id, scope=SCOPE, as_of=high).id == item.id
    assert [i.id for i in mem.list(scope=SCOPE, where=Q.time("valid_to", since=high)).items] == [item.id]


@edge
def test_python_face_refuses_calendar_edge_times_everywhere_a_time_is_taken(mem: Memory, text: str) -> None:
    when = datetime.fromisoformat(text)
    item = mem.remember("Alice likes tea", scope=SCOPE)
    n = len(mem.events(scope=SCOPE))
    api_refuses(lambda: mem.get(item.id, scope=SCOPE, as_of=when))
    api_refuses(lambda: mem.recall("tea", scope=SCOPE, as_of=when))
    api_refuses(lambda: mem.remember("Bob likes coffee", scope=SCOPE, valid_from=when))
    api_refuses(lambda: mem.remember("Bob likes coffee", scope=SCOPE, valid_to=when))
    api_refuses(lambda: Q.recorded(since=when))
    api_refuses(lambda: Q.time("valid_to", until=when))
    api_refuses(lambda: parse_filter(_time_where(text)), code="invalid_query")
    assert len(mem.events(scope=SCOPE)) == n  # refused before anything was written


@edge
def test_cli_refuses_calendar_edge_times_with_exit_2(tmp_path: Path, text: str) -> None:
    db = tmp_path / "cli.db"
    made = run_cli(db, "--json", "remember", "Alice likes tea")
    item = json.loads(made.stdout)["item"]["id"]
    cli_refuses(db, "recall", "tea", f"--as-of={text}")
    cli_refuses(db, "show", item, f"--as-of={text}")
    cli_refuses(db, "remember", "Bob likes coffee", f"--valid-from={text}")
    cli_refuses(db, "remember", "Bob likes coffee", f"--valid-to={text}")
    cli_refuses(db, "list", f"--since={text}")
    cli_refuses(db, "list", f"--until={text}")


@edge
def test_http_refuses_calendar_edge_times_with_a_4xx(mem: Memory, text: str) -> None:
    item = mem.remember("Alice likes tea", scope=SCOPE)
    base = f"/v1/scopes/{SCOPE}"
    with http(mem) as client:
        http_refuses(client.get(f"{base}/items/{item.id}", params={"as_of": text}))
        http_refuses(client.post(f"{base}/recall", json={"query": "tea", "as_of": text}))
        http_refuses(client.post(f"{base}/recall", json={"query": "tea", "where": _time_where(text)}))
        http_refuses(client.post(f"{base}/items", json={"text": "Bob likes coffee", "valid_from": text}))
        http_refuses(client.post(f"{base}/items", json={"text": "Bob likes coffee", "valid_to": text}))
        where = json.dumps(_time_where(text, "valid_from", "until"))
        http_refuses(client.get(f"{base}/items", params={"where": where}), code="invalid_query")


@edge
def test_mcp_refuses_calendar_edge_times_with_a_reverie_code(mem: Memory, text: str) -> None:
    item = mem.remember("Alice likes tea", scope=SCOPE)
    mcp_refuses(mem, "get", id=item.id, scope=SCOPE, as_of=text)
    mcp_refuses(mem, "recall", query="tea", scope=SCOPE, as_of=text)
    mcp_refuses(mem, "recall", query="tea", scope=SCOPE, where=_time_where(text))
    mcp_refuses(mem, "remember", text="Bob likes coffee", scope=SCOPE, valid_from=text)
    mcp_refuses(mem, "remember", text="Bob likes coffee", scope=SCOPE, valid_to=text)
    mcp_refuses(mem, "list", scope=SCOPE, where=_time_where(text), code="invalid_query")
