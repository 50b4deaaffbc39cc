"""How many bytes an intent's moves add to the log: one intent paused and resumed ``--pairs`` times.

    .venv/bin/python bench/intent_move_bytes.py [--pairs 1000] [--label-chars 200] [--claims 20] [--json OUT]
    .venv/bin/python bench/intent_move_bytes.py --old-src /work/wt/intentdelta-old/src --json OUT  # old vs this tree

One intent (a label of ``--label-chars`` characters, about ``--claims`` claims) is paused and
resumed ``--pairs`` times, each move with a short reason, on a SQLite file. Reported: the bytes
of its move events' payloads (the JSON the log stores), the largest and the mean one, the
creation's payload, the file's size, moves/s and a rebuild. Moves that carried the whole intent
copied its label and claim ids into every event, so the log grew with moves times the record's
size; moves that carry only what changed (status, reason, version, time) do not grow with it.
``Limits.max_record_moves`` is raised for the run so the pairs fit.

``--old-src DIR``: the same run with an older tree's ``reverie`` and this one's, alternated
``--rounds`` times (each run in its own process), printed side by side with the ratio of their
move payload bytes (timings: the rounds' medians; ``benchutil.machine`` says how busy it was).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess  # nosec B404
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# ``--src DIR`` (set by ``--old-src``): import reverie from another tree.
sys.path.insert(
    0,
    sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv else str(Path(__file__).resolve().parents[1] / "src"),
)
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import machine
from reverie import Limits, Memory

HERE = Path(__file__).resolve().parents[1] / "src"
SCOPE = "bench:moves"


def run(pairs: int, label_chars: int, claims: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "moves.db"
        limits = Limits(max_record_moves=2 * pairs + 10)
        with Memory(path, embedder="hash", durability="fast", seed=0, limits=limits) as mem:
            about = [mem.remember(f"fact {i} about the trip to Lisbon", scope=SCOPE).id for i in range(claims)]
            label = ("plan the trip to Lisbon in May " * (label_chars // 31 + 1))[:label_chars]
            goal = mem.intents.create(label, scope=SCOPE, memory_ids=about, owner="agent:planner", priority=0.7)
            t0 = time.perf_counter()
            for i in range(pairs):
                mem.intents.pause(goal, scope=SCOPE, reason=f"waiting for the visa, week {i}")
                mem.intents.resume(goal, scope=SCOPE, reason="visa arrived")
            took = time.perf_counter() - t0
            t0 = time.perf_counter()
            mem.rebuild()
            rebuild_s = time.perf_counter() - t0
            final = mem.intents.get(goal, scope=SCOPE)
            assert final.version == 2 * pairs + 1 and final.label == label and len(final.memory_ids) == claims
        conn = sqlite3.connect(path)
        try:
            rows = conn.execute("SELECT type, length(payload) FROM events WHERE type LIKE 'intent.%' ORDER BY seq")
            sizes = [(str(t), int(n)) for t, n in rows]
        finally:
            conn.close()
        moves = [n for t, n in sizes if t != "intent.created"]
        return {
            "pairs": pairs,
            "label_chars": label_chars,
            "claims": claims,
            "move_events": len(moves),
            "move_payload_bytes": sum(moves),
            "largest_move_payload_bytes": max(moves),
            "mean_move_payload_bytes": round(sum(moves) / len(moves), 1),
            "created_payload_bytes": sum(n for t, n in sizes if t == "intent.created"),
            "file_bytes": path.stat().st_size,
            "moves_per_s": round(2 * pairs / took, 1),
            "rebuild_s": round(rebuild_s, 2),
        }


def _side_by_side(old_src: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The old tree and this one, alternated ``--rounds`` times, each run in a fresh process.

    Bytes are the same every round; moves/s and rebuild are the rounds' medians (the machine is shared).
    """
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for label, src in (("old", old_src), ("new", HERE)):
                dest = Path(tmp) / f"{label}{r}.json"
                argv = [sys.executable, __file__, "--src", str(src), "--pairs", str(args.pairs)]
                argv += ["--label-chars", str(args.label_chars), "--claims", str(args.claims), "--json", str(dest)]
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)  # nosec B603
                runs[label].append(json.loads(dest.read_text(encoding="utf-8")))
    out: dict[str, Any] = {"old_src": str(old_src), "rounds": args.rounds}
    for label, done in runs.items():
        out[label] = {k: v for k, v in done[-1].items() if k != "machine"}
        for k in ("moves_per_s", "rebuild_s"):
            out[label][k] = round(statistics.median(d[k] for d in done), 2)
            out[label][f"{k}_runs"] = [d[k] for d in done]
    out["move_bytes_old_over_new"] = round(out["old"]["move_payload_bytes"] / out["new"]["move_payload_bytes"], 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--label-chars", type=int, default=200)
    parser.add_argument("--claims", type=int, default=20)
    parser.add_argument("--json", type=Path, help="Also write the results here.")
    parser.add_argument("--old-src", type=Path, help="An older tree's src/ to measure against this one.")
    parser.add_argument("--rounds", type=int, default=3, help="With --old-src: alternations of old and new.")
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.old_src is not None:
        result = {**_side_by_side(args.old_src, args), "machine": machine()}
        keys = [k for k in result["new"] if k not in ("pairs", "label_chars", "claims") and not k.endswith("_runs")]
        print(f"{'':>28} {'old':>12} {'new':>12}")
        for k in keys:
            print(f"{k:>28} {result['old'][k]:>12,} {result['new'][k]:>12,}")
        print(f"move payload bytes, old / new: {result['move_bytes_old_over_new']}")
    else:
        result = {"machine": machine(), **run(args.pairs, args.label_chars, args.claims)}
        for k, v in result.items():
            if k != "machine":
                print(f"{k:>28}: {v:,}" if isinstance(v, int) else f"{k:>28}: {v}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
