"""Slice benchmark, conversations section: what carrying conversations whole costs (time, size).

    python bench/slice_conversations.py [--messages 2000] [--json bench/results/slice_conversations.json]

A source store (a SQLite file, hash embedder, seeded; extraction on each release) holds ``--messages`` messages in
conversations of 100 (two speakers and an assistant), a tool-call record every 5 messages and an idle
release (a recap) every 50. Then, timed separately, side by side on the same store:

- ``export``: ``export_slice`` of the whole scope, without conversations (version 1: the messages'
  memories only) and with them (version 2: entries, tool calls, recaps and the memories);
- ``parse``: ``Slice.from_json`` of each text;
- ``import``: each slice into an empty scope of another file (one transaction, fsync'd);
- ``reimport``: the version-2 slice again (every entry and item recognised: nothing written), and
  ``home``: the copy's own version-2 export back into the source scope (nothing written either).

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
SCOPE, TARGET = "user:bench", "task:copy"
WORDS = ("the API", "Lisbon", "green tea", "the Q3 report", "the cache", "chess", "the flight", "the garden")


def _populate(mem: Memory, clock: ManualClock, n: int, rng: random.Random) -> None:
    for c in range(0, n, 100):
        conv = mem.conversation(f"chat-{c // 100}", scope=SCOPE)
        for i in range(c, min(n, c + 100)):
            speaker, role = rng.choice((("Alice", "user"), ("Bob", "user"), ("Bot", "assistant")))
            conv.add(f"Message {i}: we talked about {rng.choice(WORDS)} again.", speaker=speaker, role=role)
            if i % 5 == 4:
                conv.tool_call("search", args={"q": rng.choice(WORDS)}, status="ok")
            if i % 50 == 49:
                clock.advance(hours=1)  # idle: the next call releases the session (a recap)
        conv.release()


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, round(time.perf_counter() - start, 3)


def _import(path: Path, clock: ManualClock, sl: Slice) -> tuple[Memory, dict[str, Any]]:
    dst = Memory(path, embedder="hash", clock=clock, seed=2, detect_conflicts=False)
    report, first = _timed(lambda: dst.import_slice(sl, scope=TARGET))
    return dst, {"import_s": first, "created": len(report.created), "entries": len(report.entries)}


def run(n: int) -> dict[str, Any]:
    clock = ManualClock(START)
    with tempfile.TemporaryDirectory() as tmp:
        src = Memory(Path(tmp) / "src.db", embedder="hash", clock=clock, seed=1, detect_conflicts=False)
        _, setup = _timed(lambda: _populate(src, clock, n, random.Random(7)))
        v1, export_v1 = _timed(lambda: src.export_slice(scope=SCOPE))
        v2, export_v2 = _timed(lambda: src.export_slice(scope=SCOPE, include_conversations=True))
        text1, text2 = v1.to_json(), v2.to_json()
        p1, parse_v1 = _timed(lambda: Slice.from_json(text1))
        p2, parse_v2 = _timed(lambda: Slice.from_json(text2))
        plain, plain_out = _import(Path(tmp) / "v1.db", clock, p1)
        plain.close()
        copy, whole = _import(Path(tmp) / "v2.db", clock, p2)
        again, reimport = _timed(lambda: copy.import_slice(p2, scope=TARGET))
        back = copy.export_slice(scope=TARGET, include_conversations=True)
        copy.close()
        home, home_s = _timed(lambda: src.import_slice(back, scope=SCOPE))
        assert not again.created and not home.created and not home.conflicts
        src.close()
    entries = sum(len(c.entries) for c in v2.conversations or ())
    return {
        "messages": n,
        "entries": entries,
        "setup_s": round(setup, 2),
        "v1": {"export_s": export_v1, "parse_s": parse_v1, "json_mb": round(len(text1) / 1e6, 2), **plain_out},
        "v2": {
            "export_s": export_v2,
            "parse_s": parse_v2,
            "json_mb": round(len(text2) / 1e6, 2),
            **whole,
            "reimport_s": reimport,
            "home_s": home_s,
        },
        "ratio_v2_over_v1": {
            "export": round(export_v2 / max(export_v1, 1e-9), 2),
            "import": round(whole["import_s"] / max(plain_out["import_s"], 1e-9), 2),
            "json": round(len(text2) / max(1, len(text1)), 2),
        },
        "machine": machine(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--json", type=Path, help="Also write the results here.")
    args = ap.parse_args()
    result = run(args.messages)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
