"""A person's uncommitted edit of a note is theirs: no agent write destroys it or commits it as the agent's.

Outside probe 4, findings #1 and #5: ``write_note`` renamed its text over a note a person had
edited by hand and not committed (the edit was in no file and no commit), and
``apply_suggestions(dry_run=False)`` committed a person's uncommitted draft line, authored
``reverie agent``. The rule now: ``write_note`` refuses a note whose working tree or index
differs from its last commit (``vault_conflict``, nothing written); ``apply_suggestions`` leaves
such a note alone and says why; ``promote`` (the person confirmed exactly this text with their
token) commits the pending text first under the person's name, then the move as the agent.
"""

from __future__ import annotations

import pytest
from vault_support import commit_as_people, git, snapshot, write

from reverie import ConflictError, StorageError
from reverie.vault import Vault, VaultConflictError

PLAN = "people/alice/plan.md"
HAND = "Alice: do NOT book the venue before Friday.\n"


def everything_in_git(v: Vault) -> str:
    return git(v, "log", "-p", "--all", "--format=%an %s")


def _refused(v: Vault, note: str, text: str = "# Plan\nStep two.\n") -> VaultConflictError:
    before, log, status = snapshot(v), v.log(), git(v, "status", "--porcelain")
    with pytest.raises(VaultConflictError) as err:
        v.write_note(note, text, person="alice", why="update")
    assert snapshot(v) == before and v.log() == log and git(v, "status", "--porcelain") == status
    return err.value


# -- write_note ------------------------------------------------------------------------------
def test_write_note_refuses_a_note_with_an_uncommitted_hand_edit_and_keeps_it(vault: Vault) -> None:
    vault.write_note(PLAN, "# Plan\nStep one.\n", person="alice", why="she asked")
    with (vault.root / PLAN).open("a") as fh:
        fh.write(HAND)
    err = _refused(vault, PLAN)
    assert err.code == "vault_conflict" and isinstance(err, ConflictError)
    message = str(err)
    assert PLAN in message and "not committed" in message and "commit" in message and "discard" in message
    assert (vault.root / PLAN).read_text() == "# Plan\nStep one.\n" + HAND


def test_write_note_refuses_a_note_a_person_created_and_never_committed(vault: Vault) -> None:
    write(vault, PLAN, "# Alice's own plan\n" + HAND)
    err = _refused(vault, PLAN)
    assert "new" in str(err)
    assert "venue" not in everything_in_git(vault)


def test_write_note_refuses_a_note_whose_edit_is_staged_but_not_committed(vault: Vault) -> None:
    vault.write_note(PLAN, "# Plan\nStep one.\n", person="alice", why="she asked")
    write(vault, PLAN, "# Plan\nStep one.\n" + HAND)
    git(vault, "add", PLAN)
    _refused(vault, PLAN)
    assert HAND in git(vault, "diff", "--cached")


def test_write_note_does_not_undo_a_persons_uncommitted_deletion(vault: Vault) -> None:
    vault.write_note(PLAN, "# Plan\nStep one.\n", person="alice", why="she asked")
    (vault.root / PLAN).unlink()
    err = _refused(vault, PLAN)
    assert "deleted" in str(err)
    assert not (vault.root / PLAN).exists()


def test_once_the_person_commits_the_agent_writes_on_top_and_both_stay_in_history(vault: Vault) -> None:
    vault.write_note(PLAN, "# Plan\nStep one.\n", person="alice", why="she asked")
    with (vault.root / PLAN).open("a") as fh:
        fh.write(HAND)
    _refused(vault, PLAN)
    commit_as_people(vault, PLAN, message="venue rule")
    assert vault.write_note(PLAN, "# Plan\nStep one.\n" + HAND + "Step two.\n", person="alice", why="next step")
    authors = git(vault, "log", "--format=%an|%s").splitlines()
    assert authors == [
        "reverie agent|agent: update people/alice/plan.md for alice",
        "Alice Human|venue rule",
        "reverie agent|agent: add people/alice/plan.md for alice",
    ]


def test_another_notes_pending_edit_neither_blocks_the_write_nor_joins_its_commit(vault: Vault) -> None:
    vault.write_note("people/alice/other.md", "# Other\n", person="alice", why="first")
    write(vault, "people/alice/other.md", "# Other\n" + HAND)
    git(vault, "add", "people/alice/other.md")
    write(vault, "people/alice/draft.md", "# Draft\n" + HAND)
    vault.write_note(PLAN, "# Plan\n", person="alice", why="new plan")
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == [PLAN]
    assert git(vault, "status", "--porcelain").splitlines() == [
        "M  people/alice/other.md",
        "?? people/alice/draft.md",
    ]


