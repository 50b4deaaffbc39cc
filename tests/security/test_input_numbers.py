"""Regressions (outside tester): numbers the faces took that ``Memory`` would not have.

- A claim's structured ``value`` of ``nan``, ``inf`` or ``-inf`` (Python, or ``{"value": NaN}`` /
  ``1e999`` over HTTP) was stored as the text ``"nan"`` / ``"inf"``: not a value anyone stated,
  and one that corroborates every other ``"nan"``. Refused, as ``meta`` refuses them.
- HTTP coerced a string ``"0.5"`` to a score, ``true`` to a value of ``1`` and ``2.0`` to a count
  of 2, where Python and MCP refuse them: the HTTP models no longer coerce, so ``Memory``'s
  own rules (numbers, not bools, not strings) hold on every face.

Over a real uvicorn server on a real SQLite file; nothing is stored on a refusal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from reverie import Memory
from reverie.errors import InvalidInputError
from reverie.http import create_app

from .http_sec_helpers import serving

SCOPE = "user:alice"
NON_FINITE = [float("nan"), float("inf"), float("-inf")]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "n.db", embedder="hash") as m:
        m.remember("baseline", scope=SCOPE)
        yield m


@pytest.fixture
def server(mem: Memory) -> Iterator[httpx.Client]:
    with serving(create_app(mem)) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}") as c:
        yield c


def _refused(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "error", "status"} and body["code"] == "invalid_input", body
    return str(body["error"])


@pytest.mark.parametrize("value", NON_FINITE, ids=["nan", "inf", "-inf"])
def test_remember_and_revise_refuse_a_non_finite_value(mem: Memory, value: float) -> None:
    item = mem.remember("the sensor reads 21", scope=SCOPE, key="sensor.temp", value=21)
    before = len(mem.events(scope=SCOPE))
    calls = (
        lambda: mem.remember("the sensor reads nothing", scope=SCOPE, key="sensor.temp", value=value),
        lambda: mem.remember_many([{"text": "x", "key": "sensor.temp", "value": value}], scope=SCOPE),
        lambda: mem.revise(item.id, "the sensor reads nothing", scope=SCOPE, value=value),
        lambda: mem.undismiss(scope=SCOPE, key="sensor.temp", value=value),
    )
    for call in calls:
        with pytest.raises(InvalidInputError) as info:
            call()
        message = info.value.message
        assert message.startswith(f"value is {value}") and "NaN or infinity" in message, message
        assert "finite number" in message, message
    assert len(mem.events(scope=SCOPE)) == before
    assert mem.remember("the sensor reads 1e308", scope=SCOPE, key="sensor.max", value=1e308).value == 1e308


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_http_refuses_a_non_finite_value(mem: Memory, server: httpx.Client, literal: str) -> None:
    before = len(mem.events(scope=SCOPE))
    body = '{"text": "the sensor reads nothing", "key": "sensor.temp", "value": ' + literal + "}"
    error = _refused(server.post("/items", content=body, headers={"content-type": "application/json"}))
    # 1e999 is a finite JSON number no float holds: refused by its spelling, not as "inf" (probe 6, finding 7)
    expected = "value holds the number 1e999, beyond what a float holds" if literal == "1e999" else "NaN or infinity"
    assert expected in error, error
    assert len(mem.events(scope=SCOPE)) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"text": "x", "importance": "0.5"}, "importance"),
        ({"text": "x", "authority": "1"}, "authority"),
        ({"text": "x", "confidence": True}, "confidence"),
        ({"text": "x", "durability": "0.2"}, "durability"),
        ({"text": "x", "key": "a.b", "value": True}, "value"),
    ],
)
def test_http_remember_takes_numbers_as_python_does(
    mem: Memory, server: httpx.Client, body: dict[str, Any], field: str
) -> None:
    before = len(mem.events(scope=SCOPE))
    error = _refused(server.post("/items", json=body))
    assert field in error, error
    assert len(mem.events(scope=SCOPE)) == before
    with pytest.raises(InvalidInputError):  # the Python face refuses the same input
        mem.remember(**{"scope": SCOPE, **body})


def test_http_other_numbers_are_not_coerced_either(mem: Memory, server: httpx.Client) -> None:
    item = mem.remember("Alice likes tea", scope=SCOPE)
    other = mem.remember("Alice likes coffee", scope=SCOPE)
    before = len(mem.events(scope=SCOPE))
    assert "k" in _refused(server.post("/recall", json={"query": "tea", "k": "5"}))
    assert "k" in _refused(server.post("/recall", json={"query": "tea", "k": 2.0}))
    assert "min_authority" in _refused(server.post("/recall", json={"query": "tea", "min_authority": "0.1"}))
    assert "include_history" in _refused(server.post("/recall", json={"query": "tea", "include_history": "yes"}))
    assert "budget_tokens" in _refused(server.post("/context", json={"query": "tea", "budget_tokens": "80"}))
    link = {"src": item.id, "dst": other.id, "type": "supports", "authority": "0.9"}
    assert "authority" in _refused(server.post("/edges", json=link))
    revise = {"text": "Alice likes green tea", "expected_version": "1"}
    assert "expected_version" in _refused(server.post(f"/items/{item.id}/revise", json=revise))
    assert "priority" in _refused(server.post("/intents", json={"label": "tea", "priority": "0.9"}))
    assert len(mem.events(scope=SCOPE)) == before
    # Well-typed input still works, times included (strings, as JSON carries them).
    ok = server.post("/items", json={"text": "Bob likes tea", "importance": 1, "valid_from": "2024-02-29T10:00:00Z"})
    assert ok.status_code == 201, ok.text
    assert json.loads(ok.text)["scores"]["importance"] == 1.0
    assert server.post("/recall", json={"query": "tea", "k": 3, "as_of": "2030-01-01T00:00:00Z"}).status_code == 200
