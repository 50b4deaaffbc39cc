"""Safety: nothing outside the vault is read, bad files are skipped with a reason, cycles are
harmless, and two writer processes leave the repository and the index whole."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from vault_support import SCOPE, git, write

from reverie import Memory, NotFoundError
from reverie.vault import Vault, VaultPathError, notes_filter


def _skips(v: Vault) -> dict[str, str]:
    return dict(v.index_status().skipped)


def test_a_symlinked_note_leading_outside_is_skipped_not_read(vault: Vault, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the password is hunter2\n")
    (vault.root / "leak.md").symlink_to(secret)
    report = vault.index()
    assert report.added == []
    assert "outside the vault" in _skips(vault)["leak.md"]
    assert all("hunter2" not in h.excerpt for h in vault.relevant_notes("password hunter2"))


def test_a_symlinked_folder_is_not_followed(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text("# Outside\n")
    (vault.root / "linked").symlink_to(outside, target_is_directory=True)
    assert vault.index().added == []


@pytest.mark.parametrize("path", ["../x.md", "/etc/passwd.md", "a/../../x.md", "notes.txt", ""])
def test_a_tool_given_a_path_outside_the_vault_refuses_it(vault: Vault, path: str) -> None:
    with pytest.raises(VaultPathError):
        vault.extract_claims(path)
    with pytest.raises(VaultPathError):
        vault.bridge_candidates(path)


def test_a_note_over_the_size_cap_is_skipped_with_its_size(vault: Vault) -> None:
    big = vault.root / "huge.md"
    with big.open("wb") as fh:  # 50 MB, sparse: the cap is checked with stat, before any read
        fh.truncate(50 * 1024 * 1024)
    write(vault, "ok.md", "# Ok\n")
    report = vault.index()
    assert report.added == ["ok.md"]
    assert _skips(vault)["huge.md"] == "52428800 bytes is over the size cap of 1000000 bytes"
    with pytest.raises(NotFoundError, match="size cap"):
        vault.extract_claims("huge.md")


def test_a_binary_file_named_md_is_skipped(vault: Vault) -> None:
    (vault.root / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (vault.root / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    vault.index()
    skips = _skips(vault)
    assert skips["image.md"] == "binary content (NUL bytes) in a file named .md"
    assert skips["latin1.md"] == "not UTF-8 text"


def test_broken_front_matter_is_reported_and_the_note_still_indexed(vault: Vault, mem: Memory) -> None:
    write(vault, "bad.md", "---\ntitle: ok\n  - stray: [unclosed\n---\n# Bad\nBody text stays.\n")
    write(vault, "open.md", "---\ntitle: never closed\nBody without a fence.\n")
    report = vault.index()
    assert "front matter ignored" in report.problems["bad.md"][0]
    assert "never closed" in report.problems["open.md"][0]
    items = {i.meta["note"]: i for i in mem.list(scope=SCOPE, where=notes_filter(vault.name)).items}
    assert "Body text stays." in items["bad.md"].text and items["bad.md"].meta["title"] == "Bad"


def test_front_matter_is_never_evaluated(vault: Vault, mem: Memory, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    write(vault, "evil.md", f"---\ntitle: !!python/object/apply:os.system ['touch {marker}']\n---\n$(touch {marker})\n")
    vault.index()
    vault.maintenance_report()
    assert not marker.exists()


def test_a_wikilink_cycle_is_harmless(vault: Vault) -> None:
    write(vault, "a.md", "# A\n[[b]]\n")
    write(vault, "b.md", "# B\n[[c]]\n")
    write(vault, "c.md", "# C\n[[a]] and itself [[c]]\n")
    r = vault.maintenance_report()
    assert (r.dead_links, r.orphans, r.health) == ([], [], 1.0)
    assert vault.find_gaps().isolated == []


_WRITER = textwrap.dedent(
    """
    import sys
    from reverie import Memory
    from reverie.vault import Vault
    db, root, person = sys.argv[1:4]
    with Memory(db, embedder="hash") as mem:
        v = Vault(root, memory=mem, scope="team:lantern")
        for i in range(6):
            text = f"# {person} {i}\\nnote {i} of {person}\\n"
            v.write_note(f"people/{person}/n{i}.md", text, person=person, why="load")
            v.index()
    """
)


def test_two_writer_processes_leave_the_repository_and_the_index_whole(tmp_path: Path) -> None:
    db, root = tmp_path / "m.db", tmp_path / "wiki"
    with Memory(db, embedder="hash") as mem:
        Vault(root, memory=mem, scope=SCOPE)
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(db), str(root), who], stderr=subprocess.PIPE, text=True)
        for who in ("alice", "bob")
    ]
    for p in procs:
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
    with Memory(db, embedder="hash") as mem:
        v = Vault(root, memory=mem, scope=SCOPE)
        git(v, "fsck", "--strict")
        assert len(git(v, "log", "--format=%H").split()) == 12
        assert git(v, "status", "--porcelain") == ""
        assert v.index().touched == 0
        assert len(mem.list(scope=SCOPE, where=notes_filter(v.name)).items) == 12
        assert mem.doctor().ok
