"""A deterministic, model-free embedder: feature hashing of words and character trigrams.

It exists so tests, examples and million-item benchmarks get real vectors with lexical
similarity in microseconds, with no model files. It knows nothing about meaning: "car" and
"automobile" are unrelated to it, "car" and "cars" are close (they share trigrams).

Hashing uses keyed BLAKE2b, never Python's ``hash()``, whose value changes per process
(PYTHONHASHSEED); vectors stored today must match query vectors computed tomorrow.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from reverie.embed.base import Matrix, as_text_list, empty_matrix, is_blank, l2_normalise_rows
from reverie.errors import InvalidInputError

_WORD = re.compile(r"\w+")
# A word's unigram outweighs all its trigrams together, so sharing a whole word counts for
# more than sharing spelling; trigrams still pull "remember" towards "remembered".
_UNIGRAM_WEIGHT = 1.0
_TRIGRAM_TOTAL_WEIGHT = 0.9
# Rows per dense scratch block: bounds memory at ~chunk x dim x 8 bytes however many texts.
_CHUNK_ROWS = 2048
_SIGN_BIT = 1 << 63

WordFeatures = tuple[tuple[int, ...], tuple[float, ...]]
_V = TypeVar("_V")


class HashEmbedder:
    """Signed feature hashing of lowercase word unigrams and per-word character trigrams.

    ``seed`` keys the hash, so different seeds give unrelated (but each deterministic) spaces;
    the seed is part of ``name`` for that reason. ``cache_size`` bounds the per-word feature
    cache that makes repeated vocabulary (the common case) cheap.
    """

    def __init__(self, dim: int = 384, seed: int = 0, *, cache_size: int = 1 << 18) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
            raise InvalidInputError(f"HashEmbedder dim must be an int >= 2, got {dim!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise InvalidInputError(f"HashEmbedder seed must be an int in [0, 2**64), got {seed!r}")
        self._dim = dim
        self._seed = seed
        self._key = seed.to_bytes(8, "little")
        self._cache_size = max(0, cache_size)
        self._cache: dict[str, WordFeatures] = {}
        self._buckets: dict[str, tuple[int, float]] = {}

    @property
    def name(self) -> str:
        """``hash-<dim>/1``, with the seed spelled out when it is not 0."""
        suffix = "" if self._seed == 0 else f"-seed{self._seed}"
        return f"hash-{self._dim}{suffix}/1"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit rows; blank texts give zero rows. Pure function of (text, dim, seed)."""
        items = as_text_list(texts)
        if not items:
            return empty_matrix(self._dim)
        blocks = [self._embed_block(items[i : i + _CHUNK_ROWS]) for i in range(0, len(items), _CHUNK_ROWS)]
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)

    def _embed_block(self, texts: list[str]) -> Matrix:
        """Accumulate every feature of every text with one ``bincount`` over flat indices."""
        cols: list[int] = []
        vals: list[float] = []
        counts = np.zeros(len(texts), dtype=np.int64)
        for row, text in enumerate(texts):
            start = len(cols)
            for word in _words(text):
                word_cols, word_vals = self._word_features(word)
                cols.extend(word_cols)
                vals.extend(word_vals)
            counts[row] = len(cols) - start
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), counts)
        flat = rows * self._dim + np.asarray(cols, dtype=np.int64)
        flat_weights = np.asarray(vals, dtype=np.float64)
        summed = np.bincount(flat, weights=flat_weights, minlength=len(texts) * self._dim)
        dense = summed.astype(np.float64, copy=False).reshape(len(texts), self._dim)
        self._repair_cancelled_rows(dense, texts)
        return l2_normalise_rows(dense)

    def _repair_cancelled_rows(self, dense: npt.NDArray[np.float64], texts: list[str]) -> None:
        """Give a non-blank text whose signed features cancelled exactly a unit row anyway.

        Exact cancellation is astronomically rare, but the protocol promises zero rows only
        for blank text, so a fallback bucket keyed on the whole text keeps that promise.
        """
        empty_rows = np.flatnonzero(~dense.any(axis=1))
        for row in empty_rows:
            if not is_blank(texts[row]):
                bucket, sign = self._bucket("x:" + texts[row])
                dense[row, bucket] = sign

    def _word_features(self, word: str) -> WordFeatures:
        """(buckets, signed weights) of one word, summed per bucket; cached by word."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        acc: dict[int, float] = {}
        bucket, sign = self._bucket("w:" + word)
        acc[bucket] = sign * _UNIGRAM_WEIGHT
        padded = f"<{word}>"
        trigrams = [padded[i : i + 3] for i in range(len(padded) - 2)]
        weight = _TRIGRAM_TOTAL_WEIGHT / math.sqrt(len(trigrams))
        for trigram in trigrams:
            bucket, sign = self._bucket("t:" + trigram)
            acc[bucket] = acc.get(bucket, 0.0) + sign * weight
        features: WordFeatures = (tuple(acc), tuple(acc.values()))
        _remember(self._cache, word, features, self._cache_size)
        return features

    def _bucket(self, feature: str) -> tuple[int, float]:
        """Bucket from the low bits of a keyed 64-bit BLAKE2b digest, sign from the top bit.

        Cached too: trigrams recur across words far more than whole words recur (ids, names).
        """
        cached = self._buckets.get(feature)
        if cached is not None:
            return cached
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8, key=self._key).digest()
        value = int.from_bytes(digest, "little")
        bucket = (value % self._dim, -1.0 if value & _SIGN_BIT else 1.0)
        _remember(self._buckets, feature, bucket, self._cache_size)
        return bucket


def _remember(cache: dict[str, _V], key: str, value: _V, capacity: int) -> None:
    """Store in a bounded cache, emptying it when full.

    Clearing beats LRU bookkeeping here: vocabularies are Zipfian, the hot entries come
    straight back, and a plain dict stays fast and safe to share between threads.
    """
    if capacity <= 0:
        return
    if len(cache) >= capacity:
        cache.clear()
    cache[key] = value


def _words(text: str) -> list[str]:
    """Case-folded word tokens; text with no word characters (``"?!"``, emoji) uses its
    whitespace-separated chunks so that it still gets a vector of its own."""
    folded = text.casefold()
    return _WORD.findall(folded) or folded.split()


__all__ = ["HashEmbedder"]
