"""The ANN sidecar (``<db>.ann/``) is a copy of vectors: a purge and a recovered scrub drop it.

Not a finding of issue #14 (the purge already dropped it), but the property suite's scopes are
too small to have a sidecar, so this pins the "sidecars" part of "every stored copy" with a
scope above a lowered ANN threshold: the purged text's float32 vector is found in the sidecar
before the purge and in no store file after it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reverie import ManualClock, Memory
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.ann import AnnConfig

from .kit import store_files

SCOPE = "user:alice"
SECRET = "the locker code is Lk2Sidecar8"


def _vector_hits(db: Path, needle: bytes) -> dict[str, int]:
    return {p.name: n for p in store_files(db) if (n := p.read_bytes().count(needle))}


def test_purge_leaves_the_purged_vector_in_no_sidecar(tmp_path: Path, clock: ManualClock) -> None:
    db = tmp_path / "ann.db"
    store = SQLiteStore(db, durability="fast", ann=AnnConfig(threshold=40))
    with Memory(store=store, embedder="hash", clock=clock, seed=1, detect_conflicts=False) as mem:
        mem.remember_many([{"text": f"note {i} about shelf {i % 7}"} for i in range(60)], scope=SCOPE)
        secret = mem.remember(SECRET, scope=SCOPE)
        assert store.warm(SCOPE)
        needle = np.asarray(mem.embedder.embed([SECRET])[0], dtype=np.float32).tobytes()
        assert any(name.endswith(".ivf") for name in _vector_hits(db, needle))  # the scan can fail
        mem.forget(secret.id, scope=SCOPE, purge=True)
        assert _vector_hits(db, needle) == {}
        assert store.warm(SCOPE)  # rebuilt from the redacted rows
        assert _vector_hits(db, needle) == {}
        assert mem.doctor().ok
