"""Near-duplicate pairs at scale, and topic clusters that never merge a disagreement.

The join is exact for the lexical threshold and avoids the all-pairs product (100k items
would need ~10^10 cosines): it is a *prefix-filter* similarity join (Bayardo et al., WWW
2007). Order every frame token by how rare it is in the scope; two frames with Jaccard ≥ t
must share a token among the first ``|x| − ⌈t·|x|⌉ + 1`` rarest tokens of each. Grouping the
items by those prefix tokens yields every candidate pair; candidates are generated with the
length filter and cut by the positional filter, then verified vectorised a bounded block at a
time: the exact Jaccard (``dup_lexical``), then the cosine of the stored vectors
(``dup_dense``). Real text is Zipfian, so prefix groups are small. A group larger than
``max_token_group`` (items made only of very common words) is skipped and counted, and so are
the commonest groups once ``max_pairs_per_item`` × items candidates have been generated: the
join's memory is bounded by the block, its time by that budget (bench/README.md, dream).
"""

from __future__ import annotations

import itertools
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from reverie.dream.config import DreamConfig

_PAIR_CHUNK = 65_536  # pairs per vectorised cosine block: bounds scratch memory (~200 MB at 384-d)
#: Candidate pairs generated and verified at a time: bounds the join's scratch memory (~100 MB).
_PAIR_BLOCK = 1 << 21
_EMPTY = np.zeros(0, dtype=np.int64)


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
    candidates: int  # pairs generated within token groups (a pair sharing k prefix tokens counts k times)
    groups_skipped: int  # token groups not joined: larger than max_token_group, or past the pair budget


