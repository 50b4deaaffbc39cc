"""Intents and tasks as a principal sees them: usable, and naming no claim it may not see.

Regression: every agenda read of a principal (``Memory(principal=...)``, ``as_principal``, a
token mapped to a principal, ``serve --principal``) failed with ``invalid_input: the store
backend VisibleStore keeps no intents or tasks``, and the review page hid the agenda panel.
Intents and tasks carry no audience of their own (everyone in the scope sees them, as before);
what they *name* is filtered: a hidden claim's id is left out of ``memory_ids`` / ``inputs`` /
``outputs``, out of the free text reverie or the owner wrote (an accepted suggestion's label
quotes its claim's id), out of their history, and a filter on it matches nothing. A principal's
write naming a hidden claim gets the ``not_found`` an unknown id gets.

The filtering is ``VisibleStore``'s, over each backend's own agenda reads: run on every backend.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory, NotFoundError
from reverie.http import create_app
from reverie.mcp import build_server

sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))

from mcp_support import call

SCOPE = "team:ops"
OPS, BOB = "agent:ops", "agent:bob"
OPERATOR = "operator-token-0123456789"
AGENT = "agent-bob-token-0123456789"


def _seed(mem: Memory) -> dict[str, str]:
    """An intent and a task about a hidden claim and a public one; an accepted suggestion quoting the hidden id."""
    hidden = mem.remember("zqhid secret plan", scope=SCOPE, visibility=[OPS], importance=0.9, authority=0.1).id
    public = mem.remember("zqpub public note", scope=SCOPE, importance=0.9, authority=0.2).id
    quoted = mem.intents.accept(next(s for s in mem.intents.suggest(scope=SCOPE) if s.memory_ids == (hidden,)))
    goal = mem.intents.create("Check the plan", scope=SCOPE, owner="agent-a", memory_ids=[hidden, public])
    task = mem.tasks.create("Ask", scope=SCOPE, intent=goal, agent="agent-a", inputs=[hidden, public])
    mem.tasks.start(task, scope=SCOPE)
    mem.tasks.fail(task, f"lookup of {hidden} timed out", scope=SCOPE)
    mem.tasks.retry(task, scope=SCOPE)
    mem.tasks.complete(task, scope=SCOPE, outputs=[hidden, public])
    open_task = mem.tasks.create("Follow up", scope=SCOPE, intent=goal, inputs=[hidden])
    return {
        "hidden": hidden,
        "public": public,
        "goal": goal.id,
        "quoted": quoted.id,
        "task": task.id,
        "open": open_task.id,
    }


def _clean(text: str, hidden: str) -> None:
    assert hidden not in text and "zqhid" not in text


def test_a_principal_lists_gets_and_suggests_intents_naming_no_hidden_claim(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    listed = bob.intents.list(scope=SCOPE)
    assert {i.id for i in listed} == {ids["goal"], ids["quoted"]}  # intents themselves: everyone in the scope
    goal = bob.intents.get(ids["goal"], scope=SCOPE)
    assert goal.memory_ids == (ids["public"],)
    quoted = bob.intents.get(ids["quoted"], scope=SCOPE)
    assert quoted.memory_ids == () and quoted.label.startswith("Confirm or correct the uncertain")
    history = bob.intents.history(ids["goal"], scope=SCOPE)
    assert [e.type for e in history] == [e.type for e in any_mem.intents.history(ids["goal"], scope=SCOPE)]
    assert bob.intents.children(ids["goal"], scope=SCOPE) == []
    assert bob.intents.list(scope=SCOPE, memory=ids["hidden"]) == []  # no oracle through the filter
    assert [i.id for i in bob.intents.list(scope=SCOPE, memory=ids["public"])] == [ids["goal"]]
    suggested = bob.intents.suggest(scope=SCOPE)
    assert [s.memory_ids for s in suggested] == []  # the public claim is covered by the goal; the hidden one unseen
    seen = [i.to_dict() for i in listed] + [goal.to_dict(), quoted.to_dict()]
    seen += [e.to_dict() for e in history] + [e.to_dict() for e in bob.intents.history(ids["quoted"], scope=SCOPE)]
    _clean(json.dumps(seen), ids["hidden"])
    owner = any_mem.intents.get(ids["goal"], scope=SCOPE)
    assert owner.memory_ids == (ids["hidden"], ids["public"])  # concealment is a read's: stored as written
    assert ids["hidden"] in any_mem.intents.get(ids["quoted"], scope=SCOPE).label


def test_a_principal_lists_and_gets_tasks_naming_no_hidden_claim(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    listed = bob.tasks.list(scope=SCOPE)
    assert {t.id for t in listed} == {ids["task"], ids["open"]}
    task = bob.tasks.get(ids["task"], scope=SCOPE)
    assert task.inputs == (ids["public"],) and task.outputs == (ids["public"],)
    assert task.failures[0].reason.startswith("lookup of") and task.failures[0].reason.endswith("timed out")
    assert bob.tasks.get(ids["open"], scope=SCOPE).inputs == ()
    assert bob.tasks.list(scope=SCOPE, memory=ids["hidden"]) == []
    assert [t.id for t in bob.tasks.list(scope=SCOPE, failed=True)] == [ids["task"]]
    history = bob.tasks.history(ids["task"], scope=SCOPE)
    assert len(history) == len(any_mem.tasks.history(ids["task"], scope=SCOPE))
    seen = [t.to_dict() for t in listed] + [task.to_dict()] + [e.to_dict() for e in history]
    seen += [e.to_dict() for e in bob.events(scope=SCOPE, limit=10_000)]
    _clean(json.dumps(seen), ids["hidden"])
    assert any_mem.tasks.get(ids["task"], scope=SCOPE).inputs == (ids["hidden"], ids["public"])


def test_a_principals_agenda_writes_name_no_hidden_claim_and_return_it_concealed(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    unknown = "00000000-0000-4000-8000-000000000000"
    for bad in (ids["hidden"], unknown):  # the same error for a hidden id as for an unknown one
        with pytest.raises(NotFoundError) as err:
            bob.intents.create("Mine", scope=SCOPE, memory_ids=[bad])
        assert err.value.code == "not_found"
        with pytest.raises(NotFoundError):
            bob.tasks.create("Mine", scope=SCOPE, inputs=[bad])
    moved = bob.tasks.start(ids["open"], scope=SCOPE)  # a move of a record naming a hidden claim
    assert moved.inputs == ()
    paused = bob.intents.pause(ids["goal"], scope=SCOPE, reason="waiting")
    assert paused.memory_ids == (ids["public"],)
    with pytest.raises(NotFoundError):
        bob.tasks.complete(ids["open"], scope=SCOPE, outputs=[ids["hidden"]])
    done = bob.tasks.complete(ids["open"], scope=SCOPE, outputs=[ids["public"]])
    assert done.outputs == (ids["public"],) and done.inputs == ()
    assert any_mem.tasks.get(ids["open"], scope=SCOPE).inputs == (ids["hidden"],)


def test_a_principals_slice_export_carries_its_agenda_without_the_hidden_claim(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    sl = bob.export_slice(scope=SCOPE, include_intents=True, include_tasks=True)
    assert {i.id for i in sl.intents or ()} >= {ids["goal"]}
    _clean(json.dumps(sl.to_dict()), ids["hidden"])


def test_http_api_and_review_page_answer_a_principal_with_its_agenda(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with Memory(db, embedder="hash") as owner:
        ids = _seed(owner)
    base = f"/v1/scopes/{SCOPE}"
    agent = {"Authorization": f"Bearer {AGENT}"}
    with Memory(db, embedder="hash") as mem:
        app = create_app(mem, token=OPERATOR, principals={AGENT: BOB})
        with TestClient(app, base_url="http://127.0.0.1") as http:
            got = [
                http.get(f"{base}/intents", headers=agent),
                http.get(f"{base}/intents/{ids['goal']}", headers=agent),
                http.get(f"{base}/intents/{ids['quoted']}", headers=agent),
                http.get(f"{base}/intents/suggestions", headers=agent),
                http.get(f"{base}/tasks", headers=agent),
                http.get(f"{base}/tasks/{ids['task']}", headers=agent),
            ]
            for r in got:
                assert r.status_code == 200, r.text
                _clean(r.text, ids["hidden"])
            assert got[1].json()["intent"]["memory_ids"] == [ids["public"]]
    bob = Memory(db, embedder="hash", principal=BOB)  # the review page served as a principal
    with TestClient(create_app(bob), base_url="http://127.0.0.1") as page:
        html = page.get("/", params={"scope": SCOPE})
        assert html.status_code == 200 and 'class="agenda"' in html.text and "Check the plan" in html.text
        _clean(html.text, ids["hidden"])
        item = page.get(f"/items/{ids['public']}", params={"scope": SCOPE})
        assert item.status_code == 200 and 'class="produced"' in item.text
        _clean(item.text, ids["hidden"])
    bob.close()


@pytest.mark.anyio
async def test_mcp_agenda_tools_answer_a_principal(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash") as owner:
        ids = _seed(owner)
    with Memory(db, embedder="hash", principal=BOB) as bob:
        async with Client(build_server(bob), mode="legacy", raise_exceptions=True) as client:
            seen: list[Any] = [
                await call(client, "intent_list", scope=SCOPE),
                await call(client, "intent_get", id=ids["goal"], scope=SCOPE),
                await call(client, "intent_suggest", scope=SCOPE),
                await call(client, "task_list", scope=SCOPE),
                await call(client, "task_get", id=ids["task"], scope=SCOPE),
                await call(client, "slice_export", scope=SCOPE, include_intents=True, include_tasks=True),
            ]
            _clean(json.dumps(seen), ids["hidden"])
