"""``reverie vault …``: each tool on the command line, JSON output, the one error shape, the tour."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from vault_support import MANIFEST, SAMPLE

from reverie.cli import cli

ENV: dict[str, str | None] = {
    "REVERIE_DB": None,
    "REVERIE_SCOPE": None,
    "REVERIE_EMBEDDER": None,
    "REVERIE_VAULT": None,
}


@pytest.fixture
def run(tmp_path: Path):  # type: ignore[no-untyped-def]
    shutil.copytree(SAMPLE, tmp_path / "v")
    head = ["--db", str(tmp_path / "m.db"), "--embedder", "hash", "--scope", "team:lantern"]

    def invoke(*args: str, stdin: str | None = None) -> Result:
        return CliRunner().invoke(
            cli, [*head, *args[:1], "--vault", str(tmp_path / "v"), *args[1:]], env=ENV, input=stdin
        )

    assert invoke("vault", "index").exit_code == 0
    return invoke


def _json(result: Result) -> object:
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_vault_report_as_json_lists_the_planted_defects(run) -> None:  # type: ignore[no-untyped-def]
    doc = _json(run("vault", "report", "--json", "--stale-days", "100000"))
    assert isinstance(doc, dict)
    assert [[d["source"], d["target"]] for d in doc["dead_links"]] == MANIFEST["dead_links"]
    assert doc["orphans"] == MANIFEST["orphans"] and doc["stale"] == []


def test_vault_relevant_coverage_bridges_claims_ideas_gaps_status(run) -> None:  # type: ignore[no-untyped-def]
    hits = _json(run("vault", "relevant", "nightly database backups", "-k", "2", "--json"))
    assert isinstance(hits, list) and hits[0]["path"] == "ops/database-backups.md"
    cov = _json(run("vault", "coverage", "backups on kubernetes", "--json"))
    assert isinstance(cov, dict) and cov["missing"] == ["kubernetes"]
    bridges = _json(run("vault", "bridges", "research/spaced-repetition.md", "--json"))
    assert isinstance(bridges, list) and all(b["folder"] != "research" for b in bridges)
    claims = run("vault", "claims", "people/bob/on-call-swap.md")
    assert "The on-call engineer this week is Bob." in claims.output
    assert "question-the-gap" in run("vault", "ideas").output
    assert "research/forgetting-curve.md" in run("vault", "gaps").output
    assert "60 notes, 60 indexed" in run("vault", "status").output


def test_vault_write_then_promote_with_the_token(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w = run("vault", "write", "people/alice/new.md", "--person", "alice", "--why", "asked", stdin="# New\n")
    assert w.exit_code == 0 and w.output.startswith("committed ")
    token = run("vault", "request-promotion", "people/alice/new.md", "--person", "alice").output.strip()
    assert run("vault", "promote", "people/alice/new.md", "wrong-token").exit_code == 1
    done = run("vault", "promote", "people/alice/new.md", token)
    assert done.exit_code == 0 and "curated/new.md" in done.output
    assert (tmp_path / "v" / "curated" / "new.md").read_text() == "# New\n"


def test_vault_suggest_is_a_dry_run_unless_apply(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    uncommitted = run("vault", "suggest", "--apply")  # nobody committed the copy: every note is left alone
    assert uncommitted.exit_code == 0 and "linked" not in uncommitted.output
    assert "skipped ops/log-retention.md: ops/log-retention.md is a new note not committed yet" in uncommitted.output
    _commit(tmp_path / "v")
    before = (tmp_path / "v" / "ops" / "log-retention.md").read_text()
    assert "would link ops/log-retention.md" in run("vault", "suggest").output
    assert (tmp_path / "v" / "ops" / "log-retention.md").read_text() == before
    assert "linked ops/log-retention.md" in run("vault", "suggest", "--apply").output
    assert "Related (suggested)" in (tmp_path / "v" / "ops" / "log-retention.md").read_text()


def _commit(root: Path) -> None:
    """Commit the vault copy the way its people would, under their own name."""
    for args in (["add", "-A"], ["-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", "notes"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_vault_write_over_a_persons_uncommitted_edit_is_a_conflict(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _commit(tmp_path / "v")
    note = tmp_path / "v" / "people" / "alice" / "ideas.md"
    note.write_text(note.read_text() + "Alice's own line.\n")
    r = run("vault", "write", "people/alice/ideas.md", "--person", "alice", "--why", "x", stdin="# Agent\n")
    assert r.exit_code == 1 and "error[vault_conflict]" in r.output and "people/alice/ideas.md" in r.output
    assert note.read_text().endswith("Alice's own line.\n")


@pytest.mark.parametrize(
    ("args", "code", "exit_code"),
    [
        (("vault", "claims", "../outside.md"), "vault_path", 2),
        (("vault", "write", "curated/x.md", "--person", "alice", "--why", "x"), "vault_area", 2),
        (("vault", "promote", "people/alice/ideas.md", "nope"), "promotion_token", 1),
    ],
)
def test_vault_errors_have_the_one_error_shape(run, args: tuple[str, ...], code: str, exit_code: int) -> None:  # type: ignore[no-untyped-def]
    r = run(*args, stdin="x")
    assert r.exit_code == exit_code
    assert f"error[{code}]" in r.output


def test_vault_tour_runs_every_tool_on_a_copy(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["vault", "tour", "--into", str(tmp_path / "t")], env=ENV)
    assert r.exit_code == 0, r.output
    for orphan in MANIFEST["orphans"]:
        assert orphan in r.output
    assert "a second run changes 0 notes" in r.output and "health now 1.00" in r.output
    assert not (SAMPLE / ".git").exists()


def test_vault_index_skips_a_dismissed_note_and_claims_skip_a_dismissed_sentence(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Outside probe 7, findings 4 and 8: the CLI exited 1 with error[dismissed_value] for both."""
    from reverie import Memory
    from reverie.vault import notes_filter

    note = "people/bob/on-call-swap.md"
    claims = _json(run("vault", "claims", note, "--remember", "--json"))
    assert isinstance(claims, list) and claims
    with Memory(str(tmp_path / "m.db"), embedder="hash") as mem:
        notes = mem.list(scope="team:lantern", where=notes_filter("v"), limit=100).items
        item = next(i for i in notes if i.meta["note"] == note)
        mem.dismiss(item.id, scope="team:lantern", reason="wrong note")
        mem.dismiss(str(claims[0]["item_id"]), scope="team:lantern", reason="wrong claim")
    (tmp_path / "v" / "people" / "bob" / "new.md").write_text("# New\nA new note about kittens.\n")
    r = run("vault", "index")
    assert r.exit_code == 0, r.output
    assert "added 1," in r.output and f"skipped {note}: its text was dismissed" in r.output
    again = run("vault", "claims", note, "--remember")
    assert again.exit_code == 0, again.output
    assert "skipped: dismissed_value" in again.output


def test_vault_index_with_a_name_another_folder_holds_is_a_conflict(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# X\nx\n")
    base = ["--db", str(tmp_path / "m.db"), "--embedder", "hash", "--scope", "team:lantern", "vault"]
    r = CliRunner().invoke(cli, [*base, "--vault", str(other), "--name", "v", "index"], env=ENV)
    assert r.exit_code == 1 and "error[vault_name]" in r.output and str(tmp_path / "v") in r.output
    ok = CliRunner().invoke(cli, [*base, "--vault", str(other), "index"], env=ENV)
    assert ok.exit_code == 0 and "added 1," in ok.output
