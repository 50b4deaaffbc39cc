"""Recall building blocks: query normalising, rank fusion, decay, budget packing.

Pure functions over plain values (no I/O, no store, no clock): the recall engine and the store
call them, and they are tested on their own.
"""

from reverie.recall.decay import (
    DEFAULT_DECAY,
    Curve,
    DecayPolicy,
    DecayRule,
    decay_at,
    decay_factor,
    effective_age_days,
    trust_factor,
)
from reverie.recall.fusion import DEFAULT_RRF_K, FusedHit, rrf
from reverie.recall.normalize import FTS_TOKENIZE, STOPWORDS, fts_query, tokenize
from reverie.recall.packing import PackCandidate, estimate_tokens, pack, render_context, render_line

__all__ = [
    "DEFAULT_DECAY",
    "DEFAULT_RRF_K",
    "FTS_TOKENIZE",
    "STOPWORDS",
    "Curve",
    "DecayPolicy",
    "DecayRule",
    "FusedHit",
    "PackCandidate",
    "decay_at",
    "decay_factor",
    "effective_age_days",
    "estimate_tokens",
    "fts_query",
    "pack",
    "render_context",
    "render_line",
    "rrf",
    "tokenize",
    "trust_factor",
]
