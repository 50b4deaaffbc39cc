"""What one contradiction check costs as a claim grows: today's rules vs another revision's.

Why: an outside tester found the write-time check growing about cubically with text length
(a 4.9 KB claim next to a similar one took 36 s to remember, holding the write lock). Each
shape below is a long text and the same text with other numbers, dates or names, which is
what a write meets when a similar claim is stored. CPU seconds of one ``detect`` call, cold
caches (a fresh process per tree and length), side by side in one run:

    python bench/conflict_long_text.py --old REV [--json out.json]

``--old`` checks REV's ``src`` out into a temporary directory (``git archive``) and runs the
same worker against it; lengths the old tree cannot finish within ``--budget`` seconds are
shown as ">budget".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {
    "numbers": lambda i, shift: f"the limit is {i + shift}/min and",
    "dates": lambda i, shift: f"the meeting is on May {(i + shift) % 28 + 1} and",
    "names": lambda i, shift: f"Person{i} lives in City{i + shift}.",
}
LENGTHS = (500, 1_000, 2_000, 4_000, 8_000, 32_000)


def _texts(shape: str, chars: int) -> tuple[str, str]:
    make = SHAPES[shape]
    a, b, i = [], [], 0
    while sum(len(p) + 1 for p in a) < chars:
        a.append(make(i, 0))
        b.append(make(i, 7))
        i += 1
    return " ".join(a)[:chars], " ".join(b)[:chars]


def _worker(src: str, shape: str, chars: int) -> None:
    sys.path.insert(0, src)
    import time

    from reverie.conflict import Claim, detect

    a, b = _texts(shape, chars)
    start = time.process_time()
    detect(Claim(a), Claim(b))
    print(time.process_time() - start)


def _run(src: Path, shape: str, chars: int, budget: float) -> float | None:
    cmd = [sys.executable, __file__, "--worker", str(src), shape, str(chars)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=budget, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(out.stdout.strip().splitlines()[-1])


def _checkout(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="the revision to compare with (required)")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds before a check counts as not finished")
    parser.add_argument("--json", type=Path, help="write the table here")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return 0
    if not args.old:
        parser.error("--old REV is required")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        old_src = _checkout(args.old, Path(tmp))
        print(f"{'shape':8} {'chars':>7} {'old s':>9} {'today s':>9}")
        for shape in SHAPES:
            old_finished = True  # once a tree runs out of budget, longer texts would too
            for chars in LENGTHS:
                old = _run(old_src, shape, chars, args.budget) if old_finished else None
                new = _run(ROOT / "src", shape, chars, args.budget)
                old_finished = old is not None
                show = [f">{args.budget:.0f}" if v is None else f"{v:.3f}" for v in (old, new)]
                print(f"{shape:8} {chars:>7} {show[0]:>9} {show[1]:>9}")
                rows.append({"shape": shape, "chars": chars, "old_s": old, "today_s": new})
    if args.json:
        args.json.write_text(json.dumps({"old_rev": args.old, "budget_s": args.budget, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
