"""Regression (outside probe #9): every named intent / task verb takes ``expected_version``, like ``transition``.

A stale caller is refused with ``version_conflict`` and nothing is written; the right version applies
the move. On the faces (CLI, HTTP, MCP) every move takes the version, and an unknown argument is the
one error shape, never a raw ``TypeError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agenda_kit import SCOPE, state_of
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory, VersionConflictError
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import build_server
from reverie.model import agenda as ag

Verb = Callable[..., Any]


def _intent_at(mem: Memory, status: str) -> ag.Intent:
    it = mem.intents.create("goal", scope=SCOPE)
    return mem.intents.pause(it, scope=SCOPE) if status == "paused" else it


def _task_at(mem: Memory, status: str) -> ag.Task:
    t = mem.tasks.create("step", scope=SCOPE)
    if status in ("running", "failed"):
        t = mem.tasks.start(t, scope=SCOPE)
    if status == "failed":
        t = mem.tasks.fail(t, "broke", scope=SCOPE)
    return t


INTENT_VERBS: list[tuple[str, str, str]] = [
    ("pause", "active", "paused"),
    ("resume", "paused", "active"),
    ("complete", "active", "completed"),
    ("cancel", "paused", "cancelled"),
]
TASK_VERBS: list[tuple[str, str, str]] = [
    ("start", "pending", "running"),
    ("complete", "running", "completed"),
    ("fail", "running", "failed"),
    ("retry", "failed", "running"),
]


def _task_call(mem: Memory, verb: str, task: ag.Task, version: int) -> ag.Task:
    if verb == "fail":
        return mem.tasks.fail(task, "no answer", scope=SCOPE, expected_version=version)
    method: Verb = getattr(mem.tasks, verb)
    return method(task, scope=SCOPE, expected_version=version)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("verb", "start", "end"), INTENT_VERBS)
def test_named_intent_verbs_take_expected_version(any_mem: Memory, verb: str, start: str, end: str) -> None:
    it = _intent_at(any_mem, start)
    method: Verb = getattr(any_mem.intents, verb)
    before = state_of(any_mem)
    with pytest.raises(VersionConflictError, match=f"version {it.version}, not {it.version + 7}"):
        method(it, scope=SCOPE, expected_version=it.version + 7)
    assert state_of(any_mem) == before
    moved = method(it, scope=SCOPE, expected_version=it.version)
    assert (moved.status, moved.version) == (end, it.version + 1)


@pytest.mark.parametrize(("verb", "start", "end"), TASK_VERBS)
def test_named_task_verbs_take_expected_version(any_mem: Memory, verb: str, start: str, end: str) -> None:
    t = _task_at(any_mem, start)
    before = state_of(any_mem)
    with pytest.raises(VersionConflictError, match=f"version {t.version}, not {t.version + 7}"):
        _task_call(any_mem, verb, t, t.version + 7)
    assert state_of(any_mem) == before
    moved = _task_call(any_mem, verb, t, t.version)
    assert (moved.status, moved.version) == (end, t.version + 1)


def test_a_task_run_completes_and_fails_only_at_its_version(mem: Memory) -> None:
    t = mem.tasks.create("step", scope=SCOPE)
    with mem.tasks.running(t, scope=SCOPE) as run:
        with pytest.raises(VersionConflictError):
            run.complete(expected_version=run.task.version + 1)
        done = run.complete(expected_version=run.task.version)
    assert done.status == "completed"


# -- the faces ------------------------------------------------------------------------------------
def _cli(db: Path, *args: str) -> Any:
    head = ["--db", str(db), "--embedder", "hash", "--scope", SCOPE, "--json"]
    env: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    return CliRunner().invoke(cli, [*head, *args], env=env)


@pytest.mark.parametrize("verb", ["complete", "fail"])
def test_cli_task_complete_and_fail_take_expected_version(tmp_path: Path, verb: str) -> None:
    db = tmp_path / "r.db"
    Memory(db, embedder="hash").close()  # task create makes no store
    task = json.loads(_cli(db, "task", "create", "ask").stdout)["task"]
    json.loads(_cli(db, "task", "start", task["id"]).stdout)
    extra = ["--reason", "no answer"] if verb == "fail" else []
    stale = _cli(db, "task", verb, task["id"], *extra, "--expected-version", "1")
    assert stale.exit_code == 1 and "error[version_conflict]" in stale.stderr, stale.output
    assert "Traceback" not in stale.output
    ok = _cli(db, "task", verb, task["id"], *extra, "--expected-version", "2")
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["task"]["status"] == ("completed" if verb == "complete" else "failed")


def test_http_moves_take_expected_version_and_refuse_unknown_fields(mem: Memory) -> None:
    it = mem.intents.create("goal", scope=SCOPE)
    t = mem.tasks.create("step", scope=SCOPE)
    base = f"/v1/scopes/{SCOPE.replace(':', '%3A')}"
    with TestClient(create_app(mem), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        stale = c.post(f"{base}/intents/{it.id}/pause", json={"expected_version": 5})
        assert (stale.status_code, stale.json()["code"]) == (409, "version_conflict")
        stale = c.post(f"{base}/tasks/{t.id}/start", json={"expected_version": 5})
        assert (stale.status_code, stale.json()["code"]) == (409, "version_conflict")
        odd = c.post(f"{base}/tasks/{t.id}/start", json={"expected_versoin": 1})
        assert (odd.status_code, odd.json()["code"]) == (400, "invalid_input")
        assert c.post(f"{base}/tasks/{t.id}/start", json={"expected_version": 1}).json()["status"] == "running"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_moves_take_expected_version_and_refuse_unknown_arguments(mem: Memory, anyio_backend: str) -> None:
    it = mem.intents.create("goal", scope=SCOPE)
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as c:

        async def call(name: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
            result = await c.call_tool(name, arguments)
            return bool(result.is_error), json.loads(result.content[0].text)

        err, body = await call("intent_move", scope=SCOPE, id=it.id, move="pause", expected_version=5)
        assert err and body["code"] == "version_conflict"
        err, body = await call("intent_move", scope=SCOPE, id=it.id, move="pause", expected_versoin=1)
        assert err and body["code"] == "invalid_input" and "TypeError" not in body["error"]
        err, body = await call("intent_move", scope=SCOPE, id=it.id, move="pause", expected_version=1)
        assert not err and body["intent"]["status"] == "paused"
