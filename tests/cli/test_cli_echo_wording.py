"""Regression (outside probe #8): the CLI never calls an echo of a corrected claim "corroborated".

An echo lands as evidence on the superseded version (flag ``echoed``); saying "corroborated" tells
a person the wrong value was reinforced. ``remember`` says ``echoed`` (text and ``--json``
``action``), and the text report of ``import`` counts echoed claims as ``--json`` does.
"""

from __future__ import annotations

from cli_support import Cli


def _corrected(run: Cli) -> tuple[str, str]:
    """A claim, an export taken before its correction, and the correction."""
    paris = run.remember("Bob lives in Paris.", "--source=inferred")
    old_export = run.ok("export").stdout
    run.ok("revise", paris, "Bob lives in Berlin.", "--reason=we were wrong")
    return paris, old_export


def test_remember_reports_an_echo_as_echoed_not_corroborated(run: Cli) -> None:
    paris, _ = _corrected(run)
    text = run.ok("remember", "bob lives in paris", "--source=inferred").stdout
    assert "corroborated" not in text
    assert text.startswith(f"echoed {paris}") and "superseded" in text and "evidence 2" in text
    doc = run.json("remember", "bob lives in paris", "--source=inferred")
    assert (doc["action"], doc["item"]["id"], doc["item"]["status"]) == ("echoed", paris, "superseded")
    assert [i["text"] for i in run.json("list")["items"]] == ["Bob lives in Berlin."]


def test_remember_still_says_corroborated_for_a_current_claim(run: Cli) -> None:
    tea = run.remember("Alice likes tea")
    assert run.ok("remember", "alice likes tea").stdout.startswith(f"corroborated {tea} (evidence 2)")
    assert run.json("remember", "Alice likes tea")["action"] == "corroborated"


def test_import_text_report_counts_echoed_claims(run: Cli) -> None:
    _, old_export = _corrected(run)
    text = run.ok("import", "-", input=old_export).stdout
    claims = next(line for line in text.splitlines() if line.startswith("claims:"))
    assert "0 created, 0 corroborated, 0 skipped, 1 echoed" in claims, claims
