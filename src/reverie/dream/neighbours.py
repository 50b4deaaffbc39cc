"""Near-duplicate pairs at scale, and topic clusters that never merge a disagreement.

The join is exact for the lexical threshold and avoids the all-pairs product (100k items
would need ~10^10 cosines): it is a *prefix-filter* similarity join (Bayardo et al., WWW
2007). Order every frame token by how rare it is in the scope; two frames with Jaccard ≥ t
must share a token among the first ``|x| − ⌈t·|x|⌉ + 1`` rarest tokens of each. Grouping the
items by those prefix tokens yields every candidate pair; each candidate is then verified
vectorised, cheapest first: the length filter, the exact Jaccard (``dup_lexical``), then the
cosine of the stored vectors (``dup_dense``). Real text is Zipfian, so prefix groups are small. A group
larger than ``max_token_group`` (items made only of very common words) is skipped and counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from reverie.dream.config import DreamConfig

_PAIR_CHUNK = 65_536  # pairs per vectorised cosine block: bounds scratch memory (~200 MB at 384-d)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two items (row indexes, ``a < b``) whose frames and vectors are near-identical."""

    a: int
    b: int
    cosine: float
    overlap: float
    conflict: str | None  # why they disagree (a contradiction candidate), or None (mergeable)


@dataclass(frozen=True, slots=True)
class JoinStats:
    candidates: int
    groups_skipped: int


Guard = Callable[[int, int], str | None]
#: Frames longer than this are compared as Python sets, shorter ones in a padded matrix.
_WIDE = 48
#: Bytes of scratch per overlap block (pairs x width x width booleans).
_OVERLAP_BLOCK = 1 << 24


def token_ranks(frames: Sequence[frozenset[str]]) -> dict[str, int]:
    """Every frame token's rank, rarest first (ties by the token): the join's global order."""
    df: dict[str, int] = {}
    for f in frames:
        for tok in f:
            df[tok] = df.get(tok, 0) + 1
    return {tok: r for r, tok in enumerate(sorted(df, key=lambda t: (df[t], t)))}


def near_duplicates(
    frames: Sequence[frozenset[str]],
    ranks: dict[str, int],
    vectors: np.ndarray,
    has_vector: np.ndarray,
    config: DreamConfig,
    guard: Guard,
) -> tuple[list[Pair], JoinStats]:
    """Every pair with frame Jaccard ≥ ``dup_lexical`` and cosine ≥ ``dup_dense``.

    Filters run cheapest first: frame lengths, then the exact overlap (vectorised), then the
    cosine of the survivors. ``guard(a, b)`` says why rows a and b disagree (or None); it runs
    on verified pairs only.
    """
    sorted_ranks = [sorted(ranks[t] for t in f) for f in frames]
    a, b, skipped = _candidates(sorted_ranks, config)
    n_candidates = int(a.size)
    lengths = np.fromiter((len(r) for r in sorted_ranks), dtype=np.int64, count=len(frames))
    if a.size:
        small, large = np.minimum(lengths[a], lengths[b]), np.maximum(lengths[a], lengths[b])
        keep = (small >= config.dup_lexical * large - 1e-9) & has_vector[a] & has_vector[b]
        a, b = a[keep], b[keep]
    inter = _overlaps(sorted_ranks, lengths, a, b)
    jac = inter / np.maximum(1, lengths[a] + lengths[b] - inter)
    keep = jac >= config.dup_lexical - 1e-9
    a, b, jac = a[keep], b[keep], jac[keep]
    cos = _cosines(vectors, a, b)
    keep = cos >= config.dup_dense - 1e-6
    pairs = [
        Pair(i, j, round(c, 6), round(o, 6), guard(i, j))
        for i, j, c, o in zip(a[keep].tolist(), b[keep].tolist(), cos[keep].tolist(), jac[keep].tolist(), strict=True)
    ]
    pairs.sort(key=lambda p: (p.a, p.b))
    return pairs, JoinStats(n_candidates, skipped)


