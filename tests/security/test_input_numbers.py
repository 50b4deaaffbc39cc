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
    assert mem.remember("the sensor reads 1e308", scope=SCOPE, key="sensor.max", value=1e308).value == "1e+308"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_http_refuses_a_non_finite_value(mem: Memory, server: httpx.Client, literal: str) -> None:
    before = len(mem.events(scope=SCOPE))
    body = '{"text": "the sensor reads nothing", "key": "sensor.temp", "value": ' + literal + "}"
    error = _refused(server.post("/items", content=body, headers={"content-type": "application/json"}))
    assert "NaN or infinity" in error, error
    assert len(mem.events(scope=SCOPE)) == before
