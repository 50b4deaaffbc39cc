"""How many bytes a task's moves add to the log: one task failed and retried ``--pairs`` times.

    .venv/bin/python bench/task_move_bytes.py [--pairs 1000] [--reason-chars 40] [--json]

One task is started, then failed and retried ``--pairs`` times (each failure with a reason of
``--reason-chars`` characters), on a SQLite file. Reported: the bytes of the task's event
payloads (the JSON the log stores), the largest single payload, and the file's size. Events that
carried the whole task after each move grew with the failures already on it, so the total grew
with the square of the moves (~112 MB for 1,000 pairs); events that carry only what the move
changed grow with the moves. ``Limits.max_record_moves`` is raised for the run so the pairs fit.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine
from reverie import Limits, Memory

SCOPE = "bench:moves"


def run(pairs: int, reason_chars: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "moves.db"
        limits = Limits(max_record_moves=2 * pairs + 10)
        with Memory(path, embedder="hash", durability="fast", seed=0, limits=limits) as mem:
            task = mem.tasks.create("look it up", scope=SCOPE)
            mem.tasks.start(task, scope=SCOPE)
            reason = ("the lookup timed out " * (reason_chars // 21 + 1))[:reason_chars]
            t0 = time.perf_counter()
            for _ in range(pairs):
                mem.tasks.fail(task, reason, scope=SCOPE)
                mem.tasks.retry(task, scope=SCOPE)
            took = time.perf_counter() - t0
            t0 = time.perf_counter()
            mem.rebuild()
            rebuild_s = time.perf_counter() - t0
            final = mem.tasks.get(task, scope=SCOPE)
            assert len(final.failures) == pairs and final.attempts == pairs + 1
        conn = sqlite3.connect(path)
        try:
            sizes = [len(r[0]) for r in conn.execute("SELECT payload FROM events WHERE type LIKE 'task.%'")]
        finally:
            conn.close()
        return {
            "pairs": pairs,
            "events": len(sizes),
            "event_payload_bytes": sum(sizes),
            "largest_payload_bytes": max(sizes),
            "file_bytes": path.stat().st_size,
            "moves_per_s": round(2 * pairs / took, 1),
            "rebuild_s": round(rebuild_s, 2),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--reason-chars", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {"machine": machine(), **run(args.pairs, args.reason_chars)}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for k, v in result.items():
        if k != "machine":
            print(f"{k:>22}: {v:,}" if isinstance(v, int) else f"{k:>22}: {v}")


if __name__ == "__main__":
    main()
