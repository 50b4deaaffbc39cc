"""Reciprocal Rank Fusion: merge best-first id lists from several retrieval legs into one ranking.

Why RRF: lexical (bm25) and dense (cosine) scores live on unrelated scales, so adding them needs
calibration that drifts with every corpus. Ranks need none. Each leg contributes
``weight / (k + rank)`` for every id it returned; ``k`` (60 by convention) flattens the curve so
that the difference between ranks 1 and 2 does not swamp agreement between legs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_RRF_K", "FusedHit", "rrf"]

#: The constant from Cormack, Clarke & Büttcher (2009); robust across collections.
DEFAULT_RRF_K = 60


@dataclass(frozen=True, slots=True)
class FusedHit:
    """One id after fusion: its fused score and its 1-based rank in each leg that returned it.

    ``ranks`` lets a caller explain a hit ("lexical #1, dense #7") and lets a value or decay
    step tell a lexical-only hit from one both legs agree on.
    """

    id: str
    score: float
    ranks: dict[str, int]

    @property
    def best_rank(self) -> int:
        """The best (lowest) rank any leg gave this id; the first tie-breaker after score."""
        return min(self.ranks.values())


def rrf(
    rankings: Mapping[str, Sequence[str]],
    *,
    k: int = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[FusedHit]:
    """Fuse ``rankings`` (leg name -> ids best-first) into one list, best first.

    Score = Σ over legs of ``weights.get(leg, 1.0) / (k + rank)``. Within a leg only an id's first
    occurrence counts, so a leg cannot vote twice. Ties break by better best-rank, then id
    ascending, so the order is deterministic whatever order the legs arrive in.

    Raises ``ValueError`` for ``k < 0`` or a negative / non-finite weight: a negative weight would
    let adding a leg push an id down, which callers of a fusion step do not expect.
    """
    _check_params(k, weights)
    ranks: dict[str, dict[str, int]] = {}
    for leg, ids in rankings.items():
        for rank, item_id in enumerate(_first_occurrences(ids), start=1):
            ranks.setdefault(item_id, {})[leg] = rank
    hits = [FusedHit(item_id, _score(leg_ranks, k, weights), leg_ranks) for item_id, leg_ranks in ranks.items()]
    hits.sort(key=lambda hit: (-hit.score, hit.best_rank, hit.id))
    return hits


def _first_occurrences(ids: Sequence[str]) -> list[str]:
    """``ids`` without repeats, keeping each id at the position of its first occurrence."""
    return list(dict.fromkeys(ids))


def _score(leg_ranks: Mapping[str, int], k: int, weights: Mapping[str, float] | None) -> float:
    # Sum in sorted leg order: float addition is not associative, and a score must not depend on
    # the order a caller happened to build its mapping in.
    return sum(_weight(weights, leg) / (k + leg_ranks[leg]) for leg in sorted(leg_ranks))


def _weight(weights: Mapping[str, float] | None, leg: str) -> float:
    return 1.0 if weights is None else weights.get(leg, 1.0)


def _check_params(k: int, weights: Mapping[str, float] | None) -> None:
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    for leg, weight in (weights or {}).items():
        if not (weight >= 0.0 and weight != float("inf")):
            raise ValueError(f"weight for leg {leg!r} must be a finite number >= 0, got {weight!r}")
