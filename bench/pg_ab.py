"""What the PostgreSQL A/B benches share (``pg_recall_ab.py``, ``pg_dream_ab.py``): the store the
rounds copy, and a count of the statements a variant sends, by text.

Imported by the child processes too, whose ``PYTHONPATH`` is the variant's ``src``: nothing here
imports reverie at module level, so either tree's package is the one measured.
"""

from __future__ import annotations

import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BUILD_BATCH = 2_000


def shape(sql: str) -> str:
    """A statement's text with whitespace folded and long IN/VALUES lists shortened."""
    text = re.sub(r"\s+", " ", sql).strip()
    return re.sub(r"(%s, ){3,}%s", "%s, ..., %s", text)[:160]


@contextmanager
def counted_statements(store: Any) -> Iterator[dict[str, list[float]]]:
    """While inside, every ``store._run`` / ``store.xmany`` call is counted and timed by its
    ``shape``: ``{text: [count, seconds]}`` (``xmany`` texts start with ``MANY``)."""
    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    run, many = store._run, store.xmany

    def timed_run(sql: str, params: Any = (), **kw: Any) -> Any:
        start = time.perf_counter()
        try:
            return run(sql, params, **kw)
        finally:
            cell = spent[shape(sql)]
            cell[0] += 1
            cell[1] += time.perf_counter() - start

    def timed_many(sql: str, rows: Any) -> None:
        start = time.perf_counter()
        try:
            many(sql, rows)
        finally:
            cell = spent["MANY " + shape(sql)]
            cell[0] += 1
            cell[1] += time.perf_counter() - start

    store._run, store.xmany = timed_run, timed_many
    try:
        yield spent
    finally:
        store._run, store.xmany = run, many


def build(url: str, items: int) -> None:
    """The store the rounds copy: ``items`` items in one scope, built with this process's code
    the way ``pg_vs_sqlite.py`` builds its stores, then warmed (its HNSW index)."""
    from threadpoolctl import threadpool_limits

    sys.path.insert(0, str(HERE))
    from pg_vs_sqlite import SCOPE, SEED, _open, _texts

    texts = _texts(items, SEED)
    with threadpool_limits(1), _open(url) as mem:
        for at in range(0, items, BUILD_BATCH):
            mem.remember_many(texts[at : at + BUILD_BATCH], scope=SCOPE)
        mem.store.warm(SCOPE)
