"""Temporal-pattern benchmark: precision / recall of found patterns over a grid of generated streams.

    python bench/patterns.py [--seeds 20] [--json out.json] [--scale 100000]

Streams come from ``tests/metacog/pattern_streams.py`` (seeded): each plants one pattern per
chosen rule (weekday, hour of day, every N days, month end, drifting time of day) among noise
kinds whose events fall at random times over 180 days. The grid crosses every rule with 0, 12
and 30 noise kinds and with streams planting all five rules at once; a further set of streams
holds noise only (every pattern found there is false). A found pattern is right when its kind of
event (template), rule and value match a planted one (an hour or an interval within one).

Also measured: detection time over ``--scale`` templated events (one planted pattern per 1,000
events, the rest noise) — the cost the dream pass adds at that size, ahead of its writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "metacog"))

from pattern_streams import RULES, score, stream  # noqa: E402

from reverie.dream.patterns import find_patterns  # noqa: E402

NOISE = (0, 12, 30)


def grid(seeds: int) -> dict[str, Any]:
    """Precision / recall per cell of (rules planted, noise kinds), summed over ``seeds`` streams."""
    rows: list[dict[str, Any]] = []
    cells = [((rule,), noise) for rule in RULES for noise in NOISE] + [(RULES, noise) for noise in NOISE]
    total = [0, 0, 0, 0]  # tp, found, planted hit, planted
    for rules, noise in cells:
        tp = found = hit = planted_n = 0
        for seed in range(seeds):
            events, planted = stream(10_000 * len(rules) + 100 * noise + seed, rules, noise_kinds=noise)
            t, f, h = score(find_patterns(events), planted)
            tp, found, hit, planted_n = tp + t, found + f, hit + h, planted_n + len(planted)
        total = [total[0] + tp, total[1] + found, total[2] + hit, total[3] + planted_n]
        rows.append(
            {
                "rules": "all five" if len(rules) > 1 else rules[0],
                "noise_kinds": noise,
                "planted": planted_n,
                "found": found,
                "precision": round(tp / found, 4) if found else 1.0,
                "recall": round(hit / planted_n, 4),
            }
        )
    false = sum(len(find_patterns(stream(90_000 + s, (), noise_kinds=30)[0])) for s in range(seeds * 5))
    return {
        "cells": rows,
        "precision": round(total[0] / total[1], 4) if total[1] else 1.0,
        "recall": round(total[2] / total[3], 4),
        "noise_only_streams": seeds * 5,
        "patterns_found_on_noise_only": false,
    }


def scale(n: int) -> dict[str, Any]:
    """Detection time over ``n`` events: ``n / 1000`` planted weekday patterns plus noise."""
    events = []
    planted = 0
    seed = 0
    while len(events) < n:
        ev, p = stream(500_000 + seed, ("weekday",), noise_kinds=30)
        # Re-key and re-word each stream's events so streams stay distinct kinds of event.
        # Two extra words per stream: one shared extra word would still join kinds across streams (Jaccard 0.6).
        extra = {f"k{seed}", f"q{seed}"}
        events += [type(e)(f"s{seed}-{e.id}", e.at, e.kind | extra, e.text) for e in ev]
        planted += len(p)
        seed += 1
    events = events[:n]
    t0, c0 = time.perf_counter(), time.process_time()
    found = find_patterns(events)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "events": len(events),
        "streams": seed,
        "found": len(found),
        "seconds": round(took, 3),
        "cpu_seconds": round(cpu, 3),  # the steadier number on a shared machine
        "load_avg": round(os.getloadavg()[0], 2),
    }


def recall_cost(n: int, repeats: int = 20) -> dict[str, Any]:
    """What the recall hook adds on a scope of ``n`` items: median ms of ``with_patterns`` for a
    question about time (one scan of the scope's current items for pattern items) and for one
    that is not (nothing read), next to the median ms of the whole recall it follows."""
    import random
    import statistics
    import tempfile
    from dataclasses import replace as dc_replace

    from reverie import ManualClock, Memory
    from reverie.memory.pattern_recall import with_patterns
    from reverie.recall.engine import RecallOptions

    rng = random.Random(5)
    words = ["deploy", "backup", "invoice", "billing", "standup", "payroll", "crawler", "cache", "replica", "ticket"]
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(
            Path(tmp) / "r.db", embedder="hash", clock=ManualClock(), seed=0, durability="fast", detect_conflicts=False
        )
        for start in range(0, n, 500):
            batch = [
                {"text": f"The {rng.choice(words)} job {rng.choice(words)} note {i}", "kind": "episodic"}
                for i in range(start, min(n, start + 500))
            ]
            mem.remember_many(batch, scope="s")
        opts = dc_replace(RecallOptions(), k=10)
        out: dict[str, Any] = {"items": n}
        for name, query in (("when", "When does the deploy job usually fail?"), ("plain", "deploy job backup")):
            hits = mem.recall(query, scope="s", k=10, record_use=False)
            t_recall, t_hook = [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                mem.recall(query, scope="s", k=10, record_use=False)
                t1 = time.perf_counter()
                with_patterns(mem.store, "s", query, hits, opts)
                t_hook.append(time.perf_counter() - t1)
                t_recall.append(t1 - t0)
            out[name] = {
                "recall_ms": round(statistics.median(t_recall) * 1000, 2),
                "hook_ms": round(statistics.median(t_hook) * 1000, 3),
            }
        mem.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--scale", type=int, default=100_000)
    ap.add_argument("--recall-items", type=int, default=0, help="also time the recall hook on a scope this big")
    ap.add_argument("--json")
    args = ap.parse_args()
    out = grid(args.seeds)
    print("| rules planted | noise kinds | planted | found | precision | recall |")
    print("|---|---|---|---|---|---|")
    for r in out["cells"]:
        cells = (r["rules"], r["noise_kinds"], r["planted"], r["found"], f"{r['precision']:.3f}", f"{r['recall']:.3f}")
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print(f"\noverall precision {out['precision']:.3f}, recall {out['recall']:.3f}; ", end="")
    print(f"{out['patterns_found_on_noise_only']} pattern(s) found on {out['noise_only_streams']} noise-only streams")
    if args.scale:
        out["scale"] = scale(args.scale)
        s = out["scale"]
        took = f"{s['seconds']} s wall, {s['cpu_seconds']} s CPU at load {s['load_avg']}"
        print(f"detection over {s['events']:,} events ({s['streams']} streams): {took}, {s['found']} found")
    if args.recall_items:
        out["recall"] = r = recall_cost(args.recall_items)
        for name in ("when", "plain"):
            took = f"{r[name]['hook_ms']} ms (recall {r[name]['recall_ms']} ms)"
            print(f"recall hook, {name} question, {r['items']:,} items: {took}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
