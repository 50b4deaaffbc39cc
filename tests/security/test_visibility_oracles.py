"""What a principal's agenda writes, accepted suggestions and the event log say about hidden claims.

Regressions found by an outside probe (FINDINGS #4, #5, #19), each an oracle for a claim the
principal may not see:

- #4: ``intents.create(memory_ids=[hidden])``, ``tasks.create(inputs=[hidden])`` and
  ``tasks.complete(outputs=[hidden])`` answered ``no item <id> in scope …`` while an unknown id got
  ``the intent names item <id>, which is not in scope …``: a principal could test guessed ids for
  existence. Now the error is byte-identical, on Python, HTTP and MCP, and is raised at the same
  point of the checks (a task that may not complete says so for a hidden id as for an unknown one).
- #5: an accepted suggestion about a hidden claim showed every principal that claim's ``kind``
  (an open vocabulary) and its importance / authority in the intent's label and reason.
- #19: the owner's ``alert.dismissed`` event for an alert over hidden claims was in a
  principal's event log, although the alerts themselves are withheld from it.

Run on every backend (SQLite file, reference store, PostgreSQL).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory, ReverieError
from reverie.http import create_app
from reverie.mcp import build_server

from .kit import dump

sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))

from mcp_support import fail

SCOPE = "team:ops"
OPS, BOB = "agent:ops", "agent:bob"
UNKNOWN = "019b8d62-7a80-7fff-bfff-c1a0c2094caf"  # well-formed, exists nowhere
OPERATOR = "operator-token-0123456789"
AGENT = "agent-bob-token-0123456789"


def _seed(mem: Memory) -> dict[str, str]:
    hidden = mem.remember("zqhid launch code 7731", scope=SCOPE, visibility=[OPS]).id
    goal = mem.intents.create("goal", scope=SCOPE)
    closed = mem.intents.create("done goal", scope=SCOPE)
    mem.intents.complete(closed, scope=SCOPE)
    pending = mem.tasks.create("not started", scope=SCOPE, intent=goal)
    running = mem.tasks.create("started", scope=SCOPE, intent=goal)
    mem.tasks.start(running, scope=SCOPE)
    return {"hidden": hidden, "goal": goal.id, "closed": closed.id, "pending": pending.id, "running": running.id}


def _answer(call: Callable[[], Any], named: str) -> str:
    """What the call answered, with the id it was given replaced (so two ids compare)."""
    try:
        call()
    except ReverieError as e:
        return f"{e.code}: {e}".replace(named, "<ID>")
    return "accepted"


def _writes(bob: Memory, ids: dict[str, str]) -> dict[str, Callable[[str], Any]]:
    return {
        "intent memory_ids": lambda i: bob.intents.create("l", scope=SCOPE, memory_ids=[i]),
        "intent under a closed parent": lambda i: bob.intents.create(
            "l", scope=SCOPE, parent=ids["closed"], memory_ids=[i]
        ),
        "task inputs": lambda i: bob.tasks.create("t", scope=SCOPE, intent=ids["goal"], inputs=[i]),
        "task inputs, closed intent": lambda i: bob.tasks.create("t", scope=SCOPE, intent=ids["closed"], inputs=[i]),
        "task outputs": lambda i: bob.tasks.complete(ids["running"], scope=SCOPE, outputs=[i]),
        "task outputs, not running": lambda i: bob.tasks.complete(ids["pending"], scope=SCOPE, outputs=[i]),
        "a claim's id as the intent moved": lambda i: bob.intents.pause(i, scope=SCOPE),
        "a claim's id as the task moved": lambda i: bob.tasks.start(i, scope=SCOPE),
        "a claim's id as the parent intent": lambda i: bob.intents.create("l", scope=SCOPE, parent=i),
        "a claim's id as the task's intent": lambda i: bob.tasks.create("t", scope=SCOPE, intent=i),
    }


def test_an_agenda_write_naming_a_hidden_claim_answers_as_for_an_unknown_id(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    for name, write in _writes(bob, ids).items():
        hidden = _answer(lambda w=write: w(ids["hidden"]), ids["hidden"])  # type: ignore[misc]
        unknown = _answer(lambda w=write: w(UNKNOWN), UNKNOWN)  # type: ignore[misc]
        assert hidden == unknown, name
        assert hidden != "accepted", name
    assert any_mem.tasks.get(ids["running"], scope=SCOPE).status == "running"  # nothing was written


def test_the_owner_and_the_claims_audience_still_name_the_claim(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    ops = any_mem.as_principal(OPS)
    assert ops.intents.create("mine", scope=SCOPE, memory_ids=[ids["hidden"]]).memory_ids == (ids["hidden"],)
    done = any_mem.tasks.complete(ids["running"], scope=SCOPE, outputs=[ids["hidden"]])
    assert done.outputs == (ids["hidden"],)


def test_http_answers_a_hidden_claim_as_an_unknown_id(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with Memory(db, embedder="hash") as owner:
        ids = _seed(owner)
    base = f"/v1/scopes/{SCOPE}"
    agent = {"Authorization": f"Bearer {AGENT}"}
    with Memory(db, embedder="hash") as mem:
        app = create_app(mem, token=OPERATOR, principals={AGENT: BOB})
        with TestClient(app, base_url="http://127.0.0.1") as http:
            posts: list[tuple[str, Callable[[str], dict[str, Any]]]] = [
                (f"{base}/intents", lambda i: {"label": "l", "memory_ids": [i]}),
                (f"{base}/tasks", lambda i: {"action": "t", "intent": ids["goal"], "inputs": [i]}),
                (f"{base}/tasks/{ids['running']}/complete", lambda i: {"outputs": [i]}),
            ]
            for path, body in posts:
                got = {}
                for named in (ids["hidden"], UNKNOWN):
                    r = http.post(path, json=body(named), headers=agent)
                    got[named] = (r.status_code, r.text.replace(named, "<ID>"))
                assert got[ids["hidden"]] == got[UNKNOWN], path
                assert got[UNKNOWN][0] == 404, got[UNKNOWN]


@pytest.mark.anyio
async def test_mcp_answers_a_hidden_claim_as_an_unknown_id(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash") as owner:
        ids = _seed(owner)
    with Memory(db, embedder="hash", principal=BOB) as bob:
        async with Client(build_server(bob), mode="legacy", raise_exceptions=True) as client:
            tools: list[tuple[str, Callable[[str], dict[str, Any]]]] = [
                ("intent_create", lambda i: {"label": "l", "scope": SCOPE, "memory_ids": [i]}),
                ("task_create", lambda i: {"action": "t", "scope": SCOPE, "intent": ids["goal"], "inputs": [i]}),
                ("task_move", lambda i: {"id": ids["running"], "move": "complete", "scope": SCOPE, "outputs": [i]}),
            ]
            for tool, args in tools:
                got = {}
                for named in (ids["hidden"], UNKNOWN):
                    result = await fail(client, tool, **args(named))
                    got[named] = json.dumps(result, sort_keys=True).replace(named, "<ID>")
                assert got[ids["hidden"]] == got[UNKNOWN], tool
                assert "not_found" in got[UNKNOWN], got[UNKNOWN]


def test_an_accepted_suggestion_about_a_hidden_claim_shows_no_attribute_of_it(any_mem: Memory) -> None:
    any_mem.remember(
        "zqhid launch code 7731", scope=SCOPE, kind="zqkind", visibility=[OPS], importance=0.95, authority=0.1
    )
    ops = any_mem.as_principal(OPS)
    (suggestion,) = ops.intents.suggest(scope=SCOPE)
    accepted = ops.intents.accept(suggestion)
    bob = any_mem.as_principal(BOB)
    shown = bob.intents.get(accepted.id, scope=SCOPE)
    seen = dump(
        [i.to_dict() for i in bob.intents.list(scope=SCOPE)]
        + [shown.to_dict()]
        + [e.to_dict() for e in bob.intents.history(accepted.id, scope=SCOPE)]
        + [e.to_dict() for e in bob.events(scope=SCOPE)]
        + [bob.export_slice(scope=SCOPE, include_intents=True).to_dict()]
    )
    assert "zqkind" not in seen and "0.95" not in seen and "0.10" not in seen
    assert shown.label == "Confirm or correct the uncertain claim" and shown.reason == ""
    # The claim's audience (and the owner) keep the suggestion's words.
    assert ops.intents.get(accepted.id, scope=SCOPE).label == suggestion.label
    assert any_mem.intents.get(accepted.id, scope=SCOPE).reason == suggestion.reason


def test_an_accepted_suggestion_about_a_visible_claim_is_shown_as_written(any_mem: Memory) -> None:
    public = any_mem.remember("zqpub public note", scope=SCOPE, kind="zqkind", importance=0.95, authority=0.1)
    any_mem.remember("zqhid other", scope=SCOPE, visibility=[OPS])  # something is hidden from bob
    suggestion = next(s for s in any_mem.intents.suggest(scope=SCOPE) if s.memory_ids == (public.id,))
    accepted = any_mem.intents.accept(suggestion)
    shown = any_mem.as_principal(BOB).intents.get(accepted.id, scope=SCOPE)
    assert (shown.label, shown.reason) == (suggestion.label, suggestion.reason)


def test_the_dismissal_of_an_alert_over_hidden_claims_is_not_in_a_principals_log(any_mem: Memory) -> None:
    any_mem.remember(
        "zqhid keys in drawer 7", scope=SCOPE, confidence=0.95, authority=0.3, source="inferred", visibility=[OPS]
    )
    any_mem.remember("zqpub lunch", scope=SCOPE)
    any_mem.dream(scope=SCOPE)
    alert = any_mem.alerts(scope=SCOPE)[0]
    any_mem.dismiss_alert(alert.id, scope=SCOPE, reason="ops checked the drawer")
    bob = any_mem.as_principal(BOB)
    assert bob.alerts(scope=SCOPE) == []
    events = bob.events(scope=SCOPE, limit=10_000)
    assert [e for e in events if e.type == "alert.dismissed"] == []
    assert alert.id not in dump([e.to_dict() for e in events])
    # The claim's audience sees what the owner sees (nothing is hidden from it here).
    ops_events = any_mem.as_principal(OPS).events(scope=SCOPE, limit=10_000)
    assert [e.payload["alert"] for e in ops_events if e.type == "alert.dismissed"] == [alert.id]