# -- apply_suggestions ----------------------------------------------------------------------
def _orphans(v: Vault) -> None:
    """Three notes a person wrote and committed; b links to a, so a is linked, b and c are orphans."""
    write(v, "notes/a.md", "# Backups\nBackups kept 30 days on the nas.\n")
    write(v, "notes/b.md", "# Restore\nRestore backups from the nas weekly. See [[a]].\n")
    write(v, "notes/c.md", "# Nas backups\nThe nas backups rotate.\n")
    commit_as_people(v, "notes", message="people's notes")


def test_apply_suggestions_leaves_a_note_with_an_uncommitted_draft_alone(vault: Vault) -> None:
    _orphans(vault)
    draft = "HUMAN DRAFT: do not publish yet.\n"
    with (vault.root / "notes/c.md").open("a") as fh:
        fh.write(draft)
    before = (vault.root / "notes/c.md").read_bytes()
    plan = vault.apply_suggestions()
    done = vault.apply_suggestions(dry_run=False)
    for r in (plan, done):
        assert "notes/c.md" not in r.changes and "notes/b.md" in r.changes
        assert "not committed" in r.skipped["notes/c.md"] and "commit" in r.skipped["notes/c.md"]
    assert (vault.root / "notes/c.md").read_bytes() == before
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["notes/b.md"]
    assert "DRAFT" not in everything_in_git(vault)
    assert git(vault, "status", "--porcelain").splitlines() == [" M notes/c.md"]


def test_apply_suggestions_never_commits_a_note_nobody_committed(vault: Vault) -> None:
    write(vault, "a.md", "# Sleep notes\nsleep memory nap\n")
    write(vault, "b.md", "# Sleep\nsleep memory nap\n")
    before = snapshot(vault)
    done = vault.apply_suggestions(dry_run=False)
    assert done.changes == {} and done.commit is None and sorted(done.skipped) == ["a.md", "b.md"]
    assert all("new" in why for why in done.skipped.values())
    assert snapshot(vault) == before and vault.log() == []


def test_apply_suggestions_names_no_uncommitted_draft_in_its_block(vault: Vault) -> None:
    _orphans(vault)
    write(vault, "notes/secret.md", "# Zentrox acquisition\nThe nas backups rotate weekly.\n")
    done = vault.apply_suggestions(dry_run=False)
    assert "notes/secret.md" in done.skipped
    assert all(target != "notes/secret" for target in done.changes.values()), done.changes
    assert "secret" not in everything_in_git(vault) and "Zentrox" not in everything_in_git(vault)


# -- promote ---------------------------------------------------------------------------------
def test_promoting_a_note_with_a_hand_edit_commits_the_edit_as_the_person_first(vault: Vault) -> None:
    vault.write_note(PLAN, "# Plan\nStep one.\n", person="alice", why="she asked")
    with (vault.root / PLAN).open("a") as fh:
        fh.write(HAND)
    token = vault.request_promotion(PLAN, "alice")
    assert vault.promote(PLAN, token) == "curated/plan.md"
    assert (vault.root / "curated/plan.md").read_text() == "# Plan\nStep one.\n" + HAND
    log = git(vault, "log", "--format=%an|%s").splitlines()
    assert log[0] == "reverie agent|promote people/alice/plan.md to curated/plan.md"
    assert log[1].startswith("alice|") and PLAN in log[1]
    assert HAND in git(vault, "show", "--format=", "HEAD~1") and HAND not in git(vault, "show", "--format=", "HEAD")
    assert git(vault, "status", "--porcelain") == ""


def test_a_promotion_whose_move_fails_leaves_no_commit_behind(vault: Vault) -> None:
    """The move's commit fails (curated/ is git-ignored): the person's edit is not left committed either."""
    write(vault, ".gitignore", "curated/\n")
    commit_as_people(vault, ".gitignore", message="ignore curated")
    vault.write_note(PLAN, "# Plan\nStep one.\n", person="alice", why="she asked")
    with (vault.root / PLAN).open("a") as fh:
        fh.write(HAND)
    token = vault.request_promotion(PLAN, "alice")
    before, log, status = snapshot(vault), vault.log(), git(vault, "status", "--porcelain")
    with pytest.raises(StorageError):
        vault.promote(PLAN, token)
    assert snapshot(vault) == before and vault.log() == log and git(vault, "status", "--porcelain") == status


def test_a_failed_promotion_of_a_note_in_a_vault_with_no_commit_yet_leaves_none(vault: Vault) -> None:
    write(vault, ".gitignore", "curated/\n")
    write(vault, PLAN, "# Plan\n" + HAND)
    token = vault.request_promotion(PLAN, "alice")
    before, status = snapshot(vault), git(vault, "status", "--porcelain")
    with pytest.raises(StorageError):
        vault.promote(PLAN, token)
    assert snapshot(vault) == before and vault.log() == [] and git(vault, "status", "--porcelain") == status
