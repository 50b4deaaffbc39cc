"""Small helpers shared by the benchmark scripts: a timing embedder, percentiles, machine facts."""

from __future__ import annotations

import os
import platform
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from reverie.embed import Embedder


class TimedEmbedder:
    """Delegates to an embedder and adds up the wall time spent in ``embed``.

    Wrapping the embedder a ``Memory`` uses lets a benchmark subtract the query-embedding time
    from a ``Memory.recall`` call exactly, instead of estimating it from a separate call.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start


def pct(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (numpy's linear interpolation); NaN for no values."""
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=np.float64), p))


def machine() -> dict[str, Any]:
    """What the numbers were measured on, including how busy the machine was."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "cpus": os.cpu_count(),
        "loadavg_1_5_15": [round(x, 2) for x in load],
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "numpy": np.__version__,
        "platform": platform.platform(),
    }
