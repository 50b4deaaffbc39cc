"""Recall latency and index throughput at 10k / 100k (/ 1M) items in one scope.

    .venv/bin/python bench/scale.py [--sizes 10000,100000] [--max 1000000] [--queries 300]
        [--png out.png] [--json out.json] [--keep DIR] [--old REV [--rounds 3]]

For each size N: a fresh ``Memory`` on a real SQLite file (``durability="fast"``,
``embedder="hash"``, conflict detection off — it is measured in ``throughput.py``) is filled
with N items through ``remember_many`` in batches of 5,000; then ``--queries`` recalls
(``mode="hybrid"``, ``k=10``, ``record_use=False``) are timed. The query-embedding time is
measured inside each call (``TimedEmbedder``) and reported separately; the latency columns
exclude it. BLAS is pinned to one thread (DESIGN.md: OpenBLAS's default two threads made the
same query swing between 0.4 and 8 ms).

Scopes of ``AnnConfig.threshold`` (50k) items or more search a faiss IVF index (built on the
first recall after the fill: ``first_recall_s``; see ``store/sqlite/ann.py``); for them the run
also reports the dense leg's agreement with exact search (``ann_recall_at_10``: the share of the
exact top 10 that the ANN top 10 holds, over ``AGREEMENT_QUERIES`` queries).

Data, deterministic (seeded): item texts come from an order-1 word Markov chain trained on the
LoCoMo turns (English-like text with a realistic share of common words; falls back to a
synthetic Zipf vocabulary if the file is missing); queries are LoCoMo questions (or 5-word
samples of the chain). Sizes grow by adding to the same store (10k, then 100k, ...), so each
size's index time is for the items added since the previous size.

``--old REV`` measures the package as it was at git revision ``REV`` beside this tree's, in one
run: ``REV``'s ``src`` is archived to a temp dir and this script runs on each tree in turn
(``--src``), ``--rounds`` times, alternating which goes first, so both see the same machine
load; the table shows each side's median and the ratio. Index throughput is reported as wall
clock and per CPU-second of the process (``index_items_per_cpu_s``), which moves less with load.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
# ``--src DIR`` (used by ``--old``) measures another tree's package; by default this one's.
sys.path.insert(
    0,
    next(
        (sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--src"),
        str(Path(__file__).resolve().parents[1] / "src"),
    ),
)
import locomo_data
from benchutil import TimedEmbedder, machine, pct
from reverie import ManualClock, Memory
from reverie.embed import HashEmbedder
from reverie.recall.engine import _top_dense
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.ann import AnnConfig

SCOPE = "scale"
BATCH = 5_000
SEED = 20250101
TARGETS_MS = {100_000: 10.0, 1_000_000: 50.0}
AGREEMENT_QUERIES = 50


def corpus(seed: int) -> tuple[Callable[[random.Random], str], list[str]]:
    """(a sentence generator, the query list)."""
    path = locomo_data.DEFAULT_DATA
    if path.exists():
        convs = locomo_data.load(path)
        texts = [t.text for c in convs for t in c.turns]
        questions = [q.question for c in convs for q in c.questions]
    else:  # pragma: no cover - only without the shared data
        rng = random.Random(seed)
        vocab = [f"w{i}" for i in range(30_000)]
        texts = [" ".join(rng.choices(vocab, k=rng.randint(8, 25))) for _ in range(5_000)]
        questions = [" ".join(t.split()[:5]) for t in texts[:1_000]]
    chain: dict[str, list[str]] = {}
    starts: list[str] = []
    for text in texts:
        words = text.split()
        if not words:
            continue
        starts.append(words[0])
        for a, b in itertools.pairwise(words):
            chain.setdefault(a, []).append(b)

    def sentence(rng: random.Random) -> str:
        word = rng.choice(starts)
        out = [word]
        for _ in range(rng.randint(8, 30) - 1):
            nxt = chain.get(word)
            word = rng.choice(nxt) if nxt else rng.choice(starts)
            out.append(word)
        return " ".join(out)

    qrng = random.Random(seed + 1)
    qrng.shuffle(questions)
    return sentence, questions


def fill(mem: Memory, sentence: Callable[[random.Random], str], rng: random.Random, count: int) -> float:
    """Add ``count`` items in batches of ``BATCH``; returns seconds spent in ``remember_many``."""
    return fill_timed(mem, sentence, rng, count)[0]


def fill_timed(
    mem: Memory, sentence: Callable[[random.Random], str], rng: random.Random, count: int
) -> tuple[float, float]:
    """``fill``, returning (wall seconds, CPU seconds of this process) spent in ``remember_many``."""
    spent = cpu = 0.0
    done = 0
    while done < count:
        n = min(BATCH, count - done)
        batch = [{"text": sentence(rng), "kind": "observation"} for _ in range(n)]
        start, start_cpu = time.perf_counter(), time.process_time()
        mem.remember_many(batch, scope=SCOPE)
        spent += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        done += n
        print(f"    {done:,}/{count:,} added", file=sys.stderr, end="\r", flush=True)
    print(file=sys.stderr)
    return spent, cpu


def measure(mem: Memory, emb: TimedEmbedder, queries: Sequence[str]) -> dict[str, float]:
    start = time.perf_counter()  # the first recall loads the vector cache or builds the ANN index
    mem.recall(queries[0], scope=SCOPE, k=10, record_use=False)
    first = time.perf_counter() - start
    for q in queries[1:5]:  # warm-up: fills SQLite's page cache
        mem.recall(q, scope=SCOPE, k=10, record_use=False)
    total, embed = [], []
    for q in queries:
        before = emb.seconds
        start = time.perf_counter()
        mem.recall(q, scope=SCOPE, k=10, record_use=False)
        total.append((time.perf_counter() - start) * 1000)
        embed.append((emb.seconds - before) * 1000)
    excl = [t - e for t, e in zip(total, embed, strict=True)]
    return {
        "first_recall_s": first,
        "recall_ms_p50": pct(excl, 50),
        "recall_ms_p95": pct(excl, 95),
        "with_embed_ms_p50": pct(total, 50),
        "embed_ms_p50": pct(embed, 50),
        "embed_ms_p95": pct(embed, 95),
    }


def agreement(mem: Memory, emb: TimedEmbedder, queries: Sequence[str]) -> dict[str, float]:
    """The ANN dense leg's recall@10 against exact search (empty below the ANN threshold)."""
    store = mem.store
    assert isinstance(store, SQLiteStore)
    vecs = emb.embed(list(queries))
    approx = [store.nearest(SCOPE, v, limit=10) for v in vecs]
    if any(a is None for a in approx):
        return {}
    ids, mat = store.vectors(SCOPE)  # the exact scan's matrix (1.5 GB at 1M): loaded only here
    shares = [len(set(a or []) & set(_top_dense(ids, mat, v, 10))) / 10 for a, v in zip(approx, vecs, strict=True)]
    store._vectors.clear()  # give the memory back before the next size
    return {"ann_recall_at_10": float(np.mean(shares))}


