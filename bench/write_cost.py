"""CPU instructions per item of a batched write, this tree beside older revisions (valgrind).

    .venv/bin/python bench/write_cost.py [--old REV[,REV...]] [--items 1000] [--batch 500] [--json out.json]

Why instructions: on this shared 2-core machine (load 5-11 from other work) wall clock and even
CPU seconds of the same code moved by up to 30 % between runs, while callgrind's instruction count
of a run repeats to 0.1 %. It measures the CPU work of the write path, not time: cache misses,
I/O and fsync are not in it (``bench/scale.py --old`` measures wall clock side by side).

For each tree (this one, then each ``--old`` revision's ``src`` archived to a temp dir) a child
process under ``valgrind --tool=callgrind --instr-atstart=no`` fills a store with one batch (not
counted: imports, schema, first writes), turns instrumentation on (``callgrind_control -i on``),
remembers ``--items`` more in batches of ``--batch`` through ``remember_many``, and turns it off.
Same data as ``bench/scale.py`` (its Markov texts and seed), ``durability="fast"``, hash embedder,
conflict detection off. Needs ``valgrind`` (Debian: ``apt-get install valgrind``); ~3 min per tree.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCOPE = "scale"


def child(src: str, items: int, batch: int) -> None:
    """Runs inside callgrind: the counted fill (see the module docstring)."""
    sys.argv = [sys.argv[0], "--src", src]  # scale.py puts this tree's package first on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import random
    from datetime import UTC, datetime

    import scale
    from reverie import ManualClock, Memory

    sentence, _ = scale.corpus(scale.SEED)
    rng = random.Random(scale.SEED)
    with tempfile.TemporaryDirectory(prefix="reverie-write-cost-") as tmp:
        mem = Memory(
            Path(tmp) / "w.db",
            embedder="hash",
            clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)),
            durability="fast",
            seed=0,
            detect_conflicts=False,
        )
        with mem:
            rounds = 1 + items // batch
            batches = [[{"text": sentence(rng), "kind": "observation"} for _ in range(batch)] for _ in range(rounds)]
            mem.remember_many(batches[0], scope=SCOPE)
            toggle = ["callgrind_control", "-i"]
            subprocess.run([*toggle, "on", str(os.getpid())], check=True, capture_output=True)
            for b in batches[1:]:
                mem.remember_many(b, scope=SCOPE)
            subprocess.run([*toggle, "off", str(os.getpid())], check=True, capture_output=True)


def measure(src: Path, items: int, batch: int, out_dir: Path, name: str) -> int:
    """Instructions the child counted for ``items`` items of the package in ``src``."""
    out = out_dir / f"callgrind.{name}"
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", sys.executable]
    cmd += [__file__, "--child", str(src), "--items", str(items), "--batch", str(batch)]
    run = subprocess.run(cmd, check=True, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(f"callgrind reported no count for {name}:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="instructions per item of remember_many, side by side")
    ap.add_argument("--old", default="", help="comma-separated git revisions to measure beside this tree")
    ap.add_argument("--items", type=int, default=1000, help="items counted (after one uncounted batch)")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.items, args.batch)
        return 0
    revs = [r for r in args.old.split(",") if r]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="reverie-write-cost-") as tmp:
        trees = {"today": ROOT / "src"}
        for rev in revs:
            dest = Path(tmp) / rev
            dest.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True)
            subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
            trees[rev] = dest / "src"
        for name, src in trees.items():
            print(f"  {name}: counting ...", file=sys.stderr, flush=True)
            count = measure(src, args.items, args.batch, Path(tmp), name.replace("/", "_"))
            commit = "worktree" if name == "today" else _commit(name)
            rows.append({"tree": name, "commit": commit, "instructions": count, "per_item": count / args.items})
    base = rows[0]["per_item"]
    print(f"\ninstructions per item, remember_many of {args.items:,} items in batches of {args.batch}")
    print(f"{'tree':>12s} {'commit':>12s} {'per item':>12s} {'vs today':>9s}")
    for r in rows:
        print(f"{r['tree']:>12s} {r['commit'][:10]:>12s} {r['per_item']:12,.0f} {r['per_item'] / base:9.3f}")
    if args.json:
        args.json.write_text(json.dumps({"items": args.items, "batch": args.batch, "rows": rows}, indent=2))
        print(f"wrote {args.json}")
    return 0


def _commit(rev: str) -> str:
    found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], check=True, capture_output=True, text=True)
    return found.stdout.strip()


if __name__ == "__main__":
    raise SystemExit(main())
