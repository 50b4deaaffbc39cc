"""Slice benchmark, write-time detection: importing a conversation slice vs adding its messages live.

    python bench/slice_import_detection.py [--messages 1000] [--profile 10] [--json out.json]
    python bench/slice_import_detection.py --old-src /tmp/old/src [--rounds 2] ...   # an older tree vs this one

Both sides run with write-time conflict detection on (``detect_conflicts=True``, the default), in
SQLite files, hash embedder, seeded:

- ``add``: ``--messages`` messages added one by one through ``conv.add`` (conversations of 100,
  three speakers, a tool call every 5 messages, an idle release every 50: extraction mines claims,
  which go through ``remember`` and its detection) — the way the source store was written;
- ``import``: that store's version-2 slice (``include_conversations=True``) imported into an empty
  scope of another file (one transaction, then detection on what it created);
- ``detections``: how many times detection ran for each (``Contradictions.conflict_links`` calls),
  and ``profile``: the import's cProfile, top ``--profile`` functions by cumulative time.

``--old-src DIR``: run the same measurement with an older source tree's ``reverie`` and this one's,
alternated ``--rounds`` times (each run in its own process), and print both side by side with the ratio
of their import times. Record time is wall time on this machine (``benchutil.machine`` says how busy it was).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import statistics
import subprocess  # nosec B404
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# ``--src DIR`` (set by ``--old-src``): import reverie from another tree.
sys.path.insert(
    0,
    sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv else str(Path(__file__).resolve().parents[1] / "src"),
)

from benchutil import machine
from reverie import ManualClock, Memory
from reverie.memory.contradictions import Contradictions

HERE = Path(__file__).resolve().parents[1] / "src"
START = datetime(2025, 1, 1, tzinfo=UTC)
SCOPE, TARGET = "user:bench", "task:copy"
WORDS = ("the API", "Lisbon", "green tea", "the Q3 report", "the cache", "chess", "the flight", "the garden")
FACTS = ("I live in {w}.", "I prefer {w}.", "I don't like {w}.", "My budget for {w} is {n} euros.")


def _populate(mem: Memory, clock: ManualClock, n: int, rng: random.Random) -> None:
    for c in range(0, n, 100):
        conv = mem.conversation(f"chat-{c // 100}", scope=SCOPE)
        for i in range(c, min(n, c + 100)):
            speaker, role = rng.choice((("Alice", "user"), ("Bob", "user"), ("Bot", "assistant")))
            if role == "user" and i % 3 == 0:  # a claim extraction mines (and detection then checks)
                text = rng.choice(FACTS).format(w=rng.choice(WORDS), n=rng.randrange(10, 900))
            else:
                text = f"Message {i}: we talked about {rng.choice(WORDS)} again."
            conv.add(text, speaker=speaker, role=role)
            if i % 5 == 4:
                conv.tool_call("search", args={"q": rng.choice(WORDS)}, status="ok")
            if i % 50 == 49:
                clock.advance(hours=1)  # idle: the next call releases the session (a recap)
        conv.release()


class _Count:
    """Counts ``Contradictions.conflict_links`` calls (one per item detection ran for)."""

    def __init__(self) -> None:
        self.calls = 0
        self._orig = Contradictions.conflict_links

    def __enter__(self) -> _Count:
        orig = self._orig

        def counted(this: Contradictions, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return orig(this, *args, **kwargs)

        Contradictions.conflict_links = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Contradictions.conflict_links = self._orig  # type: ignore[method-assign]


def run(n: int, top: int) -> dict[str, Any]:
    clock = ManualClock(START)
    with tempfile.TemporaryDirectory() as tmp:
        src = Memory(Path(tmp) / "src.db", embedder="hash", clock=clock, seed=1)
        with _Count() as add_count:
            start = time.perf_counter()
            _populate(src, clock, n, random.Random(7))
            add_s = time.perf_counter() - start
        sl = src.export_slice(scope=SCOPE, include_conversations=True)
        src.close()
        dst = Memory(Path(tmp) / "dst.db", embedder="hash", clock=clock, seed=2)
        prof = cProfile.Profile()
        with _Count() as import_count:
            start = time.perf_counter()
            prof.enable()
            report = dst.import_slice(sl, scope=TARGET)
            prof.disable()
            import_s = time.perf_counter() - start
        conflicts = len(dst.contradictions(scope=TARGET, limit=1000))
        dst.close()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    rows = [line.rstrip() for line in out.getvalue().splitlines() if line.strip()][-(top + 1) :]
    return {
        "messages": n,
        "items": len(sl.items),
        "created": len(report.created),
        "add_s": round(add_s, 2),
        "import_s": round(import_s, 2),
        "import_over_add": round(import_s / max(add_s, 1e-9), 2),
        "detections": {"add": add_count.calls, "import": import_count.calls},
        "import_conflicts": conflicts,
        "profile": rows,
        "machine": machine(),
    }


def _row(label: str, r: dict[str, Any]) -> str:
    d = r["detections"]
    return (
        f"{label:>5} {r['messages']:>8} {r['items']:>6} {r['add_s']:>7} {r['import_s']:>9} "
        f"{r['import_over_add']:>6} {d['add']:>8} {d['import']:>8}"
    )


HEADER = (
    f"{'tree':>5} {'messages':>8} {'items':>6} {'add s':>7} {'import s':>9} {'ratio':>6} {'det add':>8} {'det imp':>8}"
)


def _side_by_side(old_src: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Old tree and this one, alternated, each run in a fresh process."""
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for label, src in (("old", old_src), ("new", HERE)):
                out = Path(tmp) / f"{label}{r}.json"
                argv = [sys.executable, __file__, "--src", str(src), "--messages", str(args.messages)]
                argv += ["--profile", str(args.profile), "--json", str(out), "--quiet"]
                subprocess.run(argv, check=True)  # nosec B603
                runs[label].append(json.loads(out.read_text(encoding="utf-8")))
    old_s = statistics.median(r["import_s"] for r in runs["old"])
    new_s = statistics.median(r["import_s"] for r in runs["new"])
    return {"old_src": str(old_src), "runs": runs, "import_old_over_new": round(old_s / max(new_s, 1e-9), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--profile", type=int, default=10, help="Top functions of the import's profile.")
    ap.add_argument("--json", type=Path, help="Also write the results here.")
    ap.add_argument("--old-src", type=Path, help="An older tree's src/ to measure against this one.")
    ap.add_argument("--rounds", type=int, default=2, help="With --old-src: alternations of old and new.")
    ap.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.old_src is not None:
        both = _side_by_side(args.old_src, args)
        print(HEADER)
        for label in ("old", "new"):
            for r in both["runs"][label]:
                print(_row(label, r))
        print(f"import time, old / new (medians): {both['import_old_over_new']}")
        for label in ("old", "new"):
            print(f"{label} import profile (cumulative, last run):")
            print("\n".join(both["runs"][label][-1]["profile"]))
        result = {**both, "machine": machine()}
        print(json.dumps(result["machine"]))
    else:
        result = run(args.messages, args.profile)
        if not args.quiet:
            print(HEADER)
            print(_row("this", result))
            print("import profile (cumulative):")
            print("\n".join(result["profile"]))
            print(json.dumps(result["machine"]))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
