"""A JSON number no float holds is refused by its spelling, never stored changed (probe 6, finding 7).

``"value": 1e400`` is a finite JSON number; the body was parsed to a float, which overflowed, so
it was refused as "inf" (a value the client never sent), and ``"importance": 1e-400`` was stored
as 0.0. The rule on every JSON face (HTTP, MCP, the CLI's JSON options): a number must be one a
float holds; the exact spelling travels as a string (``"1e400"``), as the CLI's ``--value`` does.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error

from reverie import Memory

URL = f"/v1/scopes/{SCOPE}/items"


@pytest.mark.parametrize(
    "body",
    [
        '{"text": "Big quota", "key": "q.big", "value": 1e400}',
        '{"text": "Big quota", "key": "q.big", "value": -1.5E+400}',
        '{"text": "Tiny quota", "key": "q.tiny", "value": 1e-400}',
        '{"text": "Big quota", "importance": 1e-400}',
        '{"text": "Big quota", "meta": {"x": [1, 1e400]}}',
    ],
)
def test_an_out_of_float_range_number_is_refused_and_nothing_stored(
    mem: Memory, make_client: Callable[..., TestClient], body: str
) -> None:
    response = make_client().post(URL, content=body, headers={"content-type": "application/json"})
    error = assert_error(response, 400, "invalid_input")["error"]
    assert "float" in error and "as a string" in error, error
    assert " inf" not in error
    assert mem.list(scope=SCOPE).items == []


def test_where_refuses_it_too(mem: Memory, make_client: Callable[..., TestClient]) -> None:
    where = '{"score": {"name": "importance", "ge": 1e-400}}'
    response = make_client().post(
        f"/v1/scopes/{SCOPE}/recall",
        content=f'{{"query": "x", "where": {where}}}',
        headers={"content-type": "application/json"},
    )
    assert "1e-400" in assert_error(response, 400)["error"]


def test_the_exact_spelling_as_a_string_is_kept(mem: Memory, make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    made = client.post(URL, json={"text": "Big quota", "key": "q.big", "value": "1e400"})
    assert made.status_code == 201, made.text
    assert made.json()["value"] == "1e400"
    small = client.post(
        URL,
        content='{"text": "Small quota", "value": 2.5e-324, "importance": 0.0}',
        headers={"content-type": "application/json"},
    )
    assert small.status_code == 201, small.text  # rounds to the smallest float: held, not zero
