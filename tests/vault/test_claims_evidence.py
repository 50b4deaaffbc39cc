"""Reading one note's claims again is not new evidence (outside probe 2, finding #13)."""

from __future__ import annotations

from vault_support import write

from reverie import Memory
from reverie.vault import Vault


def test_re_extracting_an_unchanged_note_counts_its_claims_once(vault: Vault, mem: Memory) -> None:
    write(vault, "people/bob/oncall.md", "# On-call\nThe on-call engineer is Bob.\n")
    first = vault.extract_claims("people/bob/oncall.md", remember=True)
    for _ in range(3):
        again = vault.extract_claims("people/bob/oncall.md", remember=True)
        assert [c.item_id for c in again] == [c.item_id for c in first]
    item = mem.get(first[0].item_id or "", scope=vault.scope)
    assert item.evidence_count == 1


def test_a_sentence_repeated_in_one_note_counts_once(vault: Vault, mem: Memory) -> None:
    text = "# Rep\n" + "The deploy runs on Fridays. " * 50 + "\n\nThe deploy runs on Fridays.\n"
    write(vault, "people/bob/rep.md", text)
    found = vault.extract_claims("people/bob/rep.md", remember=True)
    assert len(found) == 51 and len({c.item_id for c in found}) == 1
    assert mem.get(found[0].item_id or "", scope=vault.scope).evidence_count == 1


def test_another_note_stating_the_same_is_still_corroboration(vault: Vault, mem: Memory) -> None:
    write(vault, "people/bob/a.md", "# A\nThe deploy runs on Fridays.\n")
    write(vault, "people/bob/b.md", "# B\nThe deploy runs on Fridays.\n")
    a = vault.extract_claims("people/bob/a.md", remember=True)
    b = vault.extract_claims("people/bob/b.md", remember=True)
    assert a[0].item_id == b[0].item_id
    assert mem.get(a[0].item_id or "", scope=vault.scope).evidence_count == 2


def test_regression_re_reading_a_note_that_corroborated_another_counts_it_once(vault: Vault, mem: Memory) -> None:
    """Note b corroborated a's claim; reading b again (unchanged) is not new evidence each time."""
    write(vault, "people/bob/a.md", "# A\nThe deploy runs on Fridays.\n")
    write(vault, "people/bob/b.md", "# B\nThe deploy runs on Fridays.\n")
    a = vault.extract_claims("people/bob/a.md", remember=True)
    for _ in range(3):
        b = vault.extract_claims("people/bob/b.md", remember=True)
        assert b[0].item_id == a[0].item_id
    assert mem.get(a[0].item_id or "", scope=vault.scope).evidence_count == 2
    vault.extract_claims("people/bob/a.md", remember=True)
    assert mem.get(a[0].item_id or "", scope=vault.scope).evidence_count == 2


def test_a_dismissed_sentence_is_skipped_with_its_reason_and_the_rest_remembered(vault: Vault, mem: Memory) -> None:
    """Outside probe 7, finding 8: one dismissed sentence stopped every later extraction of its note."""
    write(vault, "ops/backup.md", "# Backups\nBackups are kept for 30 days.\nThe backup server is in Frankfurt.\n")
    first = vault.extract_claims("ops/backup.md", remember=True)
    frankfurt = next(c for c in first if "Frankfurt" in c.text)
    mem.dismiss(frankfurt.item_id or "", scope=vault.scope, reason="the server moved")
    with (vault.root / "ops/backup.md").open("a") as fh:
        fh.write("Backups are encrypted with AES.\n")
    again = vault.extract_claims("ops/backup.md", remember=True)
    by = {c.text: c for c in again}
    skipped = by["The backup server is in Frankfurt."]
    assert skipped.item_id is None and skipped.skipped is not None and "dismissed" in skipped.skipped
    aes = by["Backups are encrypted with AES."]
    assert aes.item_id is not None and aes.skipped is None
    assert mem.get(aes.item_id, scope=vault.scope).status == "live"
