"""``reverie dream`` as a person reads it: items named by their text, passes that read as sentences (issue #20)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from cli_support import SCOPE, Cli

from reverie import ManualClock, Memory

TEA = (
    "Alice prefers green tea in the morning",
    "In the morning Alice prefers green tea",
    "Alice prefers green tea every morning",
)


@pytest.fixture
def dreamy(run: Cli) -> Cli:
    """A near-duplicate cluster (one multi-item action), stale remarks and two protected items, 40 days on."""
    clock = ManualClock(datetime(2025, 1, 1, tzinfo=UTC))
    with Memory(run.db, embedder="hash", clock=clock, seed=0) as mem:
        for text in TEA:
            mem.remember(text, scope=SCOPE, kind="episodic")
        for remark in ("Bob said the weather was nice", "Carol said the bus was late", "Dave said lunch was good"):
            mem.remember(remark, scope=SCOPE, kind="remark", source="inferred")
        mem.remember("Never deploy the billing service on Fridays", scope=SCOPE, kind="policy", confidence=0.95)
        mem.remember_manual("Alice is allergic to peanuts", scope=SCOPE, kind="assertion")
        clock.advance(days=40)
    return run


def test_dream_table_names_items_by_text_not_by_the_shared_uuid7_prefix(dreamy: Cli) -> None:
    """Regression: the items column read ``01a232b2, 01a232b2, 01a232b2`` (ids made together share a prefix)."""
    plan = dreamy.json("dream", "--dry-run")
    out = dreamy.ok("dream", "--dry-run").stdout
    rows = [line.split() for line in out.splitlines() if line.startswith(("consolidate ", "tier ", "settle "))]
    assert len(rows) == len(plan["actions"])
    assert all(not re.fullmatch(r"[0-9a-f]{8},?", row[2]) for row in rows)  # the column starts with text
    spared = [line.split() for line in out.splitlines() if line.startswith("    tier ")]
    assert len(spared) == len(plan["spared"]) == 2
    assert all(not re.fullmatch(r"[0-9a-f]{8}:?", row[1]) for row in spared)
    gist = next(a for a in plan["actions"] if len(a["item_ids"]) == 3)
    assert re.search(r"Alice prefers green tea\S*( \S+)?… \(\+2 more\)", out), out
    assert gist["step"] in out
    assert "Bob said the weather was" in out
    assert "spared by a protection:" in out and "Alice is allergic to peanuts:" in out


def test_dream_table_still_names_items_the_pass_closed(dreamy: Cli) -> None:
    done = dreamy.json("dream")
    assert done["stats"]["applied"] >= 1
    out = dreamy.ok("dream", "--dry-run").stdout  # a second pass over what the first changed
    assert "dream pass over user:alice at " in out
    last = dreamy.ok("dream", "--last").stdout
    rows = [line.split("  ") for line in last.splitlines() if line.startswith("    tier ")]
    assert rows and "Alice prefers green tea" in last
    assert any("In the morning Alice prefer" in line for line in last.splitlines() if line.startswith("    tier "))


def test_dream_counts_read_as_words(dreamy: Cli) -> None:
    out = dreamy.ok("dream", "--dry-run").stdout
    assert "action(s)" not in out and "item(s)" not in out
    assert re.search(r"\n  \d+ actions\n", out)
    assert re.search(r"\n  2 items spared by a protection:", out)


def test_dream_last_reads_as_one_paragraph_per_pass(dreamy: Cli) -> None:
    first = dreamy.json("dream")
    second = dreamy.json("dream")
    out = dreamy.ok("dream", "--last").stdout
    paragraphs = out.strip("\n").split("\n\n")
    assert len(paragraphs) == 2  # newest first, a blank line between passes
    newest, oldest = paragraphs
    when = datetime.fromisoformat(second["at"]).strftime("%Y-%m-%d %H:%M:%SZ")
    n = len(second["actions"])
    counted = f"{n} action{'s' if n != 1 else ''}" + (f" ({n} applied)" if n else "")
    assert newest.startswith(f"dream pass over {SCOPE} at {when}: {counted} in "), newest
    assert "first actions:" in oldest and "Alice prefers green tea" in oldest
    more = len(first["actions"]) - 3
    assert more > 0
    assert f"… and {more} more (--json shows the first {len(first['actions'])})" in oldest
    assert "spared by a protection (--json lists the first 2)" in oldest
    assert json.loads(dreamy.ok("--json", "dream", "--last").stdout)["runs"][0]["at"] == second["at"]


def test_dream_says_it_started_before_the_first_bar(dreamy: Cli) -> None:
    """A large scope takes seconds to read before planning reports anything: a line says so."""
    result = dreamy.ok("dream", "--dry-run", "--progress")
    assert result.stderr.startswith(f"dream: reading {SCOPE}…\n")
    assert result.stderr.index("dream: reading") < result.stderr.index("dream: planning")
    assert "reading" not in dreamy.ok("dream", "--dry-run").stderr  # not a terminal: silent
    assert "reading" not in dreamy.ok("--json", "dream", "--dry-run").stderr