@dataclass(frozen=True, slots=True)
class Ranked:
    """Every frame as its tokens' ranks, sorted, in one flat array: row i is
    ``ranks[starts[i] : starts[i] + lengths[i]]``.

    One array rather than a list per item: 100k small lists (or frames) alive through the
    join cost time to build and made the cyclic garbage collector walk the whole snapshot
    again several times per pass; integers in one array are nothing it has to look at.
    """

    ranks: np.ndarray  # int64, rarest first within each row
    lengths: np.ndarray  # int64, tokens per row
    starts: np.ndarray  # int64, where each row begins in ``ranks``

    @classmethod
    def of(cls, frames: Sequence[frozenset[str]], ranks: dict[str, int]) -> Ranked:
        """The frames under an existing rank order (``token_ranks``)."""
        lengths = np.fromiter(map(len, frames), dtype=np.int64, count=len(frames))
        flat = np.fromiter((ranks[t] for f in frames for t in f), dtype=np.int64, count=int(lengths.sum()))
        return cls._sorted(flat, lengths)

    @classmethod
    def _sorted(cls, flat: np.ndarray, lengths: np.ndarray) -> Ranked:
        """Sort each row's (non-negative) ranks: one sort of ``row · span + rank`` keys."""
        rows = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        span = int(flat.max()) + 1 if flat.size else 1
        key = rows * span + flat
        key.sort()
        starts = np.cumsum(lengths) - lengths
        return cls(key - rows * span, lengths, starts)

    @property
    def rows(self) -> int:
        return int(self.lengths.size)

    def row(self, i: int) -> np.ndarray:
        start = int(self.starts[i])
        return self.ranks[start : start + int(self.lengths[i])]

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, position within the row) of every entry of ``ranks``."""
        row = np.repeat(np.arange(self.rows, dtype=np.int64), self.lengths)
        return row, np.arange(self.ranks.size, dtype=np.int64) - np.repeat(self.starts, self.lengths)


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


def rank_frames(frames: Iterable[frozenset[str]]) -> tuple[Ranked, dict[str, int]]:
    """``Ranked`` frames and every token's rank, equal to ``Ranked.of(fs, token_ranks(fs))``.

    One pass over ``frames``, which may be a generator: each frame is read once, into token
    ids, and can be dropped at once (see ``Ranked``). Ranks are then the ids sorted by
    (document frequency, token), exactly ``token_ranks``'s order.
    """
    ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)  # token -> first-seen id
    flat = array("q")
    lengths = array("q")
    token_id = ids.__getitem__
    for f in frames:
        flat.extend(map(token_id, f))
        lengths.append(len(f))
    words = list(ids)  # in id order
    token_ids = np.frombuffer(flat, dtype=np.int64) if flat else _EMPTY
    df = np.bincount(token_ids, minlength=len(words)).tolist()
    order = sorted(range(len(words)), key=lambda i: (df[i], words[i]))
    rank_of = np.empty(len(words), dtype=np.int64)
    rank_of[np.asarray(order, dtype=np.int64)] = np.arange(len(words), dtype=np.int64)
    counts = np.frombuffer(lengths, dtype=np.int64) if lengths else _EMPTY
    ranked = Ranked._sorted(rank_of[token_ids], counts.copy())
    return ranked, {words[i]: r for r, i in enumerate(order)}


def near_duplicates(
    frames: Sequence[frozenset[str]],
    ranks: dict[str, int],
    vectors: np.ndarray,
    has_vector: np.ndarray,
    config: DreamConfig,
    guard: Guard,
) -> tuple[list[Pair], JoinStats]:
    """Every pair with frame Jaccard ≥ ``dup_lexical`` and cosine ≥ ``dup_dense`` (see
    ``ranked_near_duplicates``), for frames ranked by ``ranks`` (``token_ranks``)."""
    return ranked_near_duplicates(Ranked.of(frames, ranks), vectors, has_vector, config, guard)


def ranked_near_duplicates(
    ranked: Ranked, vectors: np.ndarray, has_vector: np.ndarray, config: DreamConfig, guard: Guard
) -> tuple[list[Pair], JoinStats]:
    """Every pair with frame Jaccard ≥ ``dup_lexical`` and cosine ≥ ``dup_dense``.

    Candidates are generated and verified a bounded block at a time (``_candidate_blocks``),
    so memory stays flat however many pairs the scope's vocabulary creates: only verified
    pairs (few) are kept. Filters run cheapest first: frame lengths and positions, the exact
    overlap (vectorised), then the cosine of the survivors. ``guard(a, b)`` says why rows a
    and b disagree (or None); it runs on verified pairs only.
    """
    lengths = ranked.lengths
    pad = _padded(ranked)
    found_a: list[np.ndarray] = []
    found_b: list[np.ndarray] = []
    found_cos: list[np.ndarray] = []
    found_jac: list[np.ndarray] = []
    stats = JoinStats(0, 0)
    for a, b, block_stats in _candidate_blocks(ranked, config):
        stats = block_stats  # cumulative: the last block's are the join's
        keep = has_vector[a] & has_vector[b]
        a, b = a[keep], b[keep]
        inter = _overlaps(ranked, pad, a, b)
        jac = inter / np.maximum(1, lengths[a] + lengths[b] - inter)
        keep = jac >= config.dup_lexical - 1e-9
        a, b, jac = a[keep], b[keep], jac[keep]
        cos = _cosines(vectors, a, b)
        keep = cos >= config.dup_dense - 1e-6
        found_a.append(a[keep])
        found_b.append(b[keep])
        found_cos.append(cos[keep])
        found_jac.append(jac[keep])
    if not found_a:
        return [], stats
    a, b = np.concatenate(found_a), np.concatenate(found_b)
    cos, jac = np.concatenate(found_cos), np.concatenate(found_jac)
    # A pair sharing several prefix tokens is found once per token: keep its first sighting.
    key = a * ranked.rows + b
    _, first = np.unique(key, return_index=True)  # sorted by key = by (a, b)
    pairs = [
        Pair(i, j, round(c, 6), round(o, 6), guard(i, j))
        for i, j, c, o in zip(
            a[first].tolist(), b[first].tolist(), cos[first].tolist(), jac[first].tolist(), strict=True
        )
    ]
    return pairs, stats


def _prefix_entries(ranked: Ranked, config: DreamConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(token, row, position) of every prefix token, as flat arrays in row order.

    A frame of n tokens has a prefix of ``n − ⌈t·n⌉ + 1``; ``1e-9`` keeps a product one ulp
    above an integer (0.28·25 = 7.000000000000001) from rounding up. Vectorised, the float
    arithmetic is still the scalar formula's, row by row.
    """
    n = ranked.lengths
    prefix = np.minimum(n, n - np.ceil(config.dup_lexical * n - 1e-9).astype(np.int64) + 1)
    row, pos = ranked.entries()
    keep = pos < prefix[row]
    return ranked.ranks[keep], row[keep], pos[keep]