def lexical_check(mem: Memory) -> dict[str, float]:
    """Does the full-text budget cost quality? LoCoMo dev turns among the scale items, lexical leg only.

    Adds the dev conversations' turns (``speaker: text``) to the scope (run it last: the store
    changes), then asks every dev question (categories 1–4) through the split query
    (``SQLiteStore.lexical``) and the unsplit one, and reports recall@10 of the evidence turns
    and the latency of both. Held-out conversations are never touched.
    """
    from reverie.recall.normalize import fts_query
    from reverie.store.sqlite.store import _lexical_in

    store = mem.store
    assert isinstance(store, SQLiteStore)
    convs = [c for c in locomo_data.load(locomo_data.DEFAULT_DATA) if c.split == "dev"]
    where: dict[str, tuple[int, str]] = {}
    for conv in convs:
        for lo in range(0, len(conv.turns), 1_000):
            turns = conv.turns[lo : lo + 1_000]
            batch = [{"text": f"{t.speaker}: {t.text}", "kind": "observation"} for t in turns]
            for turn, item in zip(turns, mem.remember_many(batch, scope=SCOPE), strict=True):
                where[item.id] = (conv.index, turn.dia_id)
    out: dict[str, float] = {}
    for name in ("split", "unsplit"):
        recall, times = [], []
        for conv in convs:
            for q in conv.questions:
                match = fts_query(q.question)
                if match is None:
                    continue
                start = time.perf_counter()
                if name == "split":
                    hits = store.lexical(SCOPE, match, limit=100)
                else:
                    with store._read() as c:
                        hits = _lexical_in(c, "fts", match, SCOPE, 100)
                times.append((time.perf_counter() - start) * 1000)
                found = {where.get(i) for i, _ in hits[:10]}
                recall.append(len({(conv.index, e) for e in q.evidence} & found) / len(q.evidence))
        out[f"lexical_{name}_r10"] = float(np.mean(recall))
        out[f"lexical_{name}_ms_p50"] = pct(times, 50)
        out[f"lexical_{name}_ms_p95"] = pct(times, 95)
    return out


