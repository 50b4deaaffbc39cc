"""The upkeep capability: doctor, rebuild, reindex and backup of the whole store.

Operators' tools rather than agents': they act on every scope at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reverie.errors import InvalidInputError
from reverie.memory.core import Core
from reverie.store.protocol import DoctorReport


class Maintenance:
    """``doctor``, ``rebuild``, ``reindex`` and ``backup`` over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def reindex(self, *, progress: Any = None) -> int:
        """Re-embed every item with the current embedder and record it; returns items done."""
        core = self._core
        emb = core.embedder
        core.store.set_embedder(emb.name, emb.dim)
        return core.store.reindex(emb.embed, progress=progress)

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

    def backup(self, target: str | Path) -> None:
        """Write a consistent copy of the store to ``target`` with SQLite's backup API."""
        backup = getattr(self._core.store, "backup", None)
        if backup is None:
            raise InvalidInputError("this store backend has no backup")
        backup(target)
