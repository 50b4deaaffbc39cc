"""One consistent-enough read of a scope: current items, their vectors, edges, parents.

Why read the store directly: a pass over 100k items cannot page through ``Memory.list``
(capped at ``Limits.max_k`` per page, with OFFSET paging). These are the store protocol's
*read* methods only (``query``, ``vectors``, ``edges``, ``get_many``); every write still goes
through ``Memory``. The reads are separate statements, not one transaction, so an item may
change between them — harmless, because every action is re-checked against the version read
here before it is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from reverie.model.item import Edge, Item
from reverie.model.query import Q, parse_sort

if TYPE_CHECKING:
    from reverie.memory import Memory

#: Read in one query: far above any scope a pass is meant for (a pass at 1M is benchmarked).
_ALL = 10**9


@dataclass(slots=True)
class Snapshot:
    """Current items sorted by id, rows of ``vectors`` aligned to them (zero rows if missing)."""

    scope: str
    now: datetime
    items: list[Item]
    vectors: np.ndarray
    has_vector: np.ndarray
    edges: list[Edge]
    #: Parents of current items that are not themselves current (closed), by id.
    closed_parents: dict[str, Item] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {it.id: i for i, it in enumerate(self.items)}

    def item(self, item_id: str) -> Item | None:
        i = self.index.get(item_id)
        return self.items[i] if i is not None else None


def read_snapshot(mem: Memory, scope: str) -> Snapshot:
    """Read ``scope`` once: the pass plans from this and nothing else."""
    now = mem.clock.now()
    store = mem.store
    items = store.query(scope, Q.status("live"), parse_sort(["id"]), limit=_ALL)
    items = [it for it in items if it.is_current]
    ids, mat = store.vectors(scope, current_only=True)
    dim = int(mat.shape[1]) if mat.ndim == 2 and mat.shape[0] else 0
    vectors = np.zeros((len(items), dim), dtype=np.float32)
    has = np.zeros(len(items), dtype=bool)
    if dim:
        pos = {it.id: i for i, it in enumerate(items)}
        rows = [(pos[i], k) for k, i in enumerate(ids) if i in pos]
        if rows:
            dst = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            src = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
            vectors[dst] = mat[src]
            has[dst] = True
    edges = store.edges(scope, include_closed=False)
    current = {it.id for it in items}
    wanted = sorted({p for it in items for p in it.parents if p not in current})
    closed = store.get_many(scope, wanted) if wanted else {}
    return Snapshot(scope, now, items, vectors, has, edges, closed)


__all__ = ["Snapshot", "read_snapshot"]