def run(sizes: Sequence[int], n_queries: int, workdir: Path, check_lexical: bool = False) -> list[dict[str, Any]]:
    sentence, questions = corpus(SEED)
    queries = questions[:n_queries]
    rng = random.Random(SEED)
    emb = TimedEmbedder(HashEmbedder())
    rows: list[dict[str, Any]] = []
    path = workdir / "scale.db"
    with Memory(
        path,
        embedder=emb,
        clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)),
        durability="fast",
        seed=0,
        detect_conflicts=False,
    ) as mem:
        have = 0
        for size in sorted(sizes):
            added = size - have
            print(f"  size {size:,}: adding {added:,} items", file=sys.stderr)
            spent, cpu = fill_timed(mem, sentence, rng, added)
            have = size
            result = {"items": size, "added": added, "index_s": spent, "index_items_per_s": added / spent}
            result |= {"index_cpu_s": cpu, "index_items_per_cpu_s": added / cpu}
            result |= measure(mem, emb, queries)
            result |= agreement(mem, emb, queries[:AGREEMENT_QUERIES])
            result["target_p50_ms"] = TARGETS_MS.get(size)
            result["db_mb"] = path.stat().st_size / 1e6
            result["ann_threshold"] = AnnConfig().threshold
            rows.append(result)
            print(f"  size {size:,}: {json.dumps({k: round(v, 2) for k, v in result.items() if v})}", file=sys.stderr)
        if check_lexical and rows:
            rows[-1] |= lexical_check(mem)
            print(f"  lexical check: {json.dumps({k: round(v, 4) for k, v in rows[-1].items() if 'lexical_' in k})}")
    return rows


def print_table(rows: Sequence[dict[str, Any]]) -> None:
    print("\nrecall latency (hybrid, k=10, hash embedder, BLAS 1 thread; query embedding excluded and shown apart)")
    head = ["items", "index items/s", "recall p50 ms", "recall p95 ms", "target p50", "first recall s", "ANN R@10"]
    print(" ".join(f"{h:>14s}" for h in head))
    for r in rows:
        target = f"≤ {r['target_p50_ms']:.0f}" if r["target_p50_ms"] else "-"
        cells = [
            f"{r['items']:,}",
            f"{r['index_items_per_s']:,.0f}",
            f"{r['recall_ms_p50']:.2f}",
            f"{r['recall_ms_p95']:.2f}",
            target,
            f"{r['first_recall_s']:.2f}",
            f"{r['ann_recall_at_10']:.3f}" if "ann_recall_at_10" in r else "exact",
        ]
        print(" ".join(f"{c:>14s}" for c in cells))


