"""One way to say "not a conflict" on every face, with Python's validation and words (probe 7 #5).

Before: Python could ``unlink`` a false positive (and the next dream pass linked it again); the CLI,
HTTP and MCP had only ``resolve``, which supersedes one of two true claims. Now
``Memory.dismiss_contradiction``, ``reverie dismiss-contradiction``, ``POST
…/contradictions/{edge_id}/dismiss`` and the MCP tool ``dismiss_contradiction`` close it for good,
and each refuses bad input with the same code and message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from reverie import ManualClock, Memory, ReverieError
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp.server import call_tool

SCOPE = "user:alice"
MISSING = "01900000-0000-7000-8000-000000000000"  # well-formed, never issued
WHY = "both true: summer and winter hours"

#: (ok, code, message) of one call on one face.
Outcome = tuple[bool, str, str]
Face = Callable[[str, str], Outcome]


def _conflict(mem: Memory, clock: ManualClock) -> tuple[str, str, str]:
    a = mem.remember("The pool opens at 7 am.", scope=SCOPE, source="user_stated")
    clock.advance(days=1)
    b = mem.remember_checked("The pool opens at 9 am.", scope=SCOPE, source="user_stated")
    (found,) = b.conflicts
    return a.id, b.item.id, found.edge_id


@pytest.fixture
def faces(mem: Memory, db_path: Path) -> Iterator[dict[str, Face]]:
    def python(conflict: str, reason: str) -> Outcome:
        try:
            mem.dismiss_contradiction(conflict, scope=SCOPE, reason=reason)
        except ReverieError as exc:
            return False, exc.code, exc.message
        return True, "", ""

    def cli_face(conflict: str, reason: str) -> Outcome:
        head = ["--db", str(db_path), "--embedder", "hash", "--scope", SCOPE, "--json"]
        env: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
        done = CliRunner().invoke(cli, [*head, "dismiss-contradiction", conflict, "--reason", reason], env=env)
        if done.exit_code == 0:
            return True, "", ""
        code, _, message = done.stderr.strip().partition(": ")  # "error[code]: message"
        return False, code.removeprefix("error[").removesuffix("]"), message

    with TestClient(create_app(mem), base_url="http://127.0.0.1", raise_server_exceptions=False) as client:

        def http(conflict: str, reason: str) -> Outcome:
            r = client.post(f"/v1/scopes/{SCOPE}/contradictions/{conflict}/dismiss", json={"reason": reason})
            body = r.json()
            return (True, "", "") if r.status_code == 200 else (False, body["code"], body["error"])

        def mcp(conflict: str, reason: str) -> Outcome:
            result = call_tool(mem, "dismiss_contradiction", {"conflict": conflict, "scope": SCOPE, "reason": reason})
            body = json.loads(result.content[0].text)
            return (False, body["code"], body["error"]) if result.is_error else (True, "", "")

        yield {"python": python, "cli": cli_face, "http": http, "mcp": mcp}


@pytest.mark.parametrize("face", ["python", "cli", "http", "mcp"])
def test_every_face_closes_a_false_positive_for_good(
    mem: Memory, clock: ManualClock, faces: dict[str, Face], face: str
) -> None:
    a, b, edge = _conflict(mem, clock)
    assert faces[face](edge, WHY) == (True, "", "")
    assert mem.contradictions(scope=SCOPE) == []
    clock.advance(days=1)
    mem.dream(scope=SCOPE)
    assert mem.contradictions(scope=SCOPE) == [] and mem.detect_conflicts(b, scope=SCOPE) == []
    assert mem.get(a, scope=SCOPE).is_current and mem.get(b, scope=SCOPE).is_current
    (unlinked,) = [e for e in mem.events(scope=SCOPE, limit=1000) if e.type == "edge.unlinked"]
    assert (unlinked.payload["edge_id"], unlinked.payload["reason"]) == (edge, WHY)


def test_every_face_refuses_bad_input_with_the_same_code_and_words(
    mem: Memory, clock: ManualClock, faces: dict[str, Face]
) -> None:
    a, b, edge = _conflict(mem, clock)
    supports = mem.link(a, b, "supports", scope=SCOPE).id
    mem.dismiss_contradiction(edge, scope=SCOPE)
    cases = {
        "malformed": ("nope", "invalid_input", "conflict 'nope' is not a reverie id"),
        "unknown": (MISSING, "not_found", f"no open conflict {MISSING}"),
        "not a contradiction": (supports, "invalid_input", "not a contradiction: close it with unlink instead"),
        "already closed": (edge, "already_closed", f"conflict {edge} is already closed"),
    }
    for name, (conflict, code, words) in cases.items():
        seen = {face: call(conflict, "") for face, call in faces.items()}
        assert seen["python"][:2] == (False, code), (name, seen)
        assert words in seen["python"][2], (name, seen)
        assert all(outcome == seen["python"] for outcome in seen.values()), (name, seen)
