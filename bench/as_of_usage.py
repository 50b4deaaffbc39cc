"""What a point-in-time recall (``as_of=T``) costs as the agent keeps recalling after T, old tree vs this one.

    .venv/bin/python bench/as_of_usage.py [--items 20] [--recalls 0,100,500,1500] [--repeats 5]
        [--old-src DIR] [--json out.json]

One scope of ``--items`` claims ("Alice fact i about hiking", hash embedder, ``ManualClock``), a
time T, then ordinary recalls of "Alice hiking" (``k=20``, each a second apart, each recording a
``memory.used`` event about its hits). A copy of the file is kept at each count in ``--recalls``.
On each copy, a child process per tree (``PYTHONPATH`` = its ``src/``) times ``--repeats``
``recall("Alice hiking", as_of=T, k=10)`` and ``get(id, as_of=T)`` of one claim (after one untimed
recall) and reports the median, and the events the store returned for them.

Why: the replay behind ``as_of`` fetched each candidate's whole log and stopped at T only
afterwards, so every recall since T made every look back slower (outside probe 5, #7: 2 ms → 3.3 s
after 1,500 recalls). It now reads the log a page at a time and stops at the first event after T
(``store/replay.py``): the cost follows the history up to T, not the use since.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
SCOPE = "u"
QUERY = "Alice hiking"
START = "2026-01-01T00:00:00+00:00"


def build(tmp: Path, items: int, counts: list[int]) -> tuple[dict[int, Path], str, str]:
    """The store at each recall count; returns the copies, T (ISO-8601) and one claim's id."""
    from reverie import ManualClock, Memory

    clock = ManualClock(datetime.fromisoformat(START))
    path = tmp / "usage.db"
    copies: dict[int, Path] = {}
    with Memory(path, embedder="hash", clock=clock, seed=1) as mem:
        ids = [
            i.id
            for i in mem.remember_many([{"text": f"Alice fact {i} about hiking"} for i in range(items)], scope=SCOPE)
        ]
        t = clock.now()
        done = 0
        for n in sorted(counts):
            for _ in range(n - done):
                clock.advance(seconds=1)
                mem.recall(QUERY, scope=SCOPE, k=20)
            done = n
            mem.store.checkpoint()  # type: ignore[attr-defined]  # fold the WAL in before copying
            copies[n] = tmp / f"after_{n}.db"
            shutil.copy(path, copies[n])
    return copies, t.isoformat(), ids[0]


def measure(path: str, when: str, item_id: str, repeats: int) -> dict[str, Any]:
    """Time as_of recall and get in this process (the tree on ``sys.path``)."""
    from threadpoolctl import threadpool_limits

    from reverie import ManualClock, Memory
    from reverie.store.sqlite import SQLiteStore

    class Counted(SQLiteStore):
        read = 0

        def events(self, scope: str, **kw: Any) -> Any:
            found = super().events(scope, **kw)
            self.read += len(found)
            return found

    t = datetime.fromisoformat(when)
    store = Counted(path)
    clock = ManualClock(datetime.fromisoformat(START))
    clock.advance(days=30)
    recall_ms: list[float] = []
    get_ms: list[float] = []
    with threadpool_limits(1), Memory(store=store, embedder="hash", clock=clock, seed=2) as mem:
        mem.recall(QUERY, scope=SCOPE, as_of=t, k=10)
        store.read = 0
        for _ in range(repeats):
            start = time.perf_counter()
            mem.recall(QUERY, scope=SCOPE, as_of=t, k=10)
            recall_ms.append((time.perf_counter() - start) * 1000)
        recall_events = store.read // repeats
        store.read = 0
        for _ in range(repeats):
            start = time.perf_counter()
            mem.get(item_id, scope=SCOPE, as_of=t)
            get_ms.append((time.perf_counter() - start) * 1000)
        get_events = store.read // repeats
        current = time.perf_counter()
        mem.recall(QUERY, scope=SCOPE, k=10, record_use=False)
        current_ms = (time.perf_counter() - current) * 1000
    return {
        "as_of_recall_ms": round(sorted(recall_ms)[len(recall_ms) // 2], 2),
        "as_of_get_ms": round(sorted(get_ms)[len(get_ms) // 2], 2),
        "current_recall_ms": round(current_ms, 2),
        "events_read_per_as_of_recall": recall_events,
        "events_read_per_as_of_get": get_events,
    }


def _child(src: str, path: Path, when: str, item_id: str, repeats: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1"}
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import as_of_usage as b; "
        "print(json.dumps(b.measure(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))))"
    )
    args = [sys.executable, "-c", code, str(HERE), str(path), when, item_id, str(repeats)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)  # nosec B603 # our own interpreter and script
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=20)
    p.add_argument("--recalls", default="0,100,500,1500", help="recall counts since T to measure at")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--old-src", help="another tree's src/ to time beside this one")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    from benchutil import machine

    counts = sorted({int(c) for c in args.recalls.split(",")})
    here = str(Path(__file__).resolve().parents[1] / "src")
    trees = [("new", here)] + ([("old", args.old_src)] if args.old_src else [])
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        copies, when, item_id = build(Path(tmp), args.items, counts)
        print(f"built {args.items} items and {counts[-1]} recalls in {time.perf_counter() - start:.0f} s", flush=True)
        for n in counts:
            row: dict[str, Any] = {"recalls_since_t": n}
            for name, src in trees:
                copy = Path(tmp) / f"{name}_{n}.db"
                shutil.copy(copies[n], copy)
                row[name] = _child(src, copy, when, item_id, args.repeats)
            rows.append(row)
            print(json.dumps(row), flush=True)
    doc = {"items": args.items, "repeats": args.repeats, "rows": rows, "machine": machine()}
    if args.json:
        args.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
