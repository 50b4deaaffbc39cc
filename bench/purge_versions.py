"""Purging a claim with many versions: seconds, which should grow about linearly with the versions.

    .venv/bin/python bench/purge_versions.py [--versions 400 800 1600] [--backend sqlite|postgres]
        [--pg-url URL] [--json out]

Outside probe 3, finding 17: ``forget(id, purge=True)`` of a status line revised 1,200 times took
~14 s, all under the store's write lock (400 versions 0.74 s, 1,600 versions 11 s: quadratic). The
purge looked for the events quoting any version by testing every event of the scope against 200
ids at a time, once per 200 versions. Per size, a fresh store (hash embedder, ``ManualClock``) with
one claim revised N times, then one timed purge of its newest version; reported: seconds, seconds
per version, and the ratio to the smallest size over the ratio of versions (about 1 when linear).
Wall clock on a shared machine: a bench, not a test.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from benchutil import machine
from reverie import Memory
from reverie.testing import ManualClock

S = "user:bench"


def _open(backend: str, folder: Path, n: int, clock: ManualClock, pg_url: str | None) -> Memory:
    if backend == "postgres":
        if not pg_url:
            raise SystemExit("--pg-url postgresql://… is needed for the postgres backend")
        return Memory(pg_url, embedder="hash", clock=clock)
    return Memory(folder / f"v{n}.db", embedder="hash", clock=clock, durability="fast")


def run(n: int, backend: str, folder: Path, pg_url: str | None) -> dict[str, Any]:
    clock = ManualClock()
    scope = f"{S}{n}"
    with _open(backend, folder, n, clock, pg_url) as mem:
        current = mem.remember("Build status is 0", scope=scope)
        for i in range(1, n + 1):
            clock.advance(seconds=1)
            current = mem.revise(current.id, f"Build status is {i}", scope=scope)
        start = time.perf_counter()
        mem.forget(current.id, scope=scope, purge=True, reason="bench")
        seconds = time.perf_counter() - start
    return {"versions": n + 1, "seconds": round(seconds, 3), "ms_per_version": round(1000 * seconds / (n + 1), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--versions", type=int, nargs="+", default=[400, 800, 1600])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--pg-url", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.versions:
            rows.append(run(n, args.backend, Path(tmp), args.pg_url))
            first, row = rows[0], rows[-1]
            growth = (row["seconds"] / max(first["seconds"], 1e-9)) / (row["versions"] / first["versions"])
            row["growth_over_linear"] = round(growth, 2)
            print(
                f"{row['versions']:>6} versions  {row['seconds']:>8.3f} s  {row['ms_per_version']:>7.3f} ms/version"
                f"  growth/linear {row['growth_over_linear']:.2f}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps({"backend": args.backend, "rows": rows, "machine": machine()}, indent=2))


if __name__ == "__main__":
    main()
