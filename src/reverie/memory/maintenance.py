"""The upkeep capability: doctor, rebuild, reindex and backup of the whole store.

Operators' tools rather than agents': they act on every scope at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reverie.errors import InvalidInputError
from reverie.memory.core import Core
from reverie.model import commands as cmd
from reverie.model.query import Q
from reverie.store.protocol import VECTOR_PENDING, DoctorReport

_CLEAR_BATCH = 500


class Maintenance:
    """``doctor``, ``rebuild``, ``reindex`` and ``backup`` over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def reindex(self, *, progress: Any = None) -> int:
        """Re-embed every item with the current embedder and record it; returns items done."""
        core = self._core
        emb = core.embedder
        core.store.set_embedder(emb.name, emb.dim)
        done = core.store.reindex(emb.embed, progress=progress)
        self._clear_pending()
        return done

    def _clear_pending(self) -> None:
        """After a reindex every item has its vector: drop every ``VECTOR_PENDING`` flag (all scopes,
        closed items too), in batches, so ``doctor`` and ``summary`` stop counting them."""
        store = self._core.store
        for scope in store.scopes():
            while items := store.query(scope, Q.flag(VECTOR_PENDING), (("id", False),), limit=_CLEAR_BATCH):
                clear = [cmd.SetFlags(scope, i.id, (), (VECTOR_PENDING,), "vector rebuilt by reindex") for i in items]
                store.execute(clear, now=self._core.clock.now(), new_id=self._core.new_id, vectors={})

    def doctor(self) -> DoctorReport:
        """Check every projection against the record store; ``report.ok`` is True when all agree."""
        core = self._core
        report = core.store.doctor()
        recorded = core.store.embedder()
        loaded = core.loaded_embedder
        if recorded is not None and loaded is not None and recorded[0] != loaded.name:
            report.problems.append(f"vectors were made by {recorded[0]!r}, the embedder is {loaded.name!r}")
        return report

    def rebuild(self) -> None:
        """Drop and rebuild every projection from the event log (the fix ``doctor`` points to)."""
        core = self._core
        emb = core.embedder
        core.store.set_embedder(emb.name, emb.dim)
        core.store.rebuild(emb.embed)
        self._clear_pending()  # the replay re-embedded every text, pending ones too

    def backup(self, target: str | Path, *, overwrite: bool = False) -> None:
        """Write a consistent copy of the store to ``target`` with SQLite's backup API.

        ``InvalidInputError`` (nothing written) for a target that names no file (``""``, blank,
        ``":memory:"``: SQLite would copy into a temporary database), the store itself or a file
        SQLite keeps beside a database (``-wal``, ``-shm``, ``-journal``), another application's
        database, or another reverie store holding events: an earlier backup of this store is
        replaced, any other store only with ``overwrite=True`` (a slip in the path must not erase
        a sibling store)."""
        backup = getattr(self._core.store, "backup", None)
        if backup is None:
            raise InvalidInputError("this store backend has no backup")
        backup(target, overwrite=overwrite)
