"""What a point-in-time recall (``as_of``) costs beside a recall of current truth, on one SQLite store.

    .venv/bin/python bench/as_of_recall.py [--items 10000] [--changed 0.05] [--queries 100]
        [--old-src DIR] [--json out.json]

One scope of ``--items`` items (``pg_vs_sqlite.py``'s Zipf-like texts, hash embedder,
``ManualClock``, ``remember_many`` in batches of 2,000), then a time T, then a day later
``--changed`` of the items touched: a third each get new scores, are revised, are forgotten.
Each variant times ``--queries`` hybrid recalls (``k=10``, ``record_use=False``, after one
untimed recall) three ways, in alternating order: current truth, ``as_of=T`` (the changed items
are replayed), and ``as_of`` a time before the load's second half (half the candidates did not
exist yet). With ``--old-src`` a child process whose ``PYTHONPATH`` is that tree times the same
queries on a copy of the same file, so the rows compare the two trees; the ratios within one
tree are the fair comparison on this shared machine.

Why: ``recall(as_of=T)`` used to score today's rows (outside probe, finding 3); it now replays
each candidate changed since T (``store.replay.believed_states``). Current-truth recall does no
new work; this measures what the replay adds to the rarer path. Each replay used to scan the
scope's whole log for the item's events (p50 18 ms at 10k items, 5 % changed; 65 ms at 20 %);
it reads them through the log's index now (``store/sqlite/event_refs.py``: 4.7 / 8.3 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
SCOPE = "bench"
SEED = 20250101
BUILD_BATCH = 2_000


def build(path: Path, items: int, changed: float) -> dict[str, str]:
    """The store; returns the two times to ask about (ISO-8601)."""
    from pg_vs_sqlite import _texts
    from reverie import ManualClock, Memory

    clock = ManualClock()
    rng = random.Random(SEED)
    texts = _texts(items, SEED)
    with Memory(path, embedder="hash", clock=clock, seed=1, detect_conflicts=False) as mem:
        half = items // 2
        ids: list[str] = []
        for at in range(0, half, BUILD_BATCH):
            ids += [i.id for i in mem.remember_many(texts[at : min(at + BUILD_BATCH, half)], scope=SCOPE)]
        clock.advance(days=1)
        early = clock.now()
        clock.advance(days=1)
        for at in range(half, items, BUILD_BATCH):
            ids += [i.id for i in mem.remember_many(texts[at : min(at + BUILD_BATCH, items)], scope=SCOPE)]
        clock.advance(days=1)
        t = clock.now()
        clock.advance(days=1)
        touched = rng.sample(ids, int(len(ids) * changed))
        for n, item_id in enumerate(touched):
            if n % 3 == 0:
                mem.set_scores(item_id, scope=SCOPE, importance=rng.random(), authority=rng.random())
            elif n % 3 == 1:
                mem.revise(item_id, texts[ids.index(item_id)] + " revised", scope=SCOPE)
            else:
                mem.forget(item_id, scope=SCOPE)
        mem.store.checkpoint()  # type: ignore[attr-defined]  # fold the WAL in
    return {"as_of_t": t.isoformat(), "as_of_early": early.isoformat()}


def measure(path: str, queries: int, times: dict[str, str]) -> dict[str, Any]:
    """Time the three kinds of recall in this process (the tree on ``sys.path``)."""
    from threadpoolctl import threadpool_limits

    from benchutil import pct
    from pg_vs_sqlite import _queries
    from reverie import ManualClock, Memory

    kinds: dict[str, datetime | None] = {"current": None}
    kinds.update({k: datetime.fromisoformat(v) for k, v in times.items()})
    qs = _queries(queries, SEED + 1)
    spent: dict[str, list[float]] = {k: [] for k in kinds}
    clock = ManualClock(datetime.fromisoformat(times["as_of_t"]) + timedelta(days=2))
    with threadpool_limits(1), Memory(path, embedder="hash", clock=clock, seed=2, detect_conflicts=False) as mem:
        for when in kinds.values():
            mem.recall(qs[0], scope=SCOPE, k=10, as_of=when, record_use=False)
        for n, q in enumerate(qs):
            order = list(kinds.items())
            for name, when in order if n % 2 == 0 else reversed(order):
                start = time.perf_counter()
                mem.recall(q, scope=SCOPE, k=10, as_of=when, record_use=False)
                spent[name].append((time.perf_counter() - start) * 1000)
    out: dict[str, Any] = {}
    for name, ms in spent.items():
        out[f"{name}_p50_ms"] = round(pct(ms, 50), 2)
        out[f"{name}_p95_ms"] = round(pct(ms, 95), 2)
    for name in times:
        out[f"{name}_over_current_p50"] = round(out[f"{name}_p50_ms"] / out["current_p50_ms"], 2)
    return out


def _child(src: str, path: Path, queries: int, times: dict[str, str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1"}
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import as_of_recall as b; "
        "print(json.dumps(b.measure(sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4]))))"
    )
    args = [sys.executable, "-c", code, str(HERE), str(path), str(queries), json.dumps(times)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)  # nosec B603 # our own interpreter and script
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=10_000)
    p.add_argument("--changed", type=float, default=0.05, help="share of items touched after T")
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--old-src", help="another tree's src/ to time beside this one")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    from benchutil import machine

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "asof.db"
        start = time.perf_counter()
        times = build(path, args.items, args.changed)
        print(f"built {args.items} items in {time.perf_counter() - start:.0f} s", flush=True)
        here = str(Path(__file__).resolve().parents[1] / "src")
        rows: dict[str, Any] = {}
        for name, src in [("this", here)] + ([("old", args.old_src)] if args.old_src else []):
            copy = Path(tmp) / f"{name}.db"
            shutil.copy(path, copy)
            rows[name] = _child(src, copy, args.queries, times)
            print(name, json.dumps(rows[name]), flush=True)
    doc = {"items": args.items, "changed": args.changed, "queries": args.queries, "rows": rows, "machine": machine()}
    if args.json:
        args.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
