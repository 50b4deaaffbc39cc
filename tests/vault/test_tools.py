"""The thinking tools as library calls, on the sample vault and on small hand-made vaults."""

from __future__ import annotations

import pytest
from vault_support import SCOPE, write

from reverie import ManualClock, Memory, Q
from reverie.vault import NOTE_KIND, Vault


@pytest.fixture
def indexed(sample: Vault) -> Vault:
    sample.index()
    return sample


def test_relevant_notes_ranks_the_note_and_quotes_its_best_line(indexed: Vault) -> None:
    hits = indexed.relevant_notes("how long are nightly database backups kept", k=3)
    assert hits[0].path == "ops/database-backups.md"
    lines = (indexed.root / "ops/database-backups.md").read_text().split("\n")
    assert hits[0].excerpt.startswith("A full backup runs every night")
    assert hits[0].line is not None and lines[hits[0].line - 1].startswith(hits[0].excerpt)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_coverage_gap_names_the_sub_terms_no_note_supports(indexed: Vault) -> None:
    cov = indexed.coverage_gap('does "spaced repetition" lower churn for students on kubernetes')
    assert cov.terms == ["spaced repetition", "lower", "churn", "students", "kubernetes"]
    assert cov.missing == ["kubernetes"]  # only a dead link names it: no note says anything about it
    assert cov.completeness == 0.8
    assert cov.supported_by["spaced repetition"] in {h.path for h in cov.notes} | {"research/spaced-repetition.md"}


def test_coverage_of_a_question_the_vault_fully_answers_is_complete(indexed: Vault) -> None:
    assert indexed.coverage_gap("database backups restore").completeness == 1.0


def test_find_gaps_lists_isolated_and_under_linked_notes_and_thin_folders(vault: Vault) -> None:
    write(vault, "a/one.md", "# One\n[[two]]\n")
    write(vault, "a/two.md", "# Two\n[[one]] [[three]]\n")
    write(vault, "a/three.md", "# Three\n")
    write(vault, "b/lonely.md", "# Lonely\n")
    gaps = vault.find_gaps()
    assert gaps.isolated == ["b/lonely.md"]
    assert gaps.under_linked == ["a/one.md", "a/three.md"]
    assert gaps.thin_folders == {"b": 1}


def test_bridge_candidates_are_in_other_folders_and_not_linked(indexed: Vault) -> None:
    bridges = indexed.bridge_candidates("research/spaced-repetition.md", k=5)
    assert bridges, "the sample vault has notes close to spaced repetition in other folders"
    assert all(b.folder != "research" for b in bridges)
    linked = {"research/sleep-and-memory.md", "product/personas.md"}
    assert not linked & {b.path for b in bridges}
    assert bridges[0].path == "people/alice/spaced-repetition-notes.md"  # the near-copy, never linked from here


def test_extract_claims_gives_sentences_with_their_line_numbers(indexed: Vault) -> None:
    claims = indexed.extract_claims("curated/architecture.md")
    lines = (indexed.root / "curated/architecture.md").read_text().split("\n")
    assert claims and all(c.text.split()[0] in lines[c.line - 1] for c in claims)
    texts = [c.text for c in claims]
    assert "The reminder worker runs every five minutes and sends at most 500 reminders per run." in texts
    assert not any(t.startswith("#") for t in texts)


def test_extracted_claims_remembered_carry_provenance_to_note_and_line(indexed: Vault, mem: Memory) -> None:
    got = indexed.extract_claims("people/bob/on-call-swap.md", remember=True)
    first = mem.get(got[0].item_id or "", scope=SCOPE)
    assert first.text == "The on-call engineer this week is Bob."
    assert (first.provenance.origin, first.provenance.ref) == ("vault", f"{indexed.name}:people/bob/on-call-swap.md")
    assert first.provenance.locator == f"line {got[0].line}" and first.meta["line"] == got[0].line


def test_a_note_contradicting_memory_is_a_conflict_like_any_other(indexed: Vault, mem: Memory) -> None:
    carol = mem.remember_manual("The on-call engineer this week is Carol.", scope=SCOPE)
    got = indexed.extract_claims("people/bob/on-call-swap.md", remember=True)
    bob = next(c for c in got if "Bob" in c.text)
    assert [(c.other_id, c.axis) for c in bob.conflicts] == [(carol.id, "entity")]
    open_conflicts = mem.contradictions(scope=SCOPE)
    assert [{c.a.id, c.b.id} for c in open_conflicts] == [{carol.id, bob.item_id}]
    assert open_conflicts[0].alert  # it challenges a person's word: shown as an alert, like any other


def test_context_packs_notes_and_claims_or_either(indexed: Vault, mem: Memory) -> None:
    mem.remember("Backups are also copied to a second region every week.", scope=SCOPE)
    both = indexed.context("database backups", budget_tokens=2000)
    assert "[note ·" in both and "second region" in both
    notes_only = indexed.context("database backups", budget_tokens=2000, claims=False)
    claims_only = indexed.context("database backups", budget_tokens=2000, notes=False)
    assert "second region" not in notes_only and "[note ·" in notes_only
    assert "second region" in claims_only and "[note ·" not in claims_only


def test_recall_over_notes_is_hybrid(indexed: Vault, mem: Memory) -> None:
    hits = mem.recall("okapi bm25 ranking", scope=SCOPE, where=Q.kind(NOTE_KIND), k=3)
    assert hits[0].item.meta["note"] == "research/bm25.md"
    assert {"lexical_rank", "dense_rank"} <= set(hits[0].why)


def test_idea_methods_name_the_tools_they_use(vault: Vault) -> None:
    methods = vault.idea_methods()
    assert len(methods) >= 5 and len({m.name for m in methods}) == len(methods)
    callable_tools = {n for n in dir(vault) if not n.startswith("_")} | {"contradictions"}
    assert all(set(m.tools) <= callable_tools and m.steps for m in methods)


def test_notes_the_dream_pass_demoted_are_still_found(indexed: Vault, mem: Memory, clock: ManualClock) -> None:
    # After 30 idle days the dream pass sets unused notes to subconscious; recall's corrective pass
    # still finds the one that answers (and using it promotes it back).
    clock.advance(days=90)
    mem.dream(scope=SCOPE)
    demoted = mem.list(scope=SCOPE, where=Q.kind(NOTE_KIND) & Q.tier("subconscious")).items
    assert "ops/database-backups.md" in {i.meta["note"] for i in demoted}
    hit = indexed.relevant_notes("nightly database backups", k=1)[0]
    assert hit.path == "ops/database-backups.md"
    assert mem.get(hit.item_id, scope=SCOPE).tier == "active"