def plot(rows: Sequence[dict[str, Any]], out: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: `.venv/bin/pip install matplotlib`", file=sys.stderr)
        return
    xs = [r["items"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    a.plot(xs, [r["recall_ms_p50"] for r in rows], marker="o", label="p50")
    a.plot(xs, [r["recall_ms_p95"] for r in rows], marker="o", label="p95")
    for n, t in TARGETS_MS.items():
        if n <= max(xs):
            a.scatter([n], [t], marker="x", color="red", zorder=3, label=f"target p50 at {n:,}")
    a.set(xscale="log", yscale="log", xlabel="items in scope", ylabel="ms", title="recall latency (excl. embedding)")
    a.legend(fontsize=8)
    b.plot(xs, [r["index_items_per_s"] for r in rows], marker="o")
    b.set(xscale="log", xlabel="items in scope", ylabel="items/s", title="remember_many throughput (batches of 5k)")
    for ax in (a, b):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def shared_scope_lexical(size: int, n_queries: int, workdir: Path) -> dict[str, Any]:
    """The scope-only bm25 path (``fts_scope``): a ``size``-item scope sharing its file with a
    100-item one, so FTS5's table statistics are not the scope's. Times the store's lexical leg
    (``pool`` = 50, current rows) for LoCoMo questions, computing each term's document frequency
    from ``fts_terms`` (``by_terms``, the default) and by counting the matching rows (``by_rows``,
    the path before the table), on the same file; and checks that both rank identically.
    """
    import sqlite3

    from reverie.recall.normalize import fts_query
    from reverie.store.sqlite import fts_budget, fts_scope

    sentence, questions = corpus(SEED)
    rng = random.Random(SEED + 7)
    db = workdir / f"shared-{size}.db"
    store = SQLiteStore(db, durability="fast")
    with Memory(store=store, embedder="hash", clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)), seed=SEED) as mem:
        mem._core.detect_conflicts = False
        fill(mem, sentence, rng, size)
        mem.remember_many([{"text": sentence(rng)} for _ in range(100)], scope="other")
    c = sqlite3.connect(db)
    matches = [m for q in questions[:n_queries] if (m := fts_query(q)) is not None]
    stats = fts_scope.stats(c, "fts", SCOPE)
    out: dict[str, Any] = {"size": size, "queries": len(matches)}
    paths = {"by_terms": fts_scope.by_terms, "by_rows": fts_scope.by_rows}
    times: dict[str, list[float]] = {name: [] for name in paths}
    same = single = 0
    for k, m in enumerate(matches):
        parsed = fts_scope._parse(m)
        assert parsed is not None
        single += all(fts_budget.tokens(t) == [t] for t in parsed[0])
        got = {}
        # Alternate which path runs first, so neither always finds the pages the other warmed.
        for name in sorted(paths, reverse=bool(k % 2)):
            start = time.perf_counter()
            got[name] = paths[name](c, "fts", parsed[0], parsed[1], SCOPE, 50, stats)
            times[name].append((time.perf_counter() - start) * 1000)
        same += got["by_terms"] == got["by_rows"]
    for name, ms in times.items():
        out[f"{name}_p50_ms"], out[f"{name}_p95_ms"] = round(pct(ms, 50), 2), round(pct(ms, 95), 2)
    out["single_token_queries"] = single
    out["identical_results"] = same
    c.close()
    return out


#: What ``--old`` compares (median over the rounds of each side).
COMPARED = ("index_items_per_s", "index_items_per_cpu_s", "recall_ms_p50", "recall_ms_p95")


def side_by_side(rev: str, sizes: Sequence[int], n_queries: int, rounds: int) -> dict[str, Any]:
    """This tree and ``rev``'s, each ``rounds`` times, alternating which runs first (module docstring)."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", rev], check=True, capture_output=True, text=True)
    runs: dict[str, list[list[dict[str, Any]]]] = {"today": [], "old": []}
    with tempfile.TemporaryDirectory(prefix="reverie-scale-old-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev, "src"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        srcs = {"today": root / "src", "old": Path(tmp) / "src"}
        for r in range(rounds):
            for side in ("today", "old") if r % 2 == 0 else ("old", "today"):
                out = Path(tmp) / f"{side}-{r}.json"
                print(f"  round {r + 1}/{rounds}: {side}", file=sys.stderr)
                cmd = [sys.executable, __file__, "--src", str(srcs[side]), "--queries", str(n_queries)]
                cmd += ["--sizes", ",".join(str(n) for n in sizes), "--json", str(out)]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                runs[side].append(json.loads(out.read_text())["rows"])
    medians = {
        side: [
            {"items": size} | {k: float(np.median([rows[i][k] for rows in found])) for k in COMPARED}
            for i, size in enumerate(sorted(sizes))
        ]
        for side, found in runs.items()
    }
    return {"rev": rev, "commit": commit.stdout.strip(), "rounds": rounds, **medians, "runs": runs}


def print_side_by_side(found: dict[str, Any]) -> None:
    print(f"\ntoday vs {found['rev']} ({found['commit'][:10]}), median of {found['rounds']} alternating runs each")
    head = ["items", "items/s today", "old", "ratio", "per CPU-s today", "old", "ratio", "p50 ms today", "old"]
    print(" ".join(f"{h:>15s}" for h in head))
    for now, old in zip(found["today"], found["old"], strict=True):
        cells = [f"{now['items']:,}"]
        for key in ("index_items_per_s", "index_items_per_cpu_s"):
            cells += [f"{now[key]:,.0f}", f"{old[key]:,.0f}", f"{now[key] / old[key]:.2f}"]
        cells += [f"{now['recall_ms_p50']:.2f}", f"{old['recall_ms_p50']:.2f}"]
        print(" ".join(f"{c:>15s}" for c in cells))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="reverie recall latency and index throughput by store size")
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated item counts")
    ap.add_argument("--max", type=int, default=0, help="also run this size (e.g. 1000000)")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--keep", type=Path, help="build the store in this directory and keep it")
    ap.add_argument("--lexical-check", action="store_true", help="after the last size: lexical_check()")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--png", type=Path)
    ap.add_argument(
        "--shared-scope",
        type=int,
        default=0,
        metavar="N",
        help="only: scope-only bm25 of an N-item scope beside another",
    )
    ap.add_argument("--old", metavar="REV", help="also measure the package at this git revision, side by side")
    ap.add_argument("--rounds", type=int, default=3, help="with --old: runs of each side")
    ap.add_argument("--src", type=Path, help=argparse.SUPPRESS)  # used by --old: measure another tree
    args = ap.parse_args(argv)
    if args.old:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s})
        found = side_by_side(args.old, sizes, args.queries, args.rounds)
        print_side_by_side(found)
        info = machine()
        print(f"machine: {info}")
        if args.json:
            args.json.write_text(json.dumps(found | {"machine": info, "seed": SEED, "batch": BATCH}, indent=2))
            print(f"wrote {args.json}")
        return 0
    if args.shared_scope:
        with threadpool_limits(limits=1), tempfile.TemporaryDirectory(prefix="reverie-scale-") as tmp:
            found = shared_scope_lexical(args.shared_scope, args.queries, Path(tmp))
        print(json.dumps(found | {"machine": machine()}, indent=2))
        return 0
    sizes = sorted({int(s) for s in args.sizes.split(",") if s} | ({args.max} if args.max else set()))
    with threadpool_limits(limits=1):
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            rows = run(sizes, args.queries, args.keep, args.lexical_check)
        else:
            with tempfile.TemporaryDirectory(prefix="reverie-scale-") as tmp:
                rows = run(sizes, args.queries, Path(tmp), args.lexical_check)
    print_table(rows)
    info = machine()
    print(f"machine: {info}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "machine": info, "seed": SEED, "batch": BATCH}, indent=2))
        print(f"wrote {args.json}")
    if args.png:
        plot(rows, args.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
