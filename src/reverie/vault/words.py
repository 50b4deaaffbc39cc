"""Words, shingles and a small TF-IDF: the deterministic text measures the maintenance tools use.

No model and no salted ``hash()`` (it changes per process): shingles are hashed with CRC-32,
so a report is identical from one run to the next.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping

_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")
#: Function words that carry no topic (written for this project; short on purpose).
_STOP_WORDS = """a an and are as at
    be been but by can could did do does for from had has have how i if in into is it its
    me my no not of on or our so than that the their them then there these they this to too us was we were what
    when where which who why will with would you your about after all also any because before between both each
    few more most other over same some such only own just should now very s t don't it's i'm"""
STOP = frozenset(_STOP_WORDS.split())


def words(text: str) -> list[str]:
    """Lower-case content words of ``text`` (stop words dropped)."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP and len(w) > 1]


def shingles(text: str, n: int = 3) -> set[int]:
    """CRC-32 hashes of the ``n``-word shingles of ``text`` (all words, so word order counts)."""
    ws = _WORD.findall(text.lower())
    if len(ws) < n:
        return {zlib.crc32(" ".join(ws).encode())} if ws else set()
    return {zlib.crc32(" ".join(ws[i : i + n]).encode()) for i in range(len(ws) - n + 1)}


def jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def tfidf(docs: Mapping[str, Iterable[str]]) -> dict[str, dict[str, float]]:
    """Unit-length TF-IDF vectors (as dicts) for each document's words."""
    counts = {k: Counter(v) for k, v in docs.items()}
    df: Counter[str] = Counter()
    for c in counts.values():
        df.update(c.keys())
    n = len(counts)
    out: dict[str, dict[str, float]] = {}
    for key, c in counts.items():
        # Smoothed idf (+1): a word in every note still counts a little, so a tiny vault gets suggestions too.
        vec = {w: tf * (1.0 + math.log((1 + n) / (1 + df[w]))) for w, tf in c.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        out[key] = {w: v / norm for w, v in vec.items() if v > 0}
    return out


def stem_match(term: str, vocabulary: set[str]) -> bool:
    """``term`` or a word sharing its first letters (``sleeping`` ~ ``sleep``) is in ``vocabulary``."""
    if term in vocabulary:
        return True
    root = term[: max(4, len(term) - 3)]
    return len(root) >= 4 and any(w.startswith(root) for w in vocabulary)
