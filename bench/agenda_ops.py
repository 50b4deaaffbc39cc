"""Intents and tasks: what one agenda write costs, and how lists answer on a scope holding many.

    .venv/bin/python bench/agenda_ops.py [--records 10000] [--json]

- **writes**: ``mem.intents.create``, ``mem.tasks.create`` and a task's start → complete, one
  call each (one transaction each), on a SQLite file with ``durability="fast"``, per second.
- **lists**: p50 / p95 of ``mem.intents.list(status=…, owner=…)``, ``mem.tasks.list(intent=…)``
  and ``mem.tasks.list(failed=True)`` once the scope holds ``--records`` intents and as many
  tasks (filled through the same API, so the rows and events are exactly what callers write).
- **rebuild**: ``mem.rebuild()`` replaying the whole log (no claims: agenda events only).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, pct
from reverie import Memory

SCOPE = "bench:agenda"


def _rate(n: int, seconds: float) -> float:
    return round(n / seconds, 1) if seconds > 0 else float("inf")


def _timed(call: object, runs: int = 50) -> dict[str, float]:
    took = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()  # type: ignore[operator]
        took.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(pct(took, 50), 3), "p95_ms": round(pct(took, 95), 3)}


def run(records: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(Path(tmp) / "agenda.db", embedder="hash", durability="fast", seed=0)
        t0 = time.perf_counter()
        intents = [
            mem.intents.create(f"goal {i}", scope=SCOPE, owner=f"agent-{i % 10}", priority=(i % 100) / 100)
            for i in range(records)
        ]
        t_intents = time.perf_counter() - t0
        t0 = time.perf_counter()
        tasks = [mem.tasks.create(f"step {i}", scope=SCOPE, intent=intents[i % len(intents)]) for i in range(records)]
        t_tasks = time.perf_counter() - t0
        moved = min(records, 2000)
        t0 = time.perf_counter()
        for i, t in enumerate(tasks[:moved]):
            mem.tasks.start(t, scope=SCOPE)
            if i % 4 == 0:
                mem.tasks.fail(t, "it broke", scope=SCOPE)
            else:
                mem.tasks.complete(t, scope=SCOPE)
        t_moves = time.perf_counter() - t0
        target = intents[len(intents) // 2]
        lists = {
            "intents(status=active, owner=agent-3)": _timed(
                lambda: mem.intents.list(scope=SCOPE, status="active", owner="agent-3")
            ),
            "tasks(intent=…)": _timed(lambda: mem.tasks.list(scope=SCOPE, intent=target)),
            "tasks(failed=True)": _timed(lambda: mem.tasks.list(scope=SCOPE, failed=True)),
        }
        t0 = time.perf_counter()
        mem.rebuild()
        t_rebuild = time.perf_counter() - t0
        ok = mem.doctor().ok
        mem.close()
    return {
        "machine": machine(),
        "records": records,
        "intent_create_per_s": _rate(records, t_intents),
        "task_create_per_s": _rate(records, t_tasks),
        "task_moves_per_s": _rate(2 * moved, t_moves),
        "lists": lists,
        "rebuild_s": round(t_rebuild, 2),
        "doctor_ok": ok,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with threadpool_limits(1):
        result = run(args.records)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
