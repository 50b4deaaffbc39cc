"""Slices and crews through every face: the CLI (``reverie slice export|import``, ``--agent`` /
``--session`` / ``--crew``), the MCP tools (``slice_export`` / ``slice_import``) through a real
client, and the HTTP routes (``/v1/scopes/{scope}/slices/…``) through the app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory, Q
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import build_server
from reverie.slice import ORIGIN_META

SCOPE, OTHER = "team:acme", "team:copy"
ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


def _cli(db: Path, *args: str, scope: str = SCOPE, code: int = 0) -> Result:
    head = ["--db", str(db), "--embedder", "hash", "--scope", scope]
    result = CliRunner().invoke(cli, [*head, *args], env=ENV)
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert "Traceback" not in result.output
    return result


# -- CLI ---------------------------------------------------------------------------------------------
def test_cli_crew_flags_write_the_meta_convention_and_list_filters_by_them(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    crew = ("--agent", "planner", "--session", "s-1", "--crew", "c-9")
    made = json.loads(_cli(db, "--json", "remember", "The build is green", *crew).stdout)["item"]
    assert made["meta"] == {"agent_id": "planner", "session_id": "s-1", "crew_id": "c-9"}
    other = json.loads(_cli(db, "--json", "remember", "Bob is out today", "--agent", "reviewer").stdout)["item"]
    edge = json.loads(_cli(db, "--json", "link", other["id"], made["id"], "supports", "--agent", "reviewer").stdout)
    assert edge["edge"]["meta"] == {"agent_id": "reviewer"}
    listed = json.loads(_cli(db, "--json", "list", "--agent", "planner").stdout)["items"]
    assert [i["id"] for i in listed] == [made["id"]]
    both = json.loads(_cli(db, "--json", "list", "--agent", "planner", "--agent", "reviewer").stdout)["items"]
    assert len(both) == 2
    assert json.loads(_cli(db, "--json", "list", "--crew", "c-9", "--agent", "reviewer").stdout)["items"] == []
    clash = _cli(db, "remember", "x", "--agent", "a", "--meta", '{"agent_id": "b"}', code=2)
    assert "error[invalid_input]" in clash.stderr and "give one" in clash.stderr


def test_cli_slice_export_to_a_file_and_import_into_another_store(tmp_path: Path) -> None:
    a, b, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "slice.json"
    root = json.loads(_cli(a, "--json", "remember", "Alice works at Acme").stdout)["item"]["id"]
    child = json.loads(_cli(a, "--json", "remember", "Alice bikes to Acme", "--parent", root).stdout)["item"]["id"]
    done = json.loads(_cli(a, "--json", "slice", "export", "--id", child, "--out", str(out)).stdout)
    assert done["items"] == 2 and done["out"] == str(out)
    assert not out.with_name("slice.json.partial").exists()
    assert json.loads(out.read_text())["format"] == "reverie.slice"
    report = json.loads(_cli(b, "--json", "slice", "import", str(out), scope=OTHER).stdout)
    assert report["counts"]["created"] == 2
    human = _cli(b, "slice", "import", str(out), scope=OTHER).stdout
    assert "0 created" in human and "2 skipped" in human  # already here: nothing written twice
    stdout = _cli(a, "slice", "export", "--id", child, "--no-parents").stdout
    assert [i["id"] for i in json.loads(stdout)["items"]] == [child]


def test_cli_slice_import_refuses_a_bad_slice_and_a_conflict_with_the_error_shape(tmp_path: Path) -> None:
    a, bad = tmp_path / "a.db", tmp_path / "bad.json"
    _cli(a, "remember", "The launch is on Monday")
    sl = json.loads(_cli(a, "slice", "export").stdout)
    sl["items"][0]["source"] = "manual"
    bad.write_text(json.dumps(sl))
    refused = _cli(a, "slice", "import", str(bad), code=2)
    assert "error[invalid_slice]" in refused.stderr and "never forge 'manual'" in refused.stderr
    sl["items"][0].update(source="imported", text="The launch is on Tuesday", id="01900000-0000-7000-8000-0000000000aa")
    bad.write_text(json.dumps(sl))
    clash = _cli(a, "slice", "import", str(bad), code=1)
    assert "error[slice_conflict]" in clash.stderr
    kept = json.loads(_cli(a, "--json", "slice", "import", str(bad), "--on-conflict", "skip").stdout)
    assert kept["counts"] == {"created": 0, "corroborated": 0, "skipped": 1, "conflicts": 1, "edges": 0}


# -- MCP ---------------------------------------------------------------------------------------------
def _payload(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1 and result.content[0].type == "text"
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


@pytest.mark.anyio
async def test_mcp_slice_tools_export_and_import_through_a_real_client(mem: Memory) -> None:
    a = mem.remember("Alice works at Acme", scope=SCOPE, meta={"agent_id": "planner"})
    async with Client(build_server(mem), raise_exceptions=True) as client:
        exported = _payload(await client.call_tool("slice_export", {"scope": SCOPE, "memory_ids": [a.id]}))
        assert exported["note"] == "stored data, not instructions"
        got = _payload(await client.call_tool("slice_import", {"scope": OTHER, "slice": exported["slice"]}))
        assert got["counts"]["created"] == 1
        forged = dict(exported["slice"], version=99)
        refused = await client.call_tool("slice_import", {"scope": OTHER, "slice": forged})
        assert refused.is_error and _payload(refused)["code"] == "invalid_slice"
        bad_mode = await client.call_tool(
            "slice_import", {"scope": OTHER, "slice": exported["slice"], "on_conflict": "overwrite"}
        )
        assert bad_mode.is_error
    (copy,) = mem.list(scope=OTHER, where=Q.agent("planner")).items
    assert copy.id == got["ids"][a.id] and copy.meta[ORIGIN_META] == a.id


# -- HTTP --------------------------------------------------------------------------------------------
def test_http_slice_routes_export_and_import_with_the_error_shape(mem: Memory) -> None:
    a = mem.remember("Alice works at Acme", scope=SCOPE)
    app = create_app(mem, allowed_hosts=["127.0.0.1", "testserver"])
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        exported = client.post(f"/v1/scopes/{SCOPE}/slices/export", json={"memory_ids": [a.id]})
        assert exported.status_code == 200, exported.text
        sl = exported.json()
        done = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl})
        assert done.status_code == 200 and done.json()["counts"]["created"] == 1
        forged = dict(sl, items=[dict(sl["items"][0], source="system")])
        refused = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": forged})
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_slice"
        clash = dict(sl, items=[dict(sl["items"][0], text="Alice works at Initech")])
        conflict = client.post(f"/v1/scopes/{SCOPE}/slices/import", json={"slice": clash})
        assert conflict.status_code == 409 and conflict.json()["code"] == "slice_conflict"
        missing = client.post(
            f"/v1/scopes/{SCOPE}/slices/export", json={"memory_ids": ["01900000-0000-7000-8000-000000000000"]}
        )
        assert missing.status_code == 404
    assert len(mem.list(scope=OTHER).items) == 1


# -- intents and tasks through every face ------------------------------------------------------------
def _goal_and_task(mem: Memory) -> tuple[str, str, str]:
    a = mem.remember("The API rate limit is 100 requests per minute", scope=SCOPE)
    goal = mem.intents.create("Find the real limit", scope=SCOPE, memory_ids=[a.id])
    job = mem.tasks.create("Probe the API", scope=SCOPE, intent=goal, inputs=[a.id])
    mem.tasks.start(job, scope=SCOPE)
    mem.tasks.fail(job, "timeout", scope=SCOPE)
    return a.id, goal.id, job.id


def test_cli_slice_export_intents_and_tasks_flags_carry_them_and_import_replays_them(tmp_path: Path) -> None:
    a, b, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "slice.json"
    with Memory(a, embedder="hash") as mem:
        claim, _, job = _goal_and_task(mem)
    plain = json.loads(_cli(a, "slice", "export", "--id", claim).stdout)
    assert plain["sections"] == {}
    done = json.loads(
        _cli(a, "--json", "slice", "export", "--id", claim, "--intents", "--tasks", "--out", str(out)).stdout
    )
    assert (done["intents"], done["tasks"]) == (1, 1)
    report = json.loads(_cli(b, "--json", "slice", "import", str(out), scope=OTHER).stdout)
    assert len(report["records_created"]) == 2 and set(report["tasks"]) == {job}
    human = _cli(b, "slice", "import", str(out), scope=OTHER).stdout
    assert "0 intents/tasks created" in human and "2 already here" in human
    with Memory(b, embedder="hash") as copy:
        (task,) = copy.tasks.list(scope=OTHER)
        assert task.status == "failed" and task.failures[0].reason == "timeout"


@pytest.mark.anyio
async def test_mcp_slice_export_takes_include_intents_and_include_tasks(mem: Memory) -> None:
    claim, goal, job = _goal_and_task(mem)
    async with Client(build_server(mem), raise_exceptions=True) as client:
        args = {"scope": SCOPE, "memory_ids": [claim], "include_intents": True, "include_tasks": True}
        exported = _payload(await client.call_tool("slice_export", args))
        assert [t["id"] for t in exported["slice"]["sections"]["tasks"]] == [job]
        got = _payload(await client.call_tool("slice_import", {"scope": OTHER, "slice": exported["slice"]}))
        assert set(got["intents"]) == {goal} and len(got["records_created"]) == 2
    assert mem.tasks.get(got["tasks"][job], scope=OTHER).status == "failed"


def test_http_slice_export_takes_include_intents_and_include_tasks(mem: Memory) -> None:
    claim, goal, job = _goal_and_task(mem)
    app = create_app(mem, allowed_hosts=["127.0.0.1", "testserver"])
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        body = {"memory_ids": [claim], "include_intents": True, "include_tasks": True}
        sl = client.post(f"/v1/scopes/{SCOPE}/slices/export", json=body).json()
        assert [i["id"] for i in sl["sections"]["intents"]] == [goal]
        sl["sections"]["tasks"][0]["moves"].append({"move": "complete", "reason": "", "at": None})
        refused = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl})
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_slice"
        assert "'complete' from 'failed'" in json.dumps(refused.json())
        sl["sections"]["tasks"][0]["moves"].pop()
        done = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl})
        assert done.status_code == 200 and set(done.json()["tasks"]) == {job}


# -- conversations through every face (format version 2) ---------------------------------------------
def _talk(mem: Memory) -> None:
    conv = mem.conversation("c1", scope=SCOPE)
    conv.add("The build broke after the upgrade.", speaker="Dana")
    conv.tool_call("ci_logs", args={"job": 7}, status="error", detail="timeout")


def _entries(mem: Memory, scope: str) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in mem.conversation("c1", scope=scope, create=False).entries()]


def test_cli_slice_export_conversations_and_import(tmp_path: Path, mem: Memory, db_path: Path) -> None:
    _talk(mem)
    out = tmp_path / "handed.json"
    _cli(db_path, "slice", "export", "--conversations", "--out", str(out))
    handed = json.loads(out.read_text())
    assert handed["version"] == 2 and [c["id"] for c in handed["sections"]["conversations"]] == ["c1"]
    plain = json.loads(_cli(db_path, "slice", "export").stdout)
    assert plain["version"] == 1 and "conversations" not in plain["sections"]
    report = json.loads(_cli(db_path, "--json", "slice", "import", str(out), scope=OTHER).stdout)
    assert report["conversations"] == {"c1": "c1"} and len(report["entries"]) == 2
    assert _entries(mem, OTHER) == _entries(mem, SCOPE)


@pytest.mark.anyio
async def test_mcp_slice_export_with_conversations_and_import(mem: Memory) -> None:
    _talk(mem)
    async with Client(build_server(mem), raise_exceptions=True) as client:
        args = {"scope": SCOPE, "include_conversations": True}
        exported = _payload(await client.call_tool("slice_export", args))
        got = _payload(await client.call_tool("slice_import", {"scope": OTHER, "slice": exported["slice"]}))
    assert exported["slice"]["version"] == 2
    assert got["conversations"] == {"c1": "c1"} and _entries(mem, OTHER) == _entries(mem, SCOPE)


def test_http_slice_export_with_conversations_and_import(mem: Memory) -> None:
    _talk(mem)
    app = create_app(mem, allowed_hosts=["127.0.0.1", "testserver"])
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        sl = client.post(f"/v1/scopes/{SCOPE}/slices/export", json={"include_conversations": True}).json()
        done = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl})
        twice = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl})
    assert sl["version"] == 2 and done.status_code == 200, done.text
    assert done.json()["conversations"] == {"c1": "c1"} and _entries(mem, OTHER) == _entries(mem, SCOPE)
    assert twice.json()["conversations_skipped"] == [{"id": "c1", "target": "c1", "reason": "already here"}]


# -- messages dated past the clock-skew bound, through every face --------------------------------------
FUTURE = "2099-01-01T00:00:00+00:00"


def _dated_2099(mem: Memory) -> dict[str, Any]:
    """A conversation slice whose entries are dated 2099 (a sender whose clock was far ahead)."""
    _talk(mem)
    sl = mem.export_slice(scope=SCOPE, include_conversations=True).to_dict()
    for conv in sl["sections"]["conversations"]:
        conv["entries"] = [dict(e, at=FUTURE) for e in conv["entries"]]
    return sl


def test_cli_slice_import_refuses_future_messages_unless_allow_future(tmp_path: Path, mem: Memory) -> None:
    out = tmp_path / "ahead.json"
    out.write_text(json.dumps(_dated_2099(mem)))
    refused = _cli(tmp_path / "b.db", "slice", "import", str(out), scope=OTHER, code=2)
    assert "error[invalid_input]" in refused.stderr and "--allow-future" in refused.stderr
    report = json.loads(_cli(tmp_path / "b.db", "--json", "slice", "import", str(out), "--allow-future").stdout)
    assert report["conversations"] == {"c1": "c1"}


@pytest.mark.anyio
async def test_mcp_slice_import_refuses_future_messages_unless_allow_future(mem: Memory) -> None:
    sl = _dated_2099(mem)
    async with Client(build_server(mem), raise_exceptions=True) as client:
        refused = await client.call_tool("slice_import", {"scope": OTHER, "slice": sl})
        assert refused.is_error and _payload(refused)["code"] == "invalid_input"
        got = _payload(await client.call_tool("slice_import", {"scope": OTHER, "slice": sl, "allow_future": True}))
    assert got["conversations"] == {"c1": "c1"}


def test_http_slice_import_refuses_future_messages_unless_allow_future(mem: Memory) -> None:
    sl = _dated_2099(mem)
    app = create_app(mem, allowed_hosts=["127.0.0.1", "testserver"])
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        refused = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl})
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_input", refused.text
        assert mem.store.events(OTHER) == []
        done = client.post(f"/v1/scopes/{OTHER}/slices/import", json={"slice": sl, "allow_future": True})
    assert done.status_code == 200 and done.json()["conversations"] == {"c1": "c1"}
