"""Counts on the command line under a ``Limits`` below the built-in defaults.

Regression: ``recall``, ``context``, ``list`` and ``contradictions`` passed their option defaults
(``--k 10``, ``--k 50``, ``--limit 50``, ``--limit 100``) to ``Memory`` even when none was given, so
under a smaller ``Limits.max_k`` a plain command failed with ``limit_exceeded`` instead of getting
the clamped default the Python API gives. ``export`` read the log in fixed pages of 1000 events,
which a smaller ``Limits.max_events`` refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import Cli

from reverie import Limits

SMALL = Limits(max_k=3, max_events=2)


@pytest.fixture
def small(tmp_path: Path) -> Cli:
    """Eight kettles (more than ``max_k``) and a conflict, in a store opened with ``SMALL``."""
    cli = Cli(tmp_path / "reverie.db", limits=SMALL)
    for i in range(8):
        cli.remember(f"the red kettle number {i} is on shelf {i}")
    tea = cli.remember("Alice drinks tea", "--key=alice.drink", "--value=tea")
    coffee = cli.remember("Alice drinks coffee", "--key=alice.drink", "--value=coffee")
    if not cli.json("contradictions")["contradictions"]:
        cli.ok("link", tea, coffee, "contradicts")
    return cli


def test_commands_without_a_count_answer_clamped_to_max_k(small: Cli) -> None:
    assert len(small.json("recall", "red kettle shelf")["hits"]) == SMALL.max_k
    page = small.json("list")
    assert len(page["items"]) == SMALL.max_k and page["next_cursor"]
    assert "kettle" in small.json("context", "red kettle shelf")["context"]
    assert 1 <= len(small.json("contradictions")["contradictions"]) <= SMALL.max_k


@pytest.mark.parametrize(
    "args",
    [
        ("recall", "kettle", "--k"),
        ("context", "kettle", "--k"),
        ("list", "--limit"),
        ("contradictions", "--limit"),
    ],
)
def test_an_explicit_count_is_accepted_at_max_k_and_refused_past_it(small: Cli, args: tuple[str, ...]) -> None:
    small.ok(*args, str(SMALL.max_k))
    result = small.fails(2, "limit_exceeded", *args, str(SMALL.max_k + 1))
    assert "Limits.max_k (3)" in result.stderr


def test_help_says_a_left_out_count_follows_max_k(run: Cli) -> None:
    for command in ("recall", "context", "list", "contradictions"):
        assert "max_k" in run.ok(command, "--help").stdout, command


def test_export_pages_through_the_whole_log_under_a_small_max_events(small: Cli, tmp_path: Path) -> None:
    out = tmp_path / "export.jsonl"
    doc = small.json("export", "--out", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert doc["events"] == len(lines) > SMALL.max_events
    assert [e["seq"] for e in lines] == sorted({e["seq"] for e in lines})
