"""One consistent-enough read of a scope: current items, their vectors, edges, parents.

Why read the store directly: a pass over 100k items cannot page through ``Memory.list``
(capped at ``Limits.max_k`` per page, with OFFSET paging). These are the store protocol's
*read* methods only (``query``, ``vectors``, ``edges``, ``get_many``); every write still goes
through ``Memory``. The reads are separate statements, not one transaction, so an item may
change between them — harmless, because every action is re-checked against the version read
here before it is applied.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from reverie.dream.agenda_hold import open_agenda_claims
from reverie.model.item import Edge, Item
from reverie.model.query import Q, parse_sort

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost

#: Read in one query: far above any scope a pass is meant for (a pass at 1M is benchmarked).
_ALL = 10**9


@dataclass(slots=True)
class Snapshot:
    """Current items sorted by id, rows of ``vectors`` aligned to them (zero rows if missing).

    ``vectors`` may be a read-only view of the store's cached matrix: read it, never write it.
    """

    scope: str
    now: datetime
    items: list[Item]
    vectors: np.ndarray
    has_vector: np.ndarray
    edges: list[Edge]
    #: Parents of current items that are not themselves current (closed), by id.
    closed_parents: dict[str, Item] = field(default_factory=dict)
    #: Current claims an open intent or task is about, with why (``agenda_hold``): never pruned.
    agenda: dict[str, str] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    #: Pairs of current items a person said do not conflict (``dismissed_pairs``): never linked again.
    dismissed: frozenset[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        self.index = {it.id: i for i, it in enumerate(self.items)}

    def item(self, item_id: str) -> Item | None:
        i = self.index.get(item_id)
        return self.items[i] if i is not None else None


def read_snapshot(mem: DreamHost, scope: str) -> Snapshot:
    """Read ``scope`` once: the pass plans from this and nothing else."""
    now = mem.clock.now()
    store = mem.store
    items = store.query(scope, Q.status("live"), parse_sort(["id"]), limit=_ALL)
    items = [it for it in items if it.is_current]
    vectors, has = _aligned(items, *store.vectors(scope, current_only=True))
    edges = store.edges(scope, include_closed=False)
    current = {it.id for it in items}
    wanted = sorted({p for it in items for p in it.parents if p not in current})
    closed = store.get_many(scope, wanted) if wanted else {}
    snap = Snapshot(scope, now, items, vectors, has, edges, closed, open_agenda_claims(store, scope, current))
    snap.dismissed = dismissed_pairs(store.edges_by_type(scope, "contradicts", include_closed=True), current)
    return snap


def dismissed_pairs(edges: Iterable[Edge], current: Container[str]) -> frozenset[frozenset[str]]:
    """The pairs of ``current`` items joined by a *closed* ``contradicts`` edge.

    Why that reads as "a person said they do not conflict": closing either claim closes its
    conflicts in the same transaction, and no claim is ever reopened, so such an edge between two
    claims both still believed was closed on its own — by ``unlink`` / ``dismiss_contradiction``.
    A new version of either claim has a new id, so it is checked again.
    """
    return frozenset(
        frozenset((e.src, e.dst)) for e in edges if not e.is_current and e.src in current and e.dst in current
    )


def _aligned(items: list[Item], ids: list[str], mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``mat`` (one per id of ``ids``) moved to the rows of ``items``; zeros where missing.

    Why two paths: the store returns its vectors in insertion order, and ids are time-ordered,
    so at 100k items the ids usually *are* the items' ids in order. Then the store's matrix is
    the answer as it stands: a read-only view of it (the store caches that matrix; the pass
    only reads vectors) instead of a 150 MB copy and a dict of 100k ids (~0.3 s together).
    """
    dim = int(mat.shape[1]) if mat.ndim == 2 and mat.shape[0] else 0
    item_ids = [it.id for it in items]
    if dim and len(ids) == len(items) == mat.shape[0] and ids == item_ids:
        view = np.ascontiguousarray(mat, dtype=np.float32).view()
        view.flags.writeable = False
        return view, np.ones(len(items), dtype=bool)
    vectors = np.zeros((len(items), dim), dtype=np.float32)
    has = np.zeros(len(items), dtype=bool)
    if dim:
        pos = dict(zip(item_ids, range(len(item_ids)), strict=True))
        dst = np.fromiter((pos.get(i, -1) for i in ids), dtype=np.int64, count=len(ids))
        src = np.flatnonzero(dst >= 0)
        dst = dst[src]
        # Every vector has its item: copy the matrix as it stands, not a 150 MB gathered temporary.
        vectors[dst] = mat if len(src) == len(ids) == mat.shape[0] else mat[src]
        has[dst] = True
    return vectors, has


__all__ = ["Snapshot", "read_snapshot"]
