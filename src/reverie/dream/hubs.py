"""Hubs: items that come back for almost any query, measured with the scope's own texts.

Why probe with the scope's own items: they are the queries this scope actually gets asked
about, no query log is needed, and the sample is a pure function of the snapshot (evenly
spaced in id order), so the plan stays deterministic. A probe's matches are the union of
its dense top-k (one matrix product for all probes) and, optionally, its full-text top-k
(the store's own FTS index, read-only); the probe item itself is never counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reverie.dream.config import DreamConfig
from reverie.dream.snapshot import Snapshot
from reverie.dream.text import frame
from reverie.recall.normalize import fts_query
from reverie.store.protocol import Store

#: Words per full-text probe (the rarest of the probe item's frame).
PROBE_TERMS = 3


@dataclass(frozen=True, slots=True)
class HubCount:
    row: int
    hits: int
    share: float


def probe_rows(n: int, probes: int) -> list[int]:
    """``probes`` rows spread evenly over ``range(n)``: deterministic, covers the whole scope."""
    count = min(n, probes)
    if count <= 0:
        return []
    return sorted({int(i * n / count) for i in range(count)})


def find_hubs(
    snap: Snapshot, store: Store | None, config: DreamConfig, ranks: dict[str, int] | None = None
) -> tuple[list[HubCount], int]:
    """Rows in the top-k of more than ``hub_share`` of the probes, and how many probes ran."""
    n = len(snap.items)
    if n < max(config.hub_min_items, config.hub_k + 2):
        return [], 0
    rows = probe_rows(n, config.hub_probes)
    matched: list[set[int]] = [set() for _ in rows]
    _dense(snap, rows, config.hub_k, matched)
    if config.hub_lexical and store is not None:
        _lexical(snap, store, rows, config.hub_k, matched, ranks or {})
    counts = np.zeros(n, dtype=np.int64)
    for found in matched:
        if found:
            counts[np.fromiter(found, dtype=np.int64, count=len(found))] += 1
    share = counts / len(rows)
    hubs = [
        HubCount(int(r), int(counts[r]), round(float(share[r]), 6)) for r in np.flatnonzero(share > config.hub_share)
    ]
    return hubs, len(rows)


def _dense(snap: Snapshot, rows: Sequence[int], k: int, matched: list[set[int]]) -> None:
    if not snap.vectors.shape[1]:
        return
    probe = np.asarray(rows, dtype=np.int64)
    sims = snap.vectors[probe] @ snap.vectors.T
    sims[np.arange(probe.size), probe] = -np.inf  # a probe matches itself: not evidence
    sims[:, ~snap.has_vector] = -np.inf
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    for i in range(probe.size):
        matched[i].update(int(j) for j in top[i] if sims[i, j] > 0.0)


def _lexical(
    snap: Snapshot, store: Store, rows: Sequence[int], k: int, matched: list[set[int]], ranks: dict[str, int]
) -> None:
    """Full-text top-k per probe, querying the probe's ``PROBE_TERMS`` rarest words.

    Why not the whole text: an FTS5 query of many common words costs 0.1 s and more at 100k
    items (DESIGN.md), and bm25's top-k is decided by the rare terms anyway.
    """
    for i, row in enumerate(rows):
        item = snap.items[row]
        words = sorted(frame(item.text), key=lambda t: (ranks.get(t, 0), t))[:PROBE_TERMS]
        match = fts_query(" ".join(words) if words else item.text)
        if match is None:
            continue
        found = [snap.index.get(item_id) for item_id, _score in store.lexical(snap.scope, match, limit=k + 1)]
        matched[i].update([j for j in found if j is not None and j != row][:k])


__all__ = ["HubCount", "find_hubs", "probe_rows"]
