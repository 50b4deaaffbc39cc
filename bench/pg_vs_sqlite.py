"""SQLite and PostgreSQL side by side, in one run: remember throughput and recall latency.

    .venv/bin/python bench/pg_vs_sqlite.py [--items 10000] [--single 300] [--queries 200] [--json out.json]

Both stores get the same data through the same ``Memory`` API (``embedder="hash"``, conflict
detection off, a ``ManualClock``): ``--single`` items one ``remember`` each (one transaction
each), then the rest through ``remember_many`` in batches of 500; then ``--queries`` hybrid
recalls (``k=10``, ``record_use=False``) of 3-word queries drawn from the corpus vocabulary.
SQLite is a file with ``durability="full"``; PostgreSQL is a throwaway ``pgserver`` (PostgreSQL
16 + pgvector, started by this script in a temporary directory, default settings: fsync on), over
its Unix socket. BLAS is pinned to one thread. Prints one table; ``--json`` also writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, pct
from reverie import ManualClock, Memory

SEED = 20250101
SCOPE = "bench"
BATCH = 500


def _texts(n: int, rng: random.Random) -> tuple[list[str], list[str]]:
    vocab = [f"w{i}" for i in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]  # Zipf-like: a few common words, a long tail
    texts = [" ".join(rng.choices(vocab, weights, k=rng.randint(6, 14))) + f" item{i}" for i in range(n)]
    return texts, vocab


def _run(location: str, n_items: int, n_single: int, n_queries: int) -> dict[str, Any]:
    rng = random.Random(SEED)
    texts, vocab = _texts(n_items, rng)
    out: dict[str, Any] = {}
    with Memory(location, embedder="hash", clock=ManualClock(), seed=1, detect_conflicts=False) as mem:
        start = time.perf_counter()
        for text in texts[:n_single]:
            mem.remember(text, scope=SCOPE)
        out["remember_single_per_s"] = n_single / (time.perf_counter() - start)
        start = time.perf_counter()
        rest = texts[n_single:]
        for at in range(0, len(rest), BATCH):
            mem.remember_many(rest[at : at + BATCH], scope=SCOPE)
        out["remember_batched_per_s"] = len(rest) / (time.perf_counter() - start)
        queries = [" ".join(rng.choices(vocab[:2000], k=3)) for _ in range(n_queries)]
        mem.recall(queries[0], scope=SCOPE, record_use=False)  # warm caches
        times = []
        for q in queries:
            start = time.perf_counter()
            mem.recall(q, scope=SCOPE, k=10, record_use=False)
            times.append((time.perf_counter() - start) * 1000)
        out["recall_p50_ms"], out["recall_p95_ms"] = pct(times, 50), pct(times, 95)
        out["doctor_ok"] = mem.doctor().ok
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--single", type=int, default=300)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR under root
        import pgserver  # type: ignore[import-untyped]

    results: dict[str, Any] = {"machine": machine(), "items": args.items}
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(1):
        results["sqlite"] = _run(str(Path(tmp) / "bench.db"), args.items, args.single, args.queries)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            srv = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
        try:
            results["postgres"] = _run(srv.get_uri(), args.items, args.single, args.queries)
        finally:
            srv.cleanup()
    rows = ["remember_single_per_s", "remember_batched_per_s", "recall_p50_ms", "recall_p95_ms", "doctor_ok"]
    print(f"{'at ' + str(args.items) + ' items, one scope':32} {'sqlite':>12} {'postgres':>12}")
    for key in rows:
        a, b = results["sqlite"][key], results["postgres"][key]
        fmt = (lambda v: f"{v:12}") if isinstance(a, bool) else (lambda v: f"{v:12.1f}")
        print(f"{key:32} {fmt(a)} {fmt(b)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
