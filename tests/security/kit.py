"""Helpers for the purge security suite: a raw byte scan of a store's files, and both backends.

The scan reads every file SQLite or reverie keeps beside the database (``-wal``, ``-shm``,
``-journal``, the ``.ann/`` sidecar directory), so "no trace on disk" means no trace in any of
them, not only in the main file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reverie import Memory


def store_files(db: Path) -> list[Path]:
    """The database and every file beside it whose name starts with the database's name."""
    beside = [p for p in db.parent.iterdir() if p.name.startswith(db.name)]
    return sorted(f for p in beside for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())


def needles(*canaries: str) -> list[bytes]:
    """Each canary as UTF-8, as written and case-folded (full-text tokens and fingerprints fold case)."""
    return sorted({form.encode("utf-8") for c in canaries for form in (c, c.casefold())})


def found_on_disk(db: Path, canaries: Iterable[str]) -> dict[str, int]:
    """``{"file: needle": count}`` for every needle present in any store file (empty: none found)."""
    wanted = needles(*canaries)
    hits: dict[str, int] = {}
    for path in store_files(db):
        data = path.read_bytes()
        for needle in wanted:
            if (n := data.count(needle)) > 0:
                hits[f"{path.name}: {needle.decode()}"] = n
    return hits


def dump(value: Any) -> str:
    """JSON text of ``value``, case-folded, for substring checks against a canary."""
    return json.dumps(value, ensure_ascii=False, default=str).casefold()


def everything_readable(mem: Memory, scope: str) -> str:
    """Every event, item, edge and tombstone of ``scope`` as one case-folded text."""
    return dump(
        {
            "events": [e.to_dict() for e in mem.events(scope=scope, limit=100_000)],
            "items": [i.to_dict() for i in mem.list(scope=scope, include_closed=True, limit=1000).items],
            "edges": [e.to_dict() for e in mem.edges(scope=scope, include_closed=True)],
            "tombstones": mem.store.tombstones(scope),
        }
    )
