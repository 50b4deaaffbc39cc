"""The snapshot's vectors: rows aligned to the items whichever path ``_aligned`` takes.

Why: at 100k items the store's vector ids already come in the items' order, and the snapshot
then hands out a read-only view of the store's cached matrix instead of copying it. Both that
shortcut and the general path must give exactly the arrays the plain alignment gives
(``_plain`` below: every vector moved to its item's row, zeros where an item has none).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie import Memory
from reverie.dream.snapshot import _aligned, read_snapshot
from reverie.model.item import Item
from reverie.model.query import Q, parse_sort
from reverie.testing import dream_host

from .kit import S

T = datetime(2025, 1, 1, tzinfo=UTC)


def _item(item_id: str) -> Item:
    return Item(item_id, S, "t", "observation", "observed", T, T)


def _plain(items: list[Item], ids: list[str], mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The alignment spelled out one row at a time: the specification ``_aligned`` must meet."""
    dim = int(mat.shape[1]) if mat.ndim == 2 and mat.shape[0] else 0
    vectors = np.zeros((len(items), dim), dtype=np.float32)
    has = np.zeros(len(items), dtype=bool)
    row = {it.id: i for i, it in enumerate(items)}
    for k, item_id in enumerate(ids):
        if dim and item_id in row:
            vectors[row[item_id]] = mat[k]
            has[row[item_id]] = True
    return vectors, has


def _same(got: tuple[np.ndarray, np.ndarray], want: tuple[np.ndarray, np.ndarray]) -> None:
    for g, w in zip(got, want, strict=True):
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        assert g.tobytes() == w.tobytes()
        assert g.flags["C_CONTIGUOUS"]


@st.composite
def alignments(draw: st.DrawFn) -> tuple[list[Item], list[str], np.ndarray]:
    """Items sorted by id; vector ids that are the same, a subset, shuffled, or with strangers."""
    names = draw(st.lists(st.text("abcdef", min_size=1, max_size=3), unique=True, max_size=12))
    items = [_item(n) for n in sorted(names)]
    strangers = draw(st.lists(st.sampled_from(["x1", "x2", "zz"]), unique=True))
    some = draw(st.lists(st.sampled_from(sorted(names)), unique=True)) if names else []
    ids = draw(st.one_of(st.just(sorted(names)), st.permutations(some + strangers)))
    dim = draw(st.sampled_from([0, 1, 3]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    mat = np.arange(len(ids) * dim, dtype=dtype).reshape(len(ids), dim) + 0.25
    return items, ids, mat


@given(case=alignments())
def test_aligned_rows_are_the_plain_alignment(case: tuple[list[Item], list[str], np.ndarray]) -> None:
    items, ids, mat = case
    _same(_aligned(items, ids, mat), _plain(items, ids, mat))


def test_ids_already_in_item_order_share_the_matrix_read_only() -> None:
    items = [_item(n) for n in ("a", "b", "c")]
    mat = np.arange(6, dtype=np.float32).reshape(3, 2)
    vectors, has = _aligned(items, ["a", "b", "c"], mat)
    _same((vectors, has), _plain(items, ["a", "b", "c"], mat))
    assert np.shares_memory(vectors, mat)  # no copy of the (150 MB at 100k) matrix
    with pytest.raises(ValueError, match="read-only"):
        vectors[0, 0] = 9.0  # a pass that wrote here would corrupt the store's cache
    assert mat.flags["WRITEABLE"] and mat[0, 0] == 0.0  # the store's own array is untouched


def test_snapshot_vectors_are_the_stored_vectors_of_its_items(open_db: Callable[..., Memory]) -> None:
    mem = open_db("snap")
    kept = [mem.remember(f"fact number {i} about the garden", scope=S).id for i in range(6)]
    gone = mem.remember("a fact that will be forgotten", scope=S).id
    mem.forget(gone, scope=S, reason="test")
    snap = read_snapshot(dream_host(mem), S)
    assert [it.id for it in snap.items] == sorted(kept)
    assert snap.items == mem.store.query(S, Q.status("live"), parse_sort(["id"]), limit=100)
    ids, mat = mem.store.vectors(S, current_only=True)
    stored = dict(zip(ids, mat, strict=True))
    assert snap.has_vector.all() and snap.vectors.dtype == np.float32
    for row, it in enumerate(snap.items):
        assert snap.vectors[row].tobytes() == stored[it.id].tobytes()
    assert not snap.vectors.flags["WRITEABLE"]
