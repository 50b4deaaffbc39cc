"""Indexing notes into the memory: incremental, filterable by kind, dated by front matter first."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from vault_support import SCOPE, write

from reverie import Memory, Q
from reverie.testing import make_memory
from reverie.vault import NOTE_KIND, Vault, notes_filter


def _three(v: Vault) -> None:
    write(v, "topics/sleep.md", "---\ntitle: Sleep\naliases: [rest]\n---\nSleep keeps memories.\n")
    write(v, "topics/coffee.md", "# Coffee\nCoffee delays sleep. See [[rest|resting]].\n")
    write(v, "journal/day.md", "# Day\nA quiet day with tea.\n")


def test_every_note_becomes_one_item_of_kind_note(vault: Vault, mem: Memory) -> None:
    _three(vault)
    report = vault.index()
    assert sorted(report.added) == ["journal/day.md", "topics/coffee.md", "topics/sleep.md"]
    items = mem.list(scope=SCOPE, where=notes_filter(vault.name)).items
    assert {i.kind for i in items} == {NOTE_KIND}
    sleep = next(i for i in items if i.meta["note"] == "topics/sleep.md")
    assert sleep.meta == {
        "vault": vault.name,
        "note": "topics/sleep.md",
        "folder": "topics",
        "title": "Sleep",
        "root": str(vault.root),  # the folder: two folders never share a name silently
    }
    assert sleep.provenance.origin == "vault" and sleep.provenance.ref == f"{vault.name}:topics/sleep.md"


def test_a_reindex_after_edits_touches_only_what_changed(vault: Vault, mem: Memory) -> None:
    _three(vault)
    vault.index()
    again = vault.index()
    assert (again.touched, again.unchanged) == (0, 3)
    write(vault, "topics/coffee.md", "# Coffee\nCoffee delays sleep by hours.\n")
    (vault.root / "journal/day.md").unlink()
    write(vault, "topics/tea.md", "# Tea\nTea is calmer.\n")
    r = vault.index()
    assert (r.added, r.updated, r.removed, r.unchanged) == (
        ["topics/tea.md"],
        ["topics/coffee.md"],
        ["journal/day.md"],
        1,
    )
    texts = {i.meta["note"]: i.text for i in mem.list(scope=SCOPE, where=notes_filter(vault.name)).items}
    assert set(texts) == {"topics/sleep.md", "topics/coffee.md", "topics/tea.md"}
    assert "by hours" in texts["topics/coffee.md"]


def test_an_edited_note_keeps_its_lineage_and_meta(vault: Vault, mem: Memory) -> None:
    write(vault, "a.md", "# A\nfirst\n")
    vault.index()
    old = mem.list(scope=SCOPE, where=notes_filter(vault.name)).items[0]
    write(vault, "a.md", "# A\nsecond\n")
    vault.index()
    new = mem.list(scope=SCOPE, where=notes_filter(vault.name)).items[0]
    assert new.id != old.id and new.meta == old.meta
    assert [v.id for v in mem.history(new.id, scope=SCOPE).versions] == [old.id, new.id]


def test_recall_can_include_or_leave_out_notes(vault: Vault, mem: Memory) -> None:
    _three(vault)
    vault.index()
    mem.remember("Alice says coffee delays sleep", scope=SCOPE)
    only_notes = mem.recall("coffee sleep", scope=SCOPE, where=Q.kind(NOTE_KIND))
    no_notes = mem.recall("coffee sleep", scope=SCOPE, where=~Q.kind(NOTE_KIND))
    assert only_notes and all(h.item.kind == NOTE_KIND for h in only_notes)
    assert [h.item.text for h in no_notes] == ["Alice says coffee delays sleep"]


def test_front_matter_dates_come_before_the_files_mtime(vault: Vault, mem: Memory) -> None:
    dated = write(vault, "dated.md", "---\nupdated: 2024-03-05\ncreated: 2020-01-01\n---\nbody\n")
    plain = write(vault, "plain.md", "body\n")
    stamp = datetime(2025, 2, 1, tzinfo=UTC).timestamp()
    os.utime(dated, (stamp, stamp))
    os.utime(plain, (stamp, stamp))
    vault.index()
    by = {i.meta["note"]: i for i in mem.list(scope=SCOPE, where=notes_filter(vault.name)).items}
    assert by["dated.md"].valid_from == datetime(2024, 3, 5, tzinfo=UTC)
    assert by["plain.md"].valid_from == datetime(2025, 2, 1, tzinfo=UTC)


def test_identical_notes_in_two_vaults_of_one_scope_stay_two_items(vault: Vault, mem: Memory) -> None:
    other = Vault(vault.root.parent / "other", memory=mem, scope=SCOPE)
    write(vault, "n.md", "# N\nshared words\n")
    write(other, "n.md", "# N\nshared words\n")
    vault.index()
    other.index()
    assert len(mem.list(scope=SCOPE, where=notes_filter(vault.name)).items) == 1
    assert len(mem.list(scope=SCOPE, where=notes_filter(other.name)).items) == 1
    (other.root / "n.md").unlink()
    assert other.index().removed == ["n.md"] and vault.index().touched == 0


def test_index_status_says_what_a_reindex_would_do(vault: Vault) -> None:
    _three(vault)
    vault.index()
    write(vault, "topics/coffee.md", "# Coffee\nchanged\n")
    write(vault, "new.md", "# New\n")
    (vault.root / "journal/day.md").unlink()
    st = vault.index_status()
    assert (st.notes, st.indexed) == (3, 3)
    assert (st.to_add, st.to_update, st.to_remove) == (["new.md"], ["topics/coffee.md"], ["journal/day.md"])


def test_relevant_notes_records_use_so_value_accrues(vault: Vault, mem: Memory) -> None:
    _three(vault)
    vault.index()
    hit = vault.relevant_notes("coffee delays sleep", k=1)[0]
    assert hit.path == "topics/coffee.md"
    assert mem.get(hit.item_id, scope=SCOPE).last_used_query == "coffee delays sleep"


def test_new_notes_are_not_checked_as_claims_nor_left_for_the_dream_pass(tmp_path: Path) -> None:
    # With write-time detection off, every unchecked claim is flagged for the dream pass: notes are not claims.
    mem, _ = make_memory(path=str(tmp_path / "m.db"), detect_conflicts=False)
    v = Vault(tmp_path / "w", memory=mem, scope=SCOPE)
    write(v, "swap.md", "The on-call engineer is Bob.\n")
    v.index()
    mem.remember("The on-call engineer is Carol.", scope=SCOPE)
    flagged = mem.list(scope=SCOPE, where=Q.flag("conflicts_unchecked")).items
    assert [i.kind for i in flagged] == ["observation"]
    mem.close()


def test_a_note_deleted_then_restored_is_indexed_again(vault: Vault, mem: Memory) -> None:
    write(vault, "a.md", "# A\nsame words\n")
    vault.index()
    (vault.root / "a.md").unlink()
    assert vault.index().removed == ["a.md"]
    write(vault, "a.md", "# A\nsame words\n")
    assert vault.index().added == ["a.md"]
    assert [i.meta["note"] for i in mem.list(scope=SCOPE, where=notes_filter(vault.name)).items] == ["a.md"]
    assert vault.index().touched == 0


def test_a_note_edited_back_to_an_earlier_text_is_current_again(vault: Vault, mem: Memory) -> None:
    write(vault, "a.md", "# A\nfirst\n")
    vault.index()
    write(vault, "a.md", "# A\nsecond\n")
    vault.index()
    write(vault, "a.md", "# A\nfirst\n")
    assert vault.index().updated == ["a.md"]
    items = mem.list(scope=SCOPE, where=notes_filter(vault.name)).items
    assert [i.text.endswith("first") for i in items] == [True]
    assert vault.index().touched == 0


def test_a_far_future_front_matter_date_is_reported_not_dropped_silently(vault: Vault, mem: Memory) -> None:
    """Outside probe 7, finding 14: 'updated: 2999-01-01' was replaced by the clock with no word in problems."""
    write(vault, "future.md", "---\nupdated: 2999-01-01\n---\nbody\n")
    write(vault, "bom.md", "\ufeff---\nupdated: 2021-01-01\ntags: [ops]\n---\nRestart the queue nightly.\n")
    r = vault.index()
    assert list(r.problems) == ["future.md"] and "2999-01-01" in r.problems["future.md"][0]
    by = {i.meta["note"]: i for i in mem.list(scope=SCOPE, where=notes_filter(vault.name)).items}
    assert by["future.md"].valid_from == mem.clock.now()
    assert by["bom.md"].valid_from == datetime(2021, 1, 1, tzinfo=UTC) and by["bom.md"].tags == ("ops",)
    assert "updated:" not in by["bom.md"].text
    assert "future.md" in vault.maintenance_report().problems