def _candidate_blocks(ranked: Ranked, config: DreamConfig) -> Iterator[tuple[np.ndarray, np.ndarray, JoinStats]]:
    """Candidate pairs (a < b) in blocks of at most ``_PAIR_BLOCK``, rarest token first.

    Within a token group, members are sorted by frame length, and each is paired only with
    the later members whose length can still reach the threshold (``|y| ≤ |x| / t``): the
    length filter applied while generating, not after. Each block is then cut by the
    positional filter (PPJoin, Xiao et al. 2008): at the *first* token two frames share,
    nothing before it is common, so their overlap is at most ``1 + min(|x|−i−1, |y|−j−1)``
    for the token's positions i, j; a pair whose bound is below the overlap Jaccard ≥ t needs
    is dropped here — it is still found at its first common token, where the bound holds.

    Bounds: groups larger than ``max_token_group`` are skipped (common words carry no
    near-duplicate signal), and at most ``max_pairs_per_item`` × items candidates are
    generated per pass; once that budget is spent the remaining (commoner) token groups are
    skipped and counted. Both are reported; the yielded ``JoinStats`` are cumulative.
    """
    t = config.dup_lexical
    tok, row, pos = _prefix_entries(ranked, config)
    if tok.size == 0:
        yield _EMPTY, _EMPTY, JoinStats(0, 0)
        return
    length = ranked.lengths[row]
    order = np.lexsort((row, length, tok))  # by token (rarest first), then length, then row
    tok, row, pos, length = tok[order], row[order], pos[order], length[order]
    bounds = np.flatnonzero(np.diff(tok)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [tok.size]])
    sizes = ends - starts
    big = sizes > config.max_token_group
    skipped = int(np.count_nonzero(big))
    # Each entry's partners: the following entries of its group with a length ≤ |x| / t.
    group_end = np.repeat(ends, sizes)
    width = int(length.max()) + 2
    key = tok * width + length
    limit = np.floor((length + 1e-6) / t).astype(np.int64)
    upper = np.searchsorted(key, tok * width + np.minimum(limit, width - 1), side="right")
    partners = np.minimum(upper, group_end) - np.arange(tok.size) - 1
    partners[np.repeat(big, sizes)] = 0
    budget = config.max_pairs_per_item * ranked.rows
    per_group = np.add.reduceat(partners, starts)
    done = np.cumsum(per_group)
    over = done > budget
    if over.any():
        cut = int(np.argmax(over))  # the first group that would exceed the budget, and all after
        skipped += int(np.count_nonzero(~big[cut:] & (per_group[cut:] > 0)))
        partners[starts[cut] :] = 0
    total = int(partners.sum())
    considered = 0
    offsets = np.cumsum(partners)
    s = 0
    while s < tok.size:
        e = int(np.searchsorted(offsets, (offsets[s - 1] if s else 0) + _PAIR_BLOCK, side="right"))
        e = max(e, s + 1)
        count = partners[s:e]
        if int(count.sum()):
            left = np.repeat(np.arange(s, e), count)
            run = np.cumsum(count) - count
            right = left + 1 + np.arange(left.size) - np.repeat(run, count)
            la, lb = length[left], length[right]
            bound = 1 + np.minimum(la - pos[left] - 1, lb - pos[right] - 1)
            need = np.ceil(t / (1 + t) * (la + lb) - 1e-6)
            keep = bound >= need
            x, y = row[left[keep]], row[right[keep]]
            considered += int(count.sum())
            yield np.minimum(x, y), np.maximum(x, y), JoinStats(considered, skipped)
        s = e
    assert considered == total
    if not total:
        yield _EMPTY, _EMPTY, JoinStats(0, skipped)


def _padded(ranked: Ranked) -> np.ndarray:
    """Every frame's ranks as one row of a -1-padded int32 matrix (frames up to ``_WIDE``)."""
    lengths = ranked.lengths
    width = int(min(_WIDE, lengths.max())) if lengths.size else 0
    pad = np.full((ranked.rows, max(1, width)), -1, dtype=np.int32)
    row, pos = ranked.entries()
    narrow = np.repeat((lengths > 0) & (lengths <= width), lengths)
    pad[row[narrow], pos[narrow]] = ranked.ranks[narrow]
    return pad


def _overlaps(ranked: Ranked, pad: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|frame_a ∩ frame_b| for each pair: padded rank rows compared in bounded blocks."""
    out = np.zeros(a.size, dtype=np.int64)
    if not a.size:
        return out
    lengths = ranked.lengths
    width = pad.shape[1]
    narrow = (lengths[a] <= width) & (lengths[b] <= width)
    idx = np.flatnonzero(narrow)
    step = max(1, _OVERLAP_BLOCK // (width * width))
    for s in range(0, idx.size, step):
        sel = idx[s : s + step]
        left, right = pad[a[sel]], pad[b[sel]]
        hits = (left[:, :, None] == right[:, None, :]) & (left[:, :, None] >= 0)
        out[sel] = hits.sum(axis=(1, 2))
    for k in np.flatnonzero(~narrow).tolist():  # long texts: rare, compared as sets
        out[k] = len(set(ranked.row(int(a[k])).tolist()) & set(ranked.row(int(b[k])).tolist()))
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


__all__ = [
    "Guard",
    "JoinStats",
    "Pair",
    "Ranked",
    "clusters",
    "near_duplicates",
    "rank_frames",
    "ranked_near_duplicates",
    "token_ranks",
]
