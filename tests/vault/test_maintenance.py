"""maintenance_report finds every planted defect of the sample vault (and no false dead link);
apply_suggestions is dry-run by default, additive, idempotent, and one commit."""

from __future__ import annotations

import unicodedata

import pytest
from vault_support import MANIFEST, commit_as_people, git, snapshot, write

from reverie import StorageError
from reverie.vault import Vault


def test_the_report_finds_every_planted_defect_and_no_false_dead_link(sample: Vault) -> None:
    r = sample.maintenance_report()
    assert r.notes == MANIFEST["notes"]
    assert [[d.source, d.target] for d in r.dead_links] == MANIFEST["dead_links"]
    assert r.orphans == MANIFEST["orphans"]
    assert r.near_duplicates == MANIFEST["near_duplicates"]
    assert r.stale == MANIFEST["stale"]
    assert r.archive_candidates == MANIFEST["archive_candidates"]
    assert sorted(r.problems) == MANIFEST["broken_front_matter"]
    assert 0.9 <= r.health < 1.0


def test_every_orphan_gets_a_suggested_link_to_another_note(sample: Vault) -> None:
    r = sample.maintenance_report()
    assert [s.orphan for s in r.suggestions] == r.orphans
    assert all(s.target != s.orphan and s.target.endswith(".md") for s in r.suggestions)


def test_a_dead_link_reports_its_line(vault: Vault) -> None:
    write(vault, "a.md", "# A\n\ntext\n[[b]] and [[missing|label]]\n")
    write(vault, "b.md", "# B\n[[a#A]]\n")
    assert [(d.source, d.target, d.line) for d in vault.maintenance_report().dead_links] == [("a.md", "missing", 4)]


def test_apply_suggestions_is_a_dry_run_by_default(sample: Vault) -> None:
    before, log = snapshot(sample), sample.log()
    plan = sample.apply_suggestions()
    assert plan.dry_run and plan.commit is None
    assert sorted(plan.changes) == MANIFEST["orphans"]
    assert snapshot(sample) == before and sample.log() == log


def test_applied_suggestions_are_additive_one_commit_and_raise_health(sample: Vault) -> None:
    before = snapshot(sample)
    health = sample.maintenance_report().health
    done = sample.apply_suggestions(dry_run=False)
    after = snapshot(sample)
    changed = sorted(p for p in after if after[p] != before.get(p))
    assert changed == sorted(done.changes) == MANIFEST["orphans"]
    for p in changed:
        old, new = before[p].decode(), after[p].decode()
        assert new.startswith(old.rstrip("\n")) and "## Related (suggested)" in new[len(old.rstrip()) :]
        assert f"[[{done.changes[p][:-3] if done.changes[p].endswith('.md') else done.changes[p]}" in new
    assert git(sample, "log", "-1", "--format=%s").startswith("maintenance: suggested links for 5 orphan")
    assert git(sample, "show", "--name-only", "--format=", "HEAD").split() == MANIFEST["orphans"]
    assert sample.maintenance_report().health > health


def test_a_second_run_replaces_its_own_block_and_changes_nothing(sample: Vault) -> None:
    first = sample.apply_suggestions(dry_run=False)
    once = snapshot(sample)
    second = sample.apply_suggestions(dry_run=False)
    assert first.commit is not None and second.commit is None and second.changes == {}
    assert snapshot(sample) == once


def test_an_edited_suggestion_block_is_replaced_not_duplicated(vault: Vault) -> None:
    write(vault, "a.md", "# Sleep notes\nsleep memory nap\n")
    write(vault, "b.md", "# Sleep\nsleep memory nap\n")
    commit_as_people(vault)
    vault.apply_suggestions(dry_run=False)
    text = (vault.root / "a.md").read_text()
    head, _, block = text.partition("<!--")
    assert "[[b|Sleep]]" in block
    (vault.root / "a.md").write_text(head + "<!--" + block.replace("[[b|Sleep]]", "[[zzz]]"))
    assert "a.md" in vault.apply_suggestions(dry_run=False).skipped  # a person's edit: theirs until committed
    commit_as_people(vault, "a.md")
    vault.apply_suggestions(dry_run=False)
    assert (vault.root / "a.md").read_text() == text and text.count("Related (suggested)") == 1


def test_curated_notes_are_never_edited_by_suggestions(vault: Vault) -> None:
    write(vault, "curated/rules.md", "# Rules\nsleep memory rules\n")  # an orphan, but people write curated/
    write(vault, "topics/sleep.md", "# Sleep\nsleep memory\n")
    commit_as_people(vault)
    before = (vault.root / "curated/rules.md").read_bytes()
    done = vault.apply_suggestions(dry_run=False)
    assert list(done.skipped) == ["curated/rules.md"] and "curated/rules.md" not in done.changes
    assert list(done.changes) == ["topics/sleep.md"]
    assert (vault.root / "curated/rules.md").read_bytes() == before


def test_suggestions_whose_commit_fails_leave_no_block_behind(sample: Vault) -> None:
    """A block left on disk uncommitted would pass for a person's edit (and block later runs): undone."""
    before, log = snapshot(sample), sample.log()
    (sample.root / ".git" / "index.lock").write_text("")  # another git process holds the index
    try:
        with pytest.raises(StorageError):
            sample.apply_suggestions(dry_run=False)
    finally:
        (sample.root / ".git" / "index.lock").unlink()
    assert snapshot(sample) == before and sample.log() == log
    assert git(sample, "status", "--porcelain") == ""


def test_a_decomposed_note_name_is_neither_a_dead_link_target_nor_an_orphan(vault: Vault) -> None:
    """Outside probe 7, finding 13 (the file name as macOS writes it, NFD)."""
    write(vault, "hub.md", "# Hub\nSee [[Café notes]].\n")
    write(vault, unicodedata.normalize("NFD", "Café notes") + ".md", "# Cafe\nbody [[hub]]\n")
    r = vault.maintenance_report()
    assert r.dead_links == [] and r.orphans == []
    assert vault.extract_claims("Café notes.md") == []  # a path typed composed finds the note too
