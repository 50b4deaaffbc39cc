"""``--conflict-reader nli`` (and ``REVERIE_CONFLICT_READER``): writes stay rules-only and flag the
claim; ``reverie dream`` lets the real NLI model read it; the conflict then lists like any other."""

from __future__ import annotations

from cli_support import SCOPE, Cli

MASCOT = ("The team mascot is a falcon.", "The team mascot is a bear.")


def test_the_reader_reads_in_dream_and_the_conflict_is_listed(run: Cli) -> None:
    reader = ["--conflict-reader", "nli"]
    first = run.json(*reader, "remember", MASCOT[0])
    second = run.json(*reader, "remember", MASCOT[1])
    assert "conflicts_unread" in second["item"]["flags"] and first["item"]["id"]
    assert run.json(*reader, "contradictions")["contradictions"] == []
    run.ok(*reader, "dream")
    found = run.json("contradictions")["contradictions"]  # listing needs no reader
    assert len(found) == 1
    assert "second reader" in found[0]["reason"]


def test_the_variable_turns_it_on_and_an_unknown_reader_is_refused(run: Cli) -> None:
    head = ["--db", str(run.db), "--embedder", "hash", "--scope", SCOPE]
    on = run.raw(*head, "--json", "remember", MASCOT[0], env={"REVERIE_CONFLICT_READER": "nli"})
    assert on.exit_code == 0, on.output
    assert '"conflicts_unread"' in on.stdout
    bad = run.raw(*head, "--conflict-reader", "bert", "remember", MASCOT[1])
    assert bad.exit_code == 2 and "bert" in bad.output
