"""Closing a conversation whose one message names many people: seconds, and the longest hold of the lock.

    .venv/bin/python bench/long_message_close.py [--sentences 100 200 400 860] [--json out]

Outside probe 2, finding 11: one message of ~32,000 characters ("my cousin X lives in Y" ~860
times, every name new) took ~40 s to mine at ``close()``, quadratic in its names, all under the
file's write lock. Per size, two runs on a fresh SQLite file (hash embedder): ``capped`` with
the default ``Limits`` (at most ``max_claims_per_message`` claims, the rest reported) and
``uncapped`` (a cap above the message's claims: the cost of mining all of them, which shows
whether the growth is linear). Reported: seconds of ``close()``, claims written, proposals
reported over the cap, and the longest single hold of the write lock (``BEGIN IMMEDIATE`` to
``COMMIT``, seen by SQLite's trace callback, read on the wall clock: a bench, not a test).
"""

from __future__ import annotations

import argparse
import json
import random
import string
import tempfile
import time
from pathlib import Path
from typing import Any

from benchutil import machine
from reverie import Limits, Memory
from reverie.store.sqlite.store import SQLiteStore


def cousins(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)

    def name() -> str:
        return rng.choice(string.ascii_uppercase) + "".join(rng.choice("aeioulnrst") for _ in range(6))

    text = ". ".join(f"my cousin {name()} lives in {name()}" for _ in range(n)) + "."
    return text[: text.rfind(".", 0, 31_990) + 1]


def run(sentences: int, limits: Limits, folder: Path) -> dict[str, Any]:
    path = folder / f"m{sentences}-{limits.max_claims_per_message}.db"
    with Memory(path, embedder="hash", limits=limits) as mem:
        conv = mem.conversation("c", scope="user:alice")
        conv.add(cousins(sentences), speaker="Alice", role="user")
        store = mem.store
        assert isinstance(store, SQLiteStore)
        holds: list[float] = []
        began = [0.0]

        def trace(sql: str) -> None:
            if sql.startswith("BEGIN IMMEDIATE"):
                began[0] = time.perf_counter()
            elif sql.startswith("COMMIT") and began[0]:
                holds.append(time.perf_counter() - began[0])
                began[0] = 0.0

        store._conn.set_trace_callback(trace)
        t = time.perf_counter()
        report = conv.close().extraction
        seconds = time.perf_counter() - t
        store._conn.set_trace_callback(None)
    assert report is not None
    over = sum(1 for s in report.skipped if s.reason.startswith("limit_exceeded"))
    return {
        "sentences": sentences,
        "cap": limits.max_claims_per_message,
        "close_s": round(seconds, 2),
        "claims": len(report.claims),
        "reported_over_cap": over,
        "longest_lock_hold_s": round(max(holds, default=0.0), 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, nargs="+", default=[100, 200, 400, 860])
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sentences:
            for name, limits in (("capped", Limits()), ("uncapped", Limits(max_claims_per_message=100_000))):
                row = {"run": name, **run(n, limits, Path(tmp))}
                print(json.dumps(row), flush=True)
                rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
