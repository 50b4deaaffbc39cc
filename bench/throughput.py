"""``remember`` throughput on this machine, on a real SQLite file.

    .venv/bin/python bench/throughput.py [--single 200] [--batched 2000] [--batch-size 500]
        [--embedders hash,minilm] [--detect on,off] [--json out.json]

For every combination of embedder (``hash`` / ``minilm``), durability (``full``: fsync per
commit / ``fast``) and conflict detection (``Memory(detect_conflicts=...)``, on by default in
reverie), a fresh store in a temp dir receives ``--single`` items through one ``remember`` call
each, then ``--batched`` further items through ``remember_many`` in batches of
``--batch-size``. Items/s is wall clock over those calls; the share of it spent embedding is
measured inside the embedder and shown apart. Texts are LoCoMo turns (``"speaker: text"``,
realistic lengths; a seeded synthetic fallback without the file), each used once.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locomo_data
from benchutil import TimedEmbedder, machine
from reverie import ManualClock, Memory
from reverie.embed import Embedder, HashEmbedder, default_embedder

SCOPE = "throughput"


def texts() -> Iterator[str]:
    """LoCoMo turns in file order, then numbered repeats: every text is new to the store."""
    if locomo_data.DEFAULT_DATA.exists():
        base = [
            locomo_data.turn_text(t, "caption") for c in locomo_data.load(locomo_data.DEFAULT_DATA) for t in c.turns
        ]
    else:  # pragma: no cover - only without the shared data
        rng = random.Random(0)
        base = [" ".join(f"w{rng.randrange(20_000)}" for _ in range(rng.randint(8, 30))) for _ in range(6_000)]
    round_ = 0
    while True:
        for text in base:
            yield text if round_ == 0 else f"{text} (#{round_})"
        round_ += 1


def measure(inner: Embedder, durability: str, detect: bool, n_single: int, n_batched: int, size: int) -> dict[str, Any]:
    source = texts()
    emb = TimedEmbedder(inner)
    with tempfile.TemporaryDirectory(prefix="reverie-throughput-") as tmp:
        mem = Memory(
            Path(tmp) / "t.db",
            embedder=emb,
            clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)),
            durability=durability,
            seed=0,
            detect_conflicts=detect,
        )
        with mem:
            mem.remember("warm-up", scope=SCOPE)  # creates the file's first rows, loads the model
            emb.seconds = 0.0
            start = time.perf_counter()
            for _ in range(n_single):
                mem.remember(next(source), scope=SCOPE)
            single_s, single_embed = time.perf_counter() - start, emb.seconds
            emb.seconds = 0.0
            start = time.perf_counter()
            done = 0
            while done < n_batched:
                batch = [{"text": next(source)} for _ in range(min(size, n_batched - done))]
                mem.remember_many(batch, scope=SCOPE)
                done += len(batch)
            batched_s, batched_embed = time.perf_counter() - start, emb.seconds
    return {
        "embedder": inner.name,
        "durability": durability,
        "detect_conflicts": detect,
        "single_items": n_single,
        "single_items_per_s": n_single / single_s if n_single else float("nan"),
        "single_embed_share": single_embed / single_s if n_single else float("nan"),
        "batched_items": n_batched,
        "batch_size": size,
        "batched_items_per_s": n_batched / batched_s if n_batched else float("nan"),
        "batched_embed_share": batched_embed / batched_s if n_batched else float("nan"),
    }


def print_table(rows: Sequence[dict[str, Any]]) -> None:
    print("\nremember throughput (items/s, wall clock; 'embed' = share of that time spent embedding)")
    head = ["embedder", "durability", "detect", "remember/s", "embed", "remember_many/s", "embed"]
    print(f"{head[0]:>18s} {head[1]:>10s} {head[2]:>7s} {head[3]:>11s} {head[4]:>6s} {head[5]:>16s} {head[6]:>6s}")
    for r in rows:
        print(
            f"{r['embedder']:>18s} {r['durability']:>10s} {'on' if r['detect_conflicts'] else 'off':>7s} "
            f"{r['single_items_per_s']:11,.0f} {r['single_embed_share']:6.0%} "
            f"{r['batched_items_per_s']:16,.0f} {r['batched_embed_share']:6.0%}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="reverie remember / remember_many throughput")
    ap.add_argument("--single", type=int, default=200, help="items written one remember() call each")
    ap.add_argument("--batched", type=int, default=2000, help="items written through remember_many()")
    ap.add_argument("--batch-size", type=int, default=500)
    ap.add_argument("--embedders", default="hash,minilm")
    ap.add_argument("--detect", default="on,off", help="conflict detection settings to measure: on, off or both")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    embedders: list[Embedder] = []
    for name in args.embedders.split(","):
        embedders.append(HashEmbedder() if name == "hash" else default_embedder())
    detects = [d == "on" for d in args.detect.split(",")]
    rows = []
    with threadpool_limits(limits=1):
        for inner in embedders:
            for detect in detects:
                for durability in ("full", "fast"):
                    row = measure(inner, durability, detect, args.single, args.batched, args.batch_size)
                    print(
                        f"  {json.dumps({k: v for k, v in row.items() if not isinstance(v, float)})} done",
                        file=sys.stderr,
                    )
                    rows.append(row)
    print_table(rows)
    info = machine()
    print(f"machine: {info}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "machine": info}, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
