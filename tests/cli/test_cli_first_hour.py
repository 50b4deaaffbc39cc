"""What a newcomer reads from `show` and `export --out` (issue #20, item 11)."""

from __future__ import annotations

import re
from pathlib import Path

from cli_support import Cli


def _history_rows(out: str) -> list[list[str]]:
    block = out.split("\nhistory (")[1].split("\n\n")[0]
    return [line.split() for line in block.splitlines()[2:]]


def test_show_says_one_version_in_the_singular(run: Cli) -> None:
    item = run.remember("Alice likes tea")
    out = run.ok("show", item).stdout
    assert "\nhistory (1 version)\n" in out


def test_show_numbers_versions_of_the_claim_not_row_revisions(run: Cli) -> None:
    """Regression: after a revise both rows showed V 2, beside 'version 3' once a dream pass touched the item."""
    first = run.remember("Alice likes tea")
    second = run.json("revise", first, "Alice likes green tea")["item"]["id"]
    third = run.json("revise", second, "Alice likes jasmine tea")["item"]["id"]
    run.ok("dream")  # settles importance: a new revision of the live row, not a new version of the claim
    out = run.ok("show", third).stdout
    assert "\nhistory (3 versions)\n" in out
    rows = _history_rows(out)
    assert [(r[0], r[1]) for r in rows] == [("1", first), ("2", second), ("3", third)]
    revision = run.json("show", third)["item"]["version"]
    assert revision >= 2
    assert re.search(rf"\nrevision +{revision} \(", out)
    assert "version 3)" not in out.split("\nhistory")[0]


def test_export_error_names_the_path_given_not_the_temp_file(run: Cli, tmp_path: Path) -> None:
    """Regression: `export --out` into a missing folder said '…/out.jsonl.partial'."""
    run.remember("Alice likes tea")
    target = tmp_path / "no-such-dir" / "out.jsonl"
    result = run.fails(1, "io", "export", "--out", str(target))
    assert ".partial" not in result.stderr
    assert f"cannot write {target}: " in result.stderr
    assert not target.parent.exists()


def test_export_to_a_folder_path_names_it(run: Cli, tmp_path: Path) -> None:
    run.remember("Alice likes tea")
    (tmp_path / "taken").mkdir()
    result = run("export", "--out", str(tmp_path / "taken"))
    assert result.exit_code == 2 and "taken" in result.stderr and ".partial" not in result.stderr
    assert list((tmp_path).glob("*.partial")) == []
