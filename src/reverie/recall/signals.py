"""How strongly the legs back a hit, what counts as a *use*, and when an answer is weak.

Why its own module: use is what value reinforcement, decay resets and episodic → semantic
graduation learn from, and a weak answer is what triggers the corrective pass. Both must be
judged from what the legs actually gave, not from "it was returned": recall always returns
up to ``k`` hits, however unrelated the tail is.

Every measure here is a ratio, so it is scale-free — it does not depend on how big bm25 scores
run in this scope, on the embedder's cosine range, or on the number of items:

- A leg's **share** of a candidate is its score over the best score that leg gave *any*
  candidate of this query, visible or not: bm25 / best bm25 (lexical), cosine / best cosine
  (dense, exact scan). An approximate (IVF) dense leg reports no scores, so its share is its
  rank's RRF weight over rank 1's, ``(k + 1) / (k + rank)``. A leg that did not rank the
  candidate gives it 0.
- A hit's **strength** is the weighted mean of the shares over the legs the mode ran
  (``leg_weights``, 1 each by default), in [0, 1]: 1 = the best candidate of every leg.
- A hit **counts as used** when some leg gave it at least ``USE_FLOOR`` of its best (a leg
  ranked it well) *and* its fused score is at least ``USE_FLOOR`` of the answer's best fused
  score (it is not far below the top). Per mode: *lexical* — bm25 at least half the best
  match; *dense* — cosine at least half the best; *hybrid* — either, and not a one-leg hit
  far under a hit both legs agree on.
- An answer's **confidence** is its strongest hit's strength (0 for an empty answer); it is
  **weak** below ``RecallOptions.weak_strength``. A visible answer far weaker than what the
  legs saw means a filter the corrective pass relaxes (tiers, trust floor) hid the best
  candidates; a scope with nothing relevant anywhere has no better candidate to find.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: A hit is used when a leg gave it at least this share of its best, and its fused score is at
#: least this share of the answer's best. One half: "as good as the best, give or take half".
USE_FLOOR = 0.5
#: Keys of ``Hit.why`` this module writes.
STRENGTH = "strength"
SHARES = "shares"
COUNTS_AS_USE = "counts_as_use"


def shares_of(scores: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Each candidate's score over the leg's best (first occurrence of an id counts)."""
    if not scores:
        return {}
    best = max(s for _, s in scores)
    if best <= 0.0:
        return {}
    out: dict[str, float] = {}
    for item_id, score in scores:
        out.setdefault(item_id, max(0.0, min(1.0, score / best)))
    return out


def rank_shares(ranked: Sequence[str], rrf_k: int) -> dict[str, float]:
    """A leg without scores (approximate dense search): rank r's RRF weight over rank 1's."""
    out: dict[str, float] = {}
    for rank, item_id in enumerate(ranked, start=1):
        out.setdefault(item_id, (rrf_k + 1) / (rrf_k + rank))
    return out


def strength(item_id: str, shares: Mapping[str, Mapping[str, float]], weights: Mapping[str, float] | None) -> float:
    """Weighted mean of the legs' shares of ``item_id`` over every leg that ran (0 if none)."""
    total = 0.0
    mass = 0.0
    for leg in sorted(shares):  # fixed order: float sums must not depend on dict order
        w = 1.0 if weights is None else weights.get(leg, 1.0)
        mass += w
        total += w * shares[leg].get(item_id, 0.0)
    return total / mass if mass > 0 else 0.0


def annotate(
    why: dict[str, Any], item_id: str, shares: Mapping[str, Mapping[str, float]], weights: Mapping[str, float] | None
) -> None:
    """Write the hit's per-leg shares and its strength into ``why`` (rounded for reading)."""
    why[SHARES] = {leg: round(shares[leg].get(item_id, 0.0), 6) for leg in sorted(shares)}
    why[STRENGTH] = round(strength(item_id, shares, weights), 6)


def confidence(whys: Sequence[Mapping[str, Any]]) -> float:
    """An answer's confidence: its strongest hit's strength; 0 for an empty answer."""
    return max((float(w.get(STRENGTH, 0.0)) for w in whys), default=0.0)


def counts_as_use(why: Mapping[str, Any], best_fused: float) -> bool:
    """A leg ranked the hit well and its fused score is not far below the answer's best."""
    ranked_well = max((float(s) for s in why.get(SHARES, {}).values()), default=0.0) >= USE_FLOOR
    return ranked_well and best_fused > 0 and float(why.get("fused", 0.0)) >= USE_FLOOR * best_fused


__all__ = [
    "COUNTS_AS_USE",
    "SHARES",
    "STRENGTH",
    "USE_FLOOR",
    "annotate",
    "confidence",
    "counts_as_use",
    "rank_shares",
    "shares_of",
    "strength",
]
