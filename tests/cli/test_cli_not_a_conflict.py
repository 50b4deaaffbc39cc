"""``reverie dismiss-contradiction``: a false positive closed on the CLI stays closed, also in an
export imported elsewhere (outside probe 7, finding 5: the CLI had no way to dismiss one at all)."""

from __future__ import annotations

from pathlib import Path

from cli_support import Cli

WHY = "both true: summer and winter hours"


def _conflict(run: Cli) -> str:
    run.remember("The pool opens at 7 am.", "--source=user_stated")
    run.remember("The pool opens at 9 am.", "--source=user_stated")
    (found,) = run.json("contradictions")["contradictions"]
    return str(found["edge_id"])


def test_dismiss_contradiction_closes_it_and_says_so(run: Cli) -> None:
    edge = _conflict(run)
    text = run.ok("dismiss-contradiction", edge, f"--reason={WHY}").stdout
    assert text.startswith(f"dismissed {edge}: ") and "not a conflict" in text
    assert run.json("contradictions")["contradictions"] == []
    run.ok("dream")
    assert run.ok("contradictions").stdout.strip() == "no open conflicts"
    run.fails(1, "already_closed", "dismiss-contradiction", edge)


def test_json_returns_the_closed_edge(run: Cli) -> None:
    edge = _conflict(run)
    doc = run.json("dismiss-contradiction", edge)
    assert doc["action"] == "dismissed"
    assert (doc["edge"]["id"], doc["edge"]["type"]) == (edge, "contradicts") and doc["edge"]["closed_at"]


def test_a_dismissal_survives_export_and_import(run: Cli, tmp_path: Path) -> None:
    edge = _conflict(run)
    run.ok("dismiss-contradiction", edge, f"--reason={WHY}")
    exported = run.ok("export").stdout
    there = Cli(tmp_path / "there.db")
    there.ok("import", "-", input=exported)
    assert there.json("contradictions")["contradictions"] == []
    there.ok("dream")
    assert there.json("contradictions")["contradictions"] == []
    assert len(there.json("list")["items"]) == 2
