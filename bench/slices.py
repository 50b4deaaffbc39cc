"""Slice benchmark: export and import of N items with their provenance (time, size).

    python bench/slices.py [--items 10000] [--json bench/results/slices.json]

A source store (a SQLite file, hash embedder, seeded) holds N claims, each with provenance
(origin ``conversation``, a ref and a locator), mixed sources and kinds, tags and crew meta;
one in ten derives from an earlier claim (a parent) and one in ten supports another (an edge).
Then, timed separately:

- ``export``: ``export_slice`` of the whole scope (every current item), and ``to_json``;
- ``parse``: ``Slice.from_json`` of that text (every check an import makes on the format);
- ``import``: ``import_slice`` into an empty scope of another file (one transaction, fsync'd),
  with write-time conflict detection off (the import's own edges are the slice's), and on
  for runs of at most 1000 items (detection costs ~20 ms a claim here: run `--items 1000` for it);
- ``reimport``: the same slice again (every claim recognised as already here: nothing written).

Record time is wall time on this machine (``benchutil.machine`` says how busy it was).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchutil import machine
from reverie import ManualClock, Memory
from reverie.slice import Slice

START = datetime(2025, 1, 1, tzinfo=UTC)
SCOPE, TARGET = "team:bench", "team:copy"
SUBJECTS = ("Alice", "Bob", "Carol", "Dan", "Erin", "Frank", "Grace", "Heidi")
VERBS = ("likes", "visited", "works with", "wrote about", "asked about", "recommended", "reviewed", "avoids")
THINGS = ("the API", "the roadmap", "Paris", "green tea", "the Q3 report", "Rust", "the cache", "chess")


def _populate(mem: Memory, n: int, rng: random.Random) -> list[str]:
    ids: list[str] = []
    batch: list[dict[str, Any]] = []
    for i in range(n):
        claim: dict[str, Any] = {
            "text": f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(THINGS)} (note {i})",
            "kind": rng.choice(("observation", "assertion", "episodic", "semantic")),
            "source": rng.choice(("user_stated", "observed", "inferred")),
            "tags": [rng.choice(("work", "home", "travel"))],
            "meta": {"agent_id": f"agent-{i % 4}", "session_id": f"s-{i // 100}"},
            "provenance": {"origin": "conversation", "ref": f"chat-{i // 50}", "locator": f"turn-{i % 50}"},
            "importance": round(rng.random(), 3),
        }
        if ids and rng.random() < 0.1:
            claim["parents"] = [rng.choice(ids)]
        batch.append(claim)
        if len(batch) == 1000 or i == n - 1:
            ids += [it.id for it in mem.remember_many(batch, scope=SCOPE)]
            batch = []
    for _ in range(n // 10):
        a, b = rng.sample(ids, 2)
        mem.link(a, b, "supports", scope=SCOPE, author="agent-0")
    return ids


def _import(path: Path, clock: ManualClock, sl: Slice, *, detect: bool) -> dict[str, Any]:
    with Memory(path, embedder="hash", clock=clock, seed=2, detect_conflicts=detect) as dst:
        start = time.perf_counter()
        report = dst.import_slice(sl, scope=TARGET)
        first = time.perf_counter() - start
        start = time.perf_counter()
        again = dst.import_slice(sl, scope=TARGET)
        second = time.perf_counter() - start
        assert len(report.created) == len(sl.items) and not again.created
        ok = dst.doctor().ok
    return {
        "import_s": round(first, 2),
        "items_per_s": round(len(sl.items) / first),
        "reimport_s": round(second, 2),
        "created": len(report.created),
        "edges": len(report.edges),
        "doctor_ok": ok,
        "file_mb": round(path.stat().st_size / 1e6, 1),
    }


def run(n: int) -> dict[str, Any]:
    rng = random.Random(7)
    clock = ManualClock(START)
    with tempfile.TemporaryDirectory() as tmp:
        src_path = Path(tmp) / "src.db"
        with Memory(src_path, embedder="hash", clock=clock, seed=1, durability="fast", detect_conflicts=False) as src:
            start = time.perf_counter()
            _populate(src, n, rng)
            setup = time.perf_counter() - start
            start = time.perf_counter()
            sl = src.export_slice(scope=SCOPE)
            export_s = time.perf_counter() - start
        start = time.perf_counter()
        text = sl.to_json()
        to_json_s = time.perf_counter() - start
        start = time.perf_counter()
        parsed = Slice.from_json(text)
        parse_s = time.perf_counter() - start
        plain = _import(Path(tmp) / "plain.db", clock, parsed, detect=False)
        detected = _import(Path(tmp) / "detect.db", clock, parsed, detect=True) if n <= 1000 else None
    return {
        "items": len(sl.items),
        "edges": len(sl.edges),
        "setup_s": round(setup, 2),
        "export_s": round(export_s, 2),
        "to_json_s": round(to_json_s, 2),
        "json_mb": round(len(text.encode("utf-8")) / 1e6, 2),
        "bytes_per_item": round(len(text.encode("utf-8")) / max(1, len(sl.items))),
        "parse_s": round(parse_s, 2),
        "import_detection_off": plain,
        "import_detection_on": detected,
        "machine": machine(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--json", type=Path, help="Also write the results here.")
    args = ap.parse_args()
    result = run(args.items)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
