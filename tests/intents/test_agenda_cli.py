"""``reverie intent …`` / ``reverie task …``: one ``Memory`` call each, the same refusals in the one error shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from reverie import Memory
from reverie.cli import cli

ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


class Run:
    def __init__(self, db: Path) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str, scope: str = "user:alice") -> Result:
        head = ["--db", str(self.db), "--embedder", "hash", "--scope", scope]
        return self.runner.invoke(cli, [*head, *args], env=ENV)

    def json(self, *args: str, scope: str = "user:alice") -> Any:
        result = self("--json", *args, scope=scope)
        assert result.exit_code == 0, (result.stdout, result.stderr)
        return json.loads(result.stdout)

    def fails(self, exit_code: int, code: str, *args: str, scope: str = "user:alice") -> Result:
        result = self(*args, scope=scope)
        assert result.exit_code == exit_code, (result.stdout, result.stderr)
        assert f"error[{code}]: " in result.stderr and "Traceback" not in result.output
        return result


@pytest.fixture
def run(tmp_path: Path) -> Run:
    Memory(tmp_path / "reverie.db", embedder="hash").close()  # intent / task create make no store
    return Run(tmp_path / "reverie.db")


def test_an_intent_and_its_task_through_the_cli(run: Run) -> None:
    claim = run.json("remember", "Alice may be allergic to peanuts")["item"]["id"]
    goal = run.json("intent", "create", "confirm the allergy", "--owner", "ann", "--memory", claim)["intent"]
    assert (goal["status"], goal["memory_ids"]) == ("active", [claim])
    assert run.json("intent", "pause", goal["id"], "--reason", "later")["intent"]["status"] == "paused"
    task = run.json("task", "create", "ask Alice", "--intent", goal["id"], "--input", claim)["task"]
    run.json("task", "start", task["id"])
    run.json("task", "fail", task["id"], "--reason", "no answer")
    run.json("task", "retry", task["id"])
    done = run.json("task", "complete", task["id"], "--output", claim)["task"]
    assert (done["status"], done["outputs"], done["attempts"]) == ("completed", [claim], 2)
    assert [t["id"] for t in run.json("task", "list", "--failed")["tasks"]] == [task["id"]]
    shown = run.json("intent", "show", goal["id"])
    assert [t["id"] for t in shown["tasks"]] == [task["id"]]
    assert [e["type"] for e in shown["history"]] == ["intent.created", "intent.paused"]
    assert [e["type"] for e in run.json("task", "show", task["id"])["history"]][-1] == "task.completed"
    text = run("intent", "list").stdout
    assert "confirm the allergy" in text and "paused" in text


def test_an_invalid_move_is_refused_in_the_one_error_shape(run: Run) -> None:
    goal = run.json("intent", "create", "goal")["intent"]["id"]
    run.json("intent", "complete", goal)
    err = run.fails(1, "invalid_transition", "intent", "resume", goal)
    assert "it is completed" in err.stderr
    assert run.json("intent", "list")["intents"][0]["status"] == "completed"


def test_a_task_for_another_scopes_intent_is_refused(run: Run) -> None:
    goal = run.json("intent", "create", "Bob's goal", scope="user:bob")["intent"]["id"]
    run.fails(1, "not_found", "task", "create", "help", "--intent", goal)
    assert run.json("task", "list")["tasks"] == []


def test_suggest_writes_nothing_unless_accepted(run: Run) -> None:
    run.json("remember", "the meeting may be Friday", "--importance", "0.9", "--authority", "0.2")
    shown = run.json("intent", "suggest")
    assert len(shown["suggestions"]) == 1 and shown["created"] == []
    assert run.json("intent", "list")["intents"] == []
    made = run.json("intent", "suggest", "--accept", "--owner", "ann")["created"]
    assert [i["owner"] for i in made] == ["ann"]
    assert run.json("intent", "suggest")["suggestions"] == []


def test_bad_input_is_a_usage_error(run: Run) -> None:
    run.fails(2, "invalid_input", "intent", "create", "goal", "--priority", "3")
    run.fails(2, "invalid_input", "task", "list", "--status", "done")
