"""``write_note`` refuses bad input before touching disk, and a refused write leaves nothing behind.

Outside probe 2, findings #10 and #1: a lone surrogate, a NUL or a megabyte in ``why``, an
over-long file name escaped as plain Python errors, with the note already written and staged;
a folder symlinked into ``curated/`` let the agent's note land there.
"""

from __future__ import annotations

from typing import Any

import pytest
from vault_support import git, snapshot, write

from reverie import InvalidInputError, StorageError
from reverie.vault import Vault, VaultAreaError, VaultPathError


@pytest.mark.parametrize(
    ("note", "kwargs", "code"),
    [
        ("people/alice/s.md", {"text": "# S\n\ud800"}, "invalid_input"),
        ("people/alice/w2.md", {"why": "a\x00b"}, "invalid_input"),
        ("people/alice/w.md", {"why": "w" * 1_000_000}, "limit_exceeded"),
        ("people/alice/" + "a" * 300 + ".md", {}, "vault_path"),
        ("people/alice/" + "/".join(["d" * 200] * 30) + "/x.md", {}, "vault_path"),
        ("people/alice/\ud800.md", {}, "vault_path"),
        ("people/alice/line\nbreak.md", {}, "vault_path"),
        ("people/alice/p.md", {"why": "fine \ud800"}, "invalid_input"),
    ],
)
def test_bad_input_is_a_reverie_error_and_touches_nothing(
    vault: Vault, note: str, kwargs: dict[str, Any], code: str
) -> None:
    vault.write_note("people/alice/keep.md", "# Keep\n", person="alice", why="a first note")
    before, log = snapshot(vault), vault.log()
    args: dict[str, Any] = {"text": "# W\n", "why": "x", **kwargs}
    with pytest.raises(InvalidInputError) as err:
        vault.write_note(note, args["text"], person="alice", why=args["why"])
    assert err.value.code == code
    assert snapshot(vault) == before and vault.log() == log
    assert git(vault, "status", "--porcelain") == ""


def test_a_write_whose_commit_fails_is_undone(vault: Vault) -> None:
    """A failure after the file is written (here: git's index is locked) restores the old text and unstages."""
    vault.write_note("people/alice/a.md", "# A\nv1\n", person="alice", why="first")
    before, log = snapshot(vault), vault.log()
    (vault.root / ".git" / "index.lock").write_text("")  # another git process holds the index
    try:
        with pytest.raises(StorageError):
            vault.write_note("people/alice/a.md", "# A\nv2\n", person="alice", why="second")
        with pytest.raises(StorageError):
            vault.write_note("people/alice/new.md", "# New\n", person="alice", why="third")
    finally:
        (vault.root / ".git" / "index.lock").unlink()
    assert snapshot(vault) == before and vault.log() == log
    assert git(vault, "status", "--porcelain") == ""


def test_a_folder_symlinked_into_curated_is_refused_before_any_write(vault: Vault) -> None:
    write(vault, "curated/keep.md", "# Keep\nHuman note.\n")
    (vault.root / "people").mkdir()
    (vault.root / "people" / "eve").symlink_to("../curated", target_is_directory=True)
    before = snapshot(vault)
    with pytest.raises((VaultPathError, VaultAreaError)):
        vault.write_note("people/eve/evil.md", "# evil\nAgent text\n", person="eve", why="w")
    assert not (vault.root / "curated" / "evil.md").exists()
    assert snapshot(vault) == before and vault.log() == []
    assert "curated/evil.md" not in vault.index().added


def test_a_folder_symlinked_to_another_persons_area_is_refused(vault: Vault) -> None:
    write(vault, "people/bob/b.md", "# B\n")
    (vault.root / "people" / "eve").symlink_to("bob", target_is_directory=True)
    with pytest.raises((VaultPathError, VaultAreaError)):
        vault.write_note("people/eve/x.md", "# x\n", person="eve", why="w")
    assert not (vault.root / "people" / "bob" / "x.md").exists()


def test_a_note_symlinked_into_curated_is_not_written_through(vault: Vault) -> None:
    write(vault, "curated/keep.md", "# Keep\nHuman note.\n")
    (vault.root / "people" / "eve").mkdir(parents=True)
    (vault.root / "people" / "eve" / "k.md").symlink_to("../../curated/keep.md")
    before = snapshot(vault)
    with pytest.raises((VaultPathError, VaultAreaError)):
        vault.write_note("people/eve/k.md", "# overwritten\n", person="eve", why="w")
    assert snapshot(vault) == before


def test_promotion_through_a_symlinked_folder_is_refused(vault: Vault) -> None:
    write(vault, "curated/keep.md", "# Keep\n")
    (vault.root / "people").mkdir()
    (vault.root / "people" / "eve").symlink_to("../curated", target_is_directory=True)
    with pytest.raises((VaultPathError, VaultAreaError)):
        vault.request_promotion("people/eve/keep.md", "eve")
