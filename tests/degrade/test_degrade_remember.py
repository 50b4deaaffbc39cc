"""Graceful degradation (issue #13.7): with the embedder failing, ``remember`` still stores the
claim (its vector pending), ``recall`` / ``context`` answer from full text, and the vector is
backfilled later (a write, the dream pass, ``reindex``); ``doctor`` and ``summary`` count it."""

from __future__ import annotations

from pathlib import Path

import pytest
from degrade_embedders import SwitchableEmbedder

from reverie import Memory
from reverie.errors import EmbedderError, EmbedderMismatchError
from reverie.store.reference import ReferenceStore
from reverie.testing import EPOCH, ManualClock

#: The flag a claim stored without its vector carries (public: ``Q.flag("vector_pending")``).
VECTOR_PENDING = "vector_pending"


def _open(kind: str, tmp_path: Path, emb: SwitchableEmbedder) -> Memory:
    if kind == "sqlite":
        return Memory(tmp_path / "m.db", embedder=emb, clock=ManualClock(EPOCH), seed=1)
    return Memory(store=ReferenceStore(), embedder=emb, clock=ManualClock(EPOCH), seed=1)


BACKENDS = pytest.mark.parametrize("kind", ["sqlite", "reference"])


@BACKENDS
def test_remember_stores_claim_with_vector_pending_when_embedder_fails(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        mem.remember("the deploy runs on fridays", scope="s")  # records the embedder
        switchable.down = True
        item = mem.remember("alice prefers green tea", scope="s")
        assert VECTOR_PENDING in item.flags
        assert mem.get(item.id, scope="s").text == "alice prefers green tea"
        assert mem.summary(scope="s")["vectors_pending"] == 1
        report = mem.doctor()
        assert report.ok, report.problems
        assert report.counts["vectors_pending"] == 1


@BACKENDS
def test_remember_many_degrades_as_one_batch(kind: str, tmp_path: Path, switchable: SwitchableEmbedder) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        switchable.down = True  # down from the start: no embedder recorded yet
        items = mem.remember_many([{"text": "one green apple"}, {"text": "two red pears"}], scope="s")
        assert all(VECTOR_PENDING in i.flags for i in items)
        assert mem.summary(scope="s")["vectors_pending"] == 2
        assert mem.doctor().ok


@BACKENDS
def test_hybrid_recall_answers_from_full_text_and_says_dense_was_unavailable(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        mem.remember("alice prefers green tea", scope="s")
        mem.remember("bob drinks black coffee", scope="s")
        switchable.down = True
        hits = mem.recall("green tea", scope="s")
        assert [h.item.text for h in hits][:1] == ["alice prefers green tea"]
        assert all(h.why["dense"].startswith("unavailable: model files are missing") for h in hits)
        block = mem.context("green tea", scope="s")
        assert "alice prefers green tea" in block


@BACKENDS
def test_dense_only_recall_raises_clear_embedder_error(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        mem.remember("alice prefers green tea", scope="s")
        switchable.down = True
        with pytest.raises(EmbedderError, match="mode='hybrid'") as info:
            mem.recall("green tea", scope="s", mode="dense")
        assert info.value.code == "embedder"


@BACKENDS
def test_recall_with_working_embedder_has_no_dense_note(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        mem.remember("alice prefers green tea", scope="s")
        hits = mem.recall("green tea", scope="s")
        assert hits and all("dense" not in h.why for h in hits)


@BACKENDS
def test_later_successful_write_backfills_pending_vectors(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        mem.remember("the deploy runs on fridays", scope="s")
        switchable.down = True
        pending = mem.remember("alice prefers green tea", scope="s")
        switchable.down = False
        mem.remember("bob drinks black coffee", scope="s")
        assert VECTOR_PENDING not in mem.get(pending.id, scope="s").flags
        assert mem.summary(scope="s")["vectors_pending"] == 0
        dense = mem.recall("alice prefers green tea", scope="s", mode="dense", record_use=False)
        assert pending.id in [h.item.id for h in dense]
        assert mem.doctor().ok


@BACKENDS
def test_dream_pass_backfills_pending_vectors(kind: str, tmp_path: Path, switchable: SwitchableEmbedder) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        mem.remember("the deploy runs on fridays", scope="s")
        switchable.down = True
        pending = mem.remember("alice prefers green tea", scope="s")
        switchable.down = False
        report = mem.dream(scope="s")
        assert "backfilled 1 pending vector(s)" in report.notes
        assert mem.summary(scope="s")["vectors_pending"] == 0
        dense = mem.recall("alice prefers green tea", scope="s", mode="dense", record_use=False)
        assert dense[0].item.id == pending.id


@BACKENDS
def test_reindex_fills_every_pending_vector_and_clears_flags(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        switchable.down = True
        a = mem.remember("alice prefers green tea", scope="s")
        gone = mem.remember("carol left the team", scope="t")
        mem.forget(gone.id, scope="t")  # closed while pending: reindex fills its history vector
        switchable.down = False
        mem.reindex()
        assert mem.summary(scope="s")["vectors_pending"] == 0
        assert VECTOR_PENDING not in mem.get(a.id, scope="s").flags
        report = mem.doctor()
        assert report.ok, report.problems
        assert report.counts["vectors_pending"] == 0


def test_doctor_still_flags_a_missing_vector_that_is_not_pending(
    tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    """Pending is not a blanket excuse: a vector row lost otherwise is still an index problem."""
    import sqlite3

    with Memory(tmp_path / "m.db", embedder=switchable, clock=ManualClock(EPOCH), seed=1) as mem:
        switchable.down = True
        mem.remember("alice prefers green tea", scope="s")
        switchable.down = False
        mem.remember("bob drinks black coffee", scope="s")  # backfills alice
        mem.remember("carol reads poems", scope="s")
        path = tmp_path / "m.db"
    with sqlite3.connect(path) as c:
        c.execute("DELETE FROM vectors WHERE n = (SELECT max(n) FROM vectors)")
    with Memory(path, embedder=switchable, clock=ManualClock(EPOCH), seed=1) as mem:
        report = mem.doctor()
        assert not report.ok
        assert any("missing from the vector index" in p for p in report.problems)


def test_embedder_mismatch_still_refuses_the_write(tmp_path: Path, switchable: SwitchableEmbedder) -> None:
    """A mismatch is a configuration error, not an outage: nothing is stored."""
    from reverie.embed import HashEmbedder

    path = tmp_path / "m.db"
    with Memory(path, embedder=switchable, clock=ManualClock(EPOCH), seed=1) as mem:
        mem.remember("alice prefers green tea", scope="s")
    with Memory(path, embedder=HashEmbedder(dim=32), clock=ManualClock(EPOCH), seed=2) as mem:
        with pytest.raises(EmbedderMismatchError):
            mem.remember("bob drinks black coffee", scope="s")
        assert mem.summary(scope="s")["current"] == 1


def test_a_bug_in_the_embedder_is_not_hidden(tmp_path: Path) -> None:
    """Only ``EmbedderError`` degrades; any other exception is a bug and reaches the caller."""
    from reverie.embed import HashEmbedder

    class Broken(HashEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            raise ZeroDivisionError("a bug")

    with Memory(tmp_path / "m.db", embedder=Broken(dim=16), clock=ManualClock(EPOCH), seed=1) as mem:
        with pytest.raises(ZeroDivisionError):
            mem.remember("alice prefers green tea", scope="s")
        assert mem.summary(scope="s")["current"] == 0


TEA = (
    "Alice prefers green tea in the morning",
    "In the morning Alice prefers green tea",
    "Alice prefers green tea every morning",
)


@BACKENDS
def test_dream_pass_with_embedder_down_stores_gist_with_vector_pending(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        for t in TEA:
            mem.remember(t, scope="s", kind="episodic")
        switchable.down = True
        report = mem.dream(scope="s")
        created = [o.created for o in report.outcomes if o.created]
        assert len(created) == 1
        gist = mem.get(str(created[0]), scope="s")
        assert VECTOR_PENDING in gist.flags
        assert mem.summary(scope="s")["vectors_pending"] == 1
        assert mem.doctor().ok


@BACKENDS
def test_revise_with_embedder_down_stores_new_version_with_vector_pending(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    with _open(kind, tmp_path, switchable) as mem:
        old = mem.remember("alice prefers green tea", scope="s")
        switchable.down = True
        new = mem.revise(old.id, "alice prefers black tea", scope="s")
        assert VECTOR_PENDING in new.flags and new.text == "alice prefers black tea"
        assert [h.item.id for h in mem.recall("black tea", scope="s", record_use=False)][:1] == [new.id]
        assert mem.doctor().ok


@BACKENDS
def test_purge_with_embedder_down_refuses_and_changes_nothing(
    kind: str, tmp_path: Path, switchable: SwitchableEmbedder
) -> None:
    """A purge's redacted version must replace the old vector: it waits for a working embedder."""
    with _open(kind, tmp_path, switchable) as mem:
        item = mem.remember("alice's phone number is 555-0100", scope="s")
        switchable.down = True
        with pytest.raises(EmbedderError):
            mem.forget(item.id, scope="s", purge=True)
        assert mem.get(item.id, scope="s").text == "alice's phone number is 555-0100"
