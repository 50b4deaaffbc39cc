"""Ingest with extraction: one LoCoMo conversation through ``conv.add``, and how many edge rows it reads.

    .venv/bin/python bench/conversation_ingest.py [--conversation 0] [--embedder hash|minilm] [--no-detect]
        [--json out]

Path: exactly the public one (as ``locomo_conversation.py``): a SQLite file (``durability="fast"``),
``conv.add(text, speaker=..., at=session time, meta={"dia_id": ...})`` per turn; the sessions are
days apart, so the idle timeout releases each one and the rule extractor mines it (claims through
``remember``, with write-time contradiction detection, person names, ``about`` / ``derived_from``
edges); a final ``conv.close()`` mines the last session.

Why it counts rows: extraction adds edges that an alias lookup must not read. The store is the
real ``SQLiteStore`` with its edge reads counted (calls and rows returned; a scope-wide read —
``edges(scope)`` with no item — separately), reported per quarter of the conversation so growth
with the number of edges shows as rising numbers, not as a slower clock on a loaded machine.
Times: wall and process CPU (the CPU figure is steadier here: 2 cores shared by several people).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locomo_data as data
from benchutil import machine
from reverie import ManualClock, Memory
from reverie.model.item import Edge
from reverie.store.sqlite import SQLiteStore

SCOPE = "locomo"
CLOCK_AT = datetime(2025, 1, 1, tzinfo=UTC)


class CountingStore(SQLiteStore):
    """The SQLite store, counting the edge rows its edge reads return (every method that returns edges)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls = 0
        self.rows = 0
        self.scope_wide_calls = 0
        self.scope_wide_rows = 0

    def _count(self, found: list[Edge], scope_wide: bool) -> list[Edge]:
        self.calls += 1
        self.rows += len(found)
        if scope_wide:
            self.scope_wide_calls += 1
            self.scope_wide_rows += len(found)
        return found

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        return self._count(super().edges(scope, item_id, include_closed=include_closed), item_id is None)

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        found: list[Edge] = super().edges_by_type(scope, type, include_closed=include_closed)  # type: ignore[misc]
        return self._count(found, False)


def run(conv_index: int, embedder: str, tmp: Path, detect: bool = True) -> dict[str, Any]:
    c = data.load(data.DEFAULT_DATA)[conv_index]
    store = CountingStore(tmp / "ingest.db", durability="fast")
    quarters: list[dict[str, float]] = []
    with Memory(store=store, embedder=embedder, clock=ManualClock(CLOCK_AT), detect_conflicts=detect) as mem:
        mem.embedder.embed(["warm-up"])
        conv = mem.conversation(c.sample_id, scope=SCOPE)
        cut = {len(c.turns) * q // 4 for q in (1, 2, 3)}
        wall0, cpu0 = time.perf_counter(), time.process_time()
        mark = (wall0, cpu0, 0, 0)
        for n, t in enumerate(c.turns, 1):
            text = t.text + (f" [shares an image: {t.caption}]" if t.caption else "")
            conv.add(text, speaker=t.speaker, at=t.date, meta={"dia_id": t.dia_id})
            if n == len(c.turns):
                conv.close()
            if n in cut or n == len(c.turns):
                wall, cpu = time.perf_counter(), time.process_time()
                edges_now = len(SQLiteStore.edges(store, SCOPE))  # uncounted: the bench's own look
                quarters.append(
                    {
                        "turns": n,
                        "edges_in_scope": edges_now,
                        "wall_s": wall - mark[0],
                        "cpu_s": cpu - mark[1],
                        "edge_rows_read": store.rows - mark[2],
                        "scope_wide_rows_read": store.scope_wide_rows - mark[3],
                    }
                )
                mark = (wall, cpu, store.rows, store.scope_wide_rows)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        claims = sum(1 for e in SQLiteStore.edges(store, SCOPE) if e.type == "derived_from")
    return {
        "conversation": c.sample_id,
        "turns": len(c.turns),
        "embedder": embedder,
        "detect_conflicts": detect,
        "claims": claims,
        "msg_per_s_wall": len(c.turns) / wall,
        "msg_per_s_cpu": len(c.turns) / cpu,
        "edge_read_calls": store.calls,
        "edge_rows_read": store.rows,
        "scope_wide_edge_reads": store.scope_wide_calls,
        "scope_wide_edge_rows": store.scope_wide_rows,
        "quarters": quarters,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--conversation", type=int, default=0, help="LoCoMo conversation index (0-9)")
    ap.add_argument("--embedder", choices=["hash", "minilm"], default="hash")
    ap.add_argument("--no-detect", action="store_true", help="Memory(detect_conflicts=False): what detection costs")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with threadpool_limits(limits=1), tempfile.TemporaryDirectory(prefix="reverie-ingest-") as tmp:
        r = run(args.conversation, args.embedder, Path(tmp), detect=not args.no_detect)
    how = r["embedder"] + ("" if r["detect_conflicts"] else ", no detection")
    print(
        f"{r['conversation']} [{how}] {r['turns']} turns, {r['claims']} claims: "
        f"{r['msg_per_s_wall']:.1f} msg/s wall, {r['msg_per_s_cpu']:.1f} msg/s CPU; edge reads {r['edge_read_calls']} "
        f"calls / {r['edge_rows_read']} rows, of which scope-wide {r['scope_wide_edge_reads']} / "
        f"{r['scope_wide_edge_rows']}"
    )
    for q in r["quarters"]:
        print(
            f"  to turn {q['turns']:4d}: {q['edges_in_scope']:5d} edges in scope, {q['cpu_s']:6.2f} s CPU, "
            f"{q['edge_rows_read']:8d} edge rows read ({q['scope_wide_rows_read']} scope-wide)"
        )
    r["machine"] = machine()
    print(f"machine: {r['machine']}")
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
