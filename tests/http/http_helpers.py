"""Assertions shared by the HTTP tests (a uniquely named module: tests/ has no packages)."""

from __future__ import annotations

from typing import Any

BASE = "http://127.0.0.1"
SCOPE = "user:alice"


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The one error shape: exactly code, error, status — and no traceback text."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "error", "status"}
    assert body["status"] == status
    assert isinstance(body["error"], str) and "Traceback" not in body["error"]
    if code is not None:
        assert body["code"] == code
    return body


def open_conflict(mem: Any, a: str, b: str) -> str:
    """The id of the conflict edge between items ``a`` and ``b``: the one conflict detection
    found if it is on, else a hand-made ``contradicts`` link (so tests hold either way)."""
    for alert in mem.contradictions(scope=SCOPE):
        if {alert.a.id, alert.b.id} == {a, b}:
            return str(alert.edge_id)
    return str(mem.link(a, b, "contradicts", scope=SCOPE).id)
