"""Vault costs on a generated vault: full index, incremental re-index, relevant_notes, maintenance_report.

    .venv/bin/python bench/vault.py [--notes 5000] [--embedder hash|minilm] [--json] [--png FILE]

The vault is generated with a seeded generator: ``--notes`` notes in 25 folders, each with front
matter (a date, tags), 3-6 paragraphs drawn from a fixed vocabulary, 0-6 wikilinks (about 3 % of
them dead, some via aliases), a few exact near-copies. It is indexed into a SQLite file
(``durability="fast"``, write-time conflict detection on, as a user would run it). Timed:

- **full index**: the first ``Vault.index()`` (read, parse, render, ``remember_many`` by 500).
- **re-index after 10 edits**: 10 notes rewritten, then ``index()`` (reads every file, writes 10).
- **relevant_notes p50 / p95**: 50 three-word queries (hybrid recall restricted to notes).
- **maintenance_report**: dead links, orphans, stale, near-duplicates, health, suggestions.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, pct
from reverie import ManualClock, Memory
from reverie.vault import Vault

NOW = datetime(2026, 1, 15, tzinfo=UTC)
VOCAB = [
    "garden",
    "tomato",
    "budget",
    "lisbon",
    "harbour",
    "engine",
    "river",
    "orchard",
    "ledger",
    "signal",
    "lantern",
    "quarry",
    "meadow",
    "pulley",
    "compass",
    "furnace",
    "glacier",
    "timber",
    "saddle",
    "violin",
    "beacon",
    "canyon",
    "pepper",
    "anchor",
    "barley",
    "cobalt",
    "dynamo",
    "falcon",
    "granite",
    "hazel",
    "indigo",
    "juniper",
    "kettle",
    "lagoon",
    "marble",
    "nectar",
    "oyster",
    "pigeon",
    "quartz",
    "raven",
    "spindle",
    "thistle",
    "umber",
    "velvet",
    "walnut",
    "yarrow",
    "zephyr",
    "almond",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "heron",
    "island",
    "jasper",
]
GLUE = ["is", "the", "of", "and", "a", "to", "in", "has", "with", "for", "on", "was", "runs", "keeps", "needs", "uses"]


def sentence(rng: random.Random) -> str:
    n = rng.randint(6, 14)
    ws = [rng.choice(VOCAB) if rng.random() < 0.55 else rng.choice(GLUE) for _ in range(n)]
    return " ".join(ws).capitalize() + "."


def generate(root: Path, n: int, seed: int = 7) -> list[str]:
    """Write ``n`` notes under ``root``; returns their paths (relative, sorted)."""
    rng = random.Random(seed)
    folders = [f"area-{i:02d}" for i in range(25)]
    paths = [f"{folders[i % 25]}/note-{i:05d}.md" for i in range(n)]
    for i, rel in enumerate(paths):
        links = []
        for _ in range(rng.randint(0, 6)):
            if rng.random() < 0.03:
                links.append(f"[[missing-{rng.randint(0, 99999)}]]")
            else:
                j = rng.randrange(n)
                links.append(f"[[note-{j:05d}|see {j}]]" if rng.random() < 0.5 else f"[[alias-{j}]]")
        date = (NOW - timedelta(days=rng.randint(0, 900))).date().isoformat()
        paras = ["\n".join(sentence(rng) for _ in range(rng.randint(2, 4))) for _ in range(rng.randint(3, 6))]
        if i % 97 == 0 and i > 0:  # a near-copy of an earlier note
            paras = (root / paths[i - 1]).read_text().split("---\n", 2)[2].split("\n\n")[1:]
        tags = ", ".join(rng.sample(VOCAB, 2))
        body = "\n\n".join(paras)
        front = f"---\nupdated: {date}\ntags: [{tags}]\naliases: [alias-{i}]\n---\n"
        text = f"{front}# Note {i}\n\n{body}\n\n{' '.join(links)}\n"
        full = root / rel
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text)
    return paths


def timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run(n: int, embedder: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        gen_s, paths = timed(lambda: generate(root, n))
        with Memory(Path(tmp) / "m.db", embedder=embedder, clock=ManualClock(NOW), durability="fast", seed=0) as mem:
            v = Vault(root, memory=mem, scope="bench:vault")
            full_s, rep = timed(v.index)
            assert len(rep.added) == n, rep.skipped[:3]
            noop_s, _ = timed(v.index)
            rng = random.Random(3)
            for rel in rng.sample(paths, 10):
                (root / rel).write_text((root / rel).read_text() + "\nEdited: " + sentence(rng) + "\n")
            inc_s, inc = timed(v.index)
            assert len(inc.updated) == 10 and inc.touched == 10
            qs = [" ".join(rng.sample(VOCAB, 3)) for _ in range(50)]
            lat = []
            for q in qs:
                s, _ = timed(lambda q=q: v.relevant_notes(q, k=5))
                lat.append(s * 1000)
            rep_s, mr = timed(v.maintenance_report)
    return {
        "notes": n,
        "embedder": embedder,
        "generate_s": round(gen_s, 2),
        "full_index_s": round(full_s, 2),
        "notes_per_s": round(n / full_s, 1),
        "reindex_unchanged_s": round(noop_s, 2),
        "reindex_10_edits_s": round(inc_s, 2),
        "relevant_notes_p50_ms": round(pct(lat, 50), 1),
        "relevant_notes_p95_ms": round(pct(lat, 95), 1),
        "maintenance_report_s": round(rep_s, 2),
        "report": {
            "dead_links": len(mr.dead_links),
            "orphans": len(mr.orphans),
            "near_duplicate_clusters": len(mr.near_duplicates),
            "health": mr.health,
        },
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| notes | embedder | full index | re-index, no change | re-index after 10 edits "
        "| relevant_notes p50 / p95 | maintenance_report |"
    )
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['notes']:,} | {r['embedder']} | {r['full_index_s']} s ({r['notes_per_s']} notes/s) | "
            f"{r['reindex_unchanged_s']} s | {r['reindex_10_edits_s']} s | "
            f"{r['relevant_notes_p50_ms']} / {r['relevant_notes_p95_ms']} ms | {r['maintenance_report_s']} s |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, nargs="+", default=[5000])
    ap.add_argument("--embedder", default="hash", choices=["hash", "minilm"])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--png", type=Path, default=None, help="Also draw the timings (needs matplotlib).")
    args = ap.parse_args()
    with threadpool_limits(1):
        rows = [run(n, args.embedder) for n in args.notes]
    if args.json:
        print(json.dumps({"machine": machine(), "rows": rows}, indent=2))
    else:
        print(table(rows))
        for r in rows:
            print(f"  {r['notes']:,} notes: report found {r['report']}")
    if args.png is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 3.5))
        keys = ["full_index_s", "reindex_10_edits_s", "maintenance_report_s"]
        for k in keys:
            ax.plot([r["notes"] for r in rows], [r[k] for r in rows], marker="o", label=k.replace("_", " "))
        ax.set_xscale("log")
        ax.set_xlabel("notes")
        ax.set_ylabel("seconds")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
