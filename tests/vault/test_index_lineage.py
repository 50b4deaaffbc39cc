"""A re-index follows what the vault itself last wrote (outside probe 7, findings 1, 4, 7, 11).

The file is the note's source, but a person may correct, forget or dismiss a note's item through
the API, and a dream pass may forget it under a keep budget: an index whose file did not change
leaves such an item alone, and one whose file did change says what it did to the person's work.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from vault_support import SCOPE, write

from reverie import ManualClock, Memory, Q
from reverie.dream import DreamConfig
from reverie.errors import ConflictError
from reverie.vault import Vault, notes_filter


def _only(mem: Memory, v: Vault) -> list[str]:
    return [i.text for i in mem.list(scope=SCOPE, where=notes_filter(v.name)).items]


def _item(mem: Memory, v: Vault, path: str):  # type: ignore[no-untyped-def]
    return next(i for i in mem.list(scope=SCOPE, where=notes_filter(v.name)).items if i.meta["note"] == path)


def test_a_correction_through_the_api_survives_an_index_of_the_unchanged_note(vault: Vault, mem: Memory) -> None:
    write(vault, "db.md", "# DB\nThe server runs on Postgres 15.\n")
    vault.index()
    fixed = mem.revise(_item(mem, vault, "db.md").id, "DB: the server runs on Postgres 16.", scope=SCOPE, reason="p")
    st = vault.index_status()
    assert (st.to_update, st.corrected) == ([], ["db.md"])
    r = vault.index()
    assert (r.updated, r.corrected, r.unchanged, r.conflicts) == ([], ["db.md"], 0, {})
    assert _only(mem, vault) == ["DB: the server runs on Postgres 16."]
    assert mem.get(fixed.id, scope=SCOPE).status == "live"
    assert vault.index().corrected == ["db.md"]  # and again: stable, nothing written
    assert mem.history(fixed.id, scope=SCOPE).versions[-1].id == fixed.id


def test_a_file_edited_after_a_correction_is_a_new_revision_and_a_reported_conflict(vault: Vault, mem: Memory) -> None:
    write(vault, "db.md", "# DB\nThe server runs on Postgres 15.\n")
    vault.index()
    fixed = mem.revise(_item(mem, vault, "db.md").id, "DB: Postgres 16.", scope=SCOPE, reason="a person's fix")
    write(vault, "db.md", "# DB\nThe server runs on Postgres 17.\n")
    assert vault.index_status().conflicts == ["db.md"]
    r = vault.index()
    assert r.updated == ["db.md"] and list(r.conflicts) == ["db.md"]
    assert fixed.id in r.conflicts["db.md"] and "a person's fix" in r.conflicts["db.md"]
    now = _item(mem, vault, "db.md")
    assert now.text.endswith("Postgres 17.")
    versions = [v.id for v in mem.history(now.id, scope=SCOPE).versions]
    assert versions[-2:] == [fixed.id, now.id]  # the file's edit supersedes the correction: lineage kept
    assert mem.get(fixed.id, scope=SCOPE).status == "superseded"
    again = vault.index()
    assert (again.touched, again.unchanged, again.conflicts) == (0, 1, {})


def test_a_note_forgotten_through_the_api_stays_forgotten_while_its_file_is_unchanged(
    vault: Vault, mem: Memory
) -> None:
    write(vault, "a.md", "# A\nsame words\n")
    vault.index()
    mem.forget(_item(mem, vault, "a.md").id, scope=SCOPE, reason="not useful")
    st = vault.index_status()
    assert st.to_add == [] and [k.path for k in st.kept_out] == ["a.md"]
    r = vault.index()
    assert r.added == [] and [(k.path, "not useful" in k.reason) for k in r.kept_out] == [("a.md", True)]
    assert _only(mem, vault) == []
    write(vault, "a.md", "# A\nnew words\n")  # an edit is new content: indexed again
    assert vault.index().added == ["a.md"]


def test_a_dismissed_note_is_skipped_with_its_reason_and_the_rest_indexed(vault: Vault, mem: Memory) -> None:
    write(vault, "a.md", "# a\nNote a says the sky is blue.\n")
    vault.index()
    mem.dismiss(_item(mem, vault, "a.md").id, scope=SCOPE, reason="wrong note")
    for n in "bcd":
        write(vault, f"{n}.md", f"# {n}\nBrand new note {n} about kittens.\n")
    st = vault.index_status()
    assert st.to_add == ["b.md", "c.md", "d.md"] and [p for p, _ in st.skipped] == ["a.md"]
    r = vault.index()
    assert r.added == ["b.md", "c.md", "d.md"]
    assert [s.path for s in r.skipped] == ["a.md"] and "dismissed" in r.skipped[0].reason
    assert sorted(i.meta["note"] for i in mem.list(scope=SCOPE, where=notes_filter(vault.name)).items) == [
        "b.md",
        "c.md",
        "d.md",
    ]
    mem.undismiss(_item_text(mem, "a.md"), scope=SCOPE, reason="it was right")  # lifting the tombstone
    assert vault.index().added == ["a.md"]


def _item_text(mem: Memory, path: str) -> str:
    closed = mem.list(scope=SCOPE, where=Q.status("dismissed"), include_closed=True).items
    return next(i.text for i in closed if i.meta.get("note") == path)


def test_a_note_edited_back_to_a_dismissed_text_leaves_memory_and_says_why(vault: Vault, mem: Memory) -> None:
    write(vault, "a.md", "# A\nfirst\n")
    vault.index()
    mem.dismiss(_item(mem, vault, "a.md").id, scope=SCOPE, reason="wrong")
    write(vault, "a.md", "# A\nsecond\n")
    assert vault.index().added == ["a.md"]
    write(vault, "a.md", "# A\nfirst\n")
    r = vault.index()  # the revise would be refused: the item that reads 'second' leaves memory instead
    assert [s.path for s in r.skipped] == ["a.md"] and r.removed == []
    assert _only(mem, vault) == []
    assert vault.index().touched == 0


def test_notes_a_keep_budget_forgot_are_kept_out_not_added_again_each_cycle(tmp_path: Path, mem: Memory) -> None:
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    v = Vault(tmp_path / "wiki", memory=mem, scope="s")
    for i in range(10):
        write(v, f"n{i}.md", f"# n{i}\nTopic {i} note about subject number {i * 13}.\n")
    v.index()
    kept_out = []
    for _ in range(2):
        clock.advance(timedelta(days=120))
        mem.dream(scope="s", config=DreamConfig(keep_budget=3))
        r = v.index()
        assert r.added == []
        kept_out = [k for k in r.kept_out]
    assert len(kept_out) == 7 and all("dream" in k.reason for k in kept_out)
    assert len(mem.list(scope="s", include_closed=True, limit=500).items) == 10  # no copy piles up


def test_two_folders_with_one_base_name_keep_their_notes_apart(tmp_path: Path, mem: Memory) -> None:
    v1 = Vault(tmp_path / "work" / "wiki", memory=mem, scope=SCOPE)
    v2 = Vault(tmp_path / "home" / "wiki", memory=mem, scope=SCOPE)
    write(v1, "one.md", "# one\nFirst vault note.\n")
    write(v2, "two.md", "# two\nSecond vault note.\n")
    v1.index()
    r = v2.index()
    assert (r.added, r.removed) == (["two.md"], [])
    assert (v1.name, v2.name) == ("wiki", "home/wiki") and r.vault == "home/wiki"
    assert v1.index().touched == 0 and v2.index().touched == 0
    live = sorted(i.meta["note"] for i in mem.list(scope=SCOPE, where=Q.kind("note")).items)
    assert live == ["one.md", "two.md"]
    again = Vault(tmp_path / "home" / "wiki", memory=mem, scope=SCOPE)  # a new process finds its name again
    assert again.name == "home/wiki" and again.index().touched == 0


def test_a_name_given_twice_for_two_folders_is_refused_naming_the_other(tmp_path: Path, mem: Memory) -> None:
    v1 = Vault(tmp_path / "a", memory=mem, scope=SCOPE, name="team")
    v2 = Vault(tmp_path / "b", memory=mem, scope=SCOPE, name="team")
    write(v1, "one.md", "# one\nFirst.\n")
    write(v2, "two.md", "# two\nSecond.\n")
    v1.index()
    with pytest.raises(ConflictError) as err:
        v2.index()
    assert str(tmp_path / "a") in str(err.value) and "name" in str(err.value)
    assert [i.meta["note"] for i in mem.list(scope=SCOPE, where=Q.kind("note")).items] == ["one.md"]


def test_a_moved_vault_folder_keeps_its_name_and_items(tmp_path: Path, mem: Memory) -> None:
    v = Vault(tmp_path / "old" / "wiki", memory=mem, scope=SCOPE)
    write(v, "one.md", "# one\nFirst.\n")
    v.index()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "wiki").rename(tmp_path / "new" / "wiki")
    moved = Vault(tmp_path / "new" / "wiki", memory=mem, scope=SCOPE)
    assert moved.name == "wiki" and moved.index().touched == 0