def _candidates(sorted_ranks: Sequence[list[int]], config: DreamConfig) -> tuple[np.ndarray, np.ndarray, int]:
    """Unique (a < b) row pairs that share a prefix token; and how many groups were skipped."""
    toks: list[int] = []
    rows: list[int] = []
    for row, ranked in enumerate(sorted_ranks):
        n = len(ranked)
        if n == 0:
            continue
        prefix = n - math.ceil(config.dup_lexical * n - 1e-9) + 1
        toks.extend(ranked[:prefix])
        rows.extend([row] * min(prefix, n))
    empty = np.zeros(0, dtype=np.int64)
    if not toks:
        return empty, empty, 0
    tok_arr = np.asarray(toks, dtype=np.int64)
    row_arr = np.asarray(rows, dtype=np.int64)
    order = np.lexsort((row_arr, tok_arr))
    tok_arr, row_arr = tok_arr[order], row_arr[order]
    bounds = np.flatnonzero(np.diff(tok_arr)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [tok_arr.size]])
    sizes = ends - starts
    skipped = int(np.count_nonzero(sizes > config.max_token_group))
    left: list[np.ndarray] = []
    right: list[np.ndarray] = []
    usable = (sizes >= 2) & (sizes <= config.max_token_group)
    for s, e in zip(starts[usable].tolist(), ends[usable].tolist(), strict=True):
        members = row_arr[s:e]
        i, j = np.triu_indices(members.size, 1)
        left.append(members[i])
        right.append(members[j])
    if not left:
        return empty, empty, skipped
    n = len(sorted_ranks)
    lo, hi = np.concatenate(left), np.concatenate(right)
    key = np.sort(np.minimum(lo, hi) * n + np.maximum(lo, hi))
    # Sort-then-diff de-duplication: np.unique's hash path is ~25x slower here (numpy 2.4).
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    return key // n, key % n, skipped


def _overlaps(sorted_ranks: Sequence[list[int]], lengths: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|frame_a ∩ frame_b| for each pair: padded rank rows compared in bounded blocks."""
    out = np.zeros(a.size, dtype=np.int64)
    if not a.size:
        return out
    width = int(min(_WIDE, lengths.max()))
    pad = np.full((len(sorted_ranks), width), -1, dtype=np.int64)
    for row, ranked in enumerate(sorted_ranks):
        if 0 < len(ranked) <= width:
            pad[row, : len(ranked)] = ranked
    narrow = (lengths[a] <= width) & (lengths[b] <= width)
    idx = np.flatnonzero(narrow)
    step = max(1, _OVERLAP_BLOCK // (width * width))
    for s in range(0, idx.size, step):
        sel = idx[s : s + step]
        left, right = pad[a[sel]], pad[b[sel]]
        hits = (left[:, :, None] == right[:, None, :]) & (left[:, :, None] >= 0)
        out[sel] = hits.sum(axis=(1, 2))
    for k in np.flatnonzero(~narrow).tolist():  # long texts: rare, compared as sets
        out[k] = len(set(sorted_ranks[int(a[k])]) & set(sorted_ranks[int(b[k])]))
    return out


def _cosines(vectors: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products of unit vectors for index pairs, in bounded blocks."""
    out = np.empty(a.size, dtype=np.float32)
    for s in range(0, a.size, _PAIR_CHUNK):
        e = min(a.size, s + _PAIR_CHUNK)
        out[s:e] = np.einsum("ij,ij->i", vectors[a[s:e]], vectors[b[s:e]])
    return out


def clusters(n: int, pairs: Sequence[Pair]) -> list[list[int]]:
    """Connected components of the mergeable pairs, never joining two items that disagree.

    Unions run in a fixed order (most similar first, then by index), and a union is refused
    when it would put a disagreeing pair into one cluster — so "the flag is on" and "the flag
    is off" stay apart even when a third item resembles both. Returns clusters of ≥ 2 rows,
    each sorted, ordered by their first row.
    """
    parent = list(range(n))
    members: dict[int, set[int]] = {}
    enemies: dict[int, set[int]] = {}  # per cluster root: the rows it must never join
    for p in pairs:
        if p.conflict is not None:
            enemies.setdefault(p.a, set()).add(p.b)
            enemies.setdefault(p.b, set()).add(p.a)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in sorted((p for p in pairs if p.conflict is None), key=lambda p: (-p.cosine, -p.overlap, p.a, p.b)):
        ra, rb = find(p.a), find(p.b)
        if ra == rb or any(find(x) == rb for x in enemies.get(ra, ())):
            continue
        ma, mb = members.pop(ra, {ra}), members.pop(rb, {rb})
        if len(ma) < len(mb):
            ra, rb, ma, mb = rb, ra, mb, ma
        parent[rb] = ra
        ma.update(mb)  # smaller into larger: O(n log n) over the whole pass
        members[ra] = ma
        joined = enemies.pop(ra, set()) | enemies.pop(rb, set())
        if joined:
            enemies[ra] = joined
    out = [sorted(m) for m in members.values() if len(m) >= 2]
    out.sort(key=lambda m: m[0])
    return out


__all__ = ["Guard", "JoinStats", "Pair", "clusters", "near_duplicates", "token_ranks"]
