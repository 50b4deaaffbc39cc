"""#14.5: a reindex killed part-way must never leave the store serving two embedders' vectors.

The repro: ``reindex`` rewrote the vectors batch by batch under the new embedder's label, so a
SIGKILL after a few batches left most vectors the old model's (2,488 of 3,000), ``doctor`` said
ok and recall compared new query vectors with old item vectors. Here a real child process is
SIGKILL-ed right after its first batch is durable.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from reverie import EmbedderMismatchError, Memory
from reverie.embed import HashEmbedder

from .reindex_workers import SCOPE, new_embedder, reindex_killed_after_first_batch
from .support import made_by, vector_rows

ITEMS = 700  # three batches of the store's 256


class CountingEmbedder:
    """The new embedder, counting the texts it is asked for (to see a resumed reindex skip work)."""

    def __init__(self) -> None:
        self.inner = new_embedder()
        self.texts = 0

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return np.asarray(self.inner.embed(texts))


def _filled(db: Path) -> None:
    with Memory(db, embedder=HashEmbedder(), durability="fast") as mem:
        mem.remember_many([{"text": f"item number {i} about topic {i % 17}"} for i in range(ITEMS)], scope=SCOPE)


def _kill_mid_reindex(db: Path) -> None:
    proc = mp.get_context("spawn").Process(target=reindex_killed_after_first_batch, args=(str(db),))
    proc.start()
    proc.join(120)
    assert proc.exitcode == -signal.SIGKILL, proc.exitcode


def test_reindex_killed_after_a_batch_serves_no_mix_and_the_next_reindex_finishes_it(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _filled(db)
    _kill_mid_reindex(db)

    rows = vector_rows(db)
    assert len(rows) == ITEMS
    # Built aside: not one current vector was switched to the new model before the swap.
    assert made_by(HashEmbedder(), rows) == set(rows)
    emb = CountingEmbedder()
    with Memory(db, embedder=emb) as mem:
        report = mem.doctor()
        assert not report.ok
        assert any("interrupted reindex" in p and "reverie reindex" in p for p in report.problems), report.problems
        with pytest.raises(EmbedderMismatchError, match="reindex"):
            mem.recall("topic 3", scope=SCOPE, mode="dense")

        emb.texts = 0  # the refused recall embedded its query
        assert mem.reindex() == ITEMS
        assert emb.texts == ITEMS - 256  # the killed run's first batch was kept, not embedded again
        assert mem.doctor().ok, mem.doctor().problems
        assert mem.recall("topic 3", scope=SCOPE, mode="dense", k=3)
    rows = vector_rows(db)
    assert len(rows) == ITEMS and made_by(new_embedder(), rows) == set(rows)
