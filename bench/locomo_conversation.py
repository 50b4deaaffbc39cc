"""LoCoMo through the conversation path: exactly what a user does, no options, against BM25 and the old default.

    .venv/bin/python bench/locomo_conversation.py [--split dev|heldout|all] [--embedder minilm|hash]
        [--json out.json] [--limit-convs N] [--data PATH] [--no-default]

Task, metrics, evidence clean-up and splits follow ``shared/bench/README.md`` (``locomo_data.py``).
Systems:

- ``conversation`` — one ``Memory`` per LoCoMo conversation (a SQLite file, ``durability="fast"``),
  ``conv = mem.conversation(sample_id, scope=...)``, then one ``conv.add(text, speaker=..., at=
  session datetime, meta={"dia_id": ...})`` per turn in order (``text`` = the turn, plus
  ``" [shares an image: <caption>]"`` when it shares one), then ``mem.recall(question, scope=...,
  k=...)`` with nothing else. The sessions of a conversation are days apart, so the idle timeout
  (30 min of conversation time) releases each session and recaps it; the next ``add`` opens the
  next session. Metrics are computed from a ``k=20`` call; ``recall@10 (k=10 call)`` is a second,
  separate ``k=10`` call.
- ``old-default`` — the same turns through ``remember_many`` (caption text, author = speaker) and
  ``recall`` with no options: what plain ``remember`` / ``recall`` gave before this path existed.
- ``bm25[caption]`` / ``bm25[date]`` — plain BM25 (``baselines.py``) in the same run.

Every recall uses ``record_use=False`` (questions independent); the clock is a fixed
``ManualClock`` (2025-01-01), after every session date.
"""

from __future__ import annotations

import argparse
import json
import statistics
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
from baselines import PlainBM25
from benchutil import TimedEmbedder, machine, pct
from reverie import ManualClock, Memory
from reverie.embed import Embedder, HashEmbedder, default_embedder

SCOPE = "locomo"
CLOCK_AT = datetime(2025, 1, 1, tzinfo=UTC)


def message_text(turn: data.Turn) -> str:
    """What a user would pass to ``conv.add``: the words, and the shared image's caption if any."""
    return turn.text + (f" [shares an image: {turn.caption}]" if turn.caption else "")


class Result:
    def __init__(self, name: str) -> None:
        self.name = name
        self.rows: list[tuple[str, int, dict[str, float]]] = []
        self.r10_k10: list[tuple[str, float]] = []
        self.index_s = 0.0
        self.turns = 0
        self.query_ms: list[float] = []
        self.extra: dict[str, Any] = {}


def run_conversation(convs: Sequence[data.Conversation], emb: Embedder, tmp: Path) -> Result:
    res = Result("conversation")
    recaps = 0
    for c in convs:
        with Memory(
            tmp / f"conv-{c.sample_id}.db", embedder=emb, clock=ManualClock(CLOCK_AT), durability="fast"
        ) as mem:
            start = time.perf_counter()
            conv = mem.conversation(c.sample_id, scope=SCOPE)
            for t in c.turns:
                conv.add(message_text(t), speaker=t.speaker, at=t.date, meta={"dia_id": t.dia_id})
            res.index_s += time.perf_counter() - start
            res.turns += len(c.turns)
            recaps += sum(1 for e in conv.entries() if e.kind == "recap")
            for q in c.questions:
                start = time.perf_counter()
                hits = mem.recall(q.question, scope=SCOPE, k=data.MAX_K, record_use=False)
                res.query_ms.append((time.perf_counter() - start) * 1000)
                res.rows.append((c.split, q.category, data.question_metrics(q.evidence, _turns(hits))))
                top10 = mem.recall(q.question, scope=SCOPE, k=10, record_use=False)
                res.r10_k10.append((c.split, data.question_metrics(q.evidence, _turns(top10))["recall@10"]))
    res.extra["recaps_written"] = recaps
    return res


def run_old_default(convs: Sequence[data.Conversation], emb: Embedder, tmp: Path) -> Result:
    res = Result("old-default[caption]")
    for c in convs:
        with Memory(tmp / f"old-{c.sample_id}.db", embedder=emb, clock=ManualClock(CLOCK_AT), durability="fast") as mem:
            start = time.perf_counter()
            items = mem.remember_many(
                [{"text": data.turn_text(t, "caption"), "author": t.speaker, "valid_from": t.date} for t in c.turns],
                scope=SCOPE,
            )
            res.index_s += time.perf_counter() - start
            res.turns += len(c.turns)
            turns_of: dict[str, list[str]] = {}
            for t, item in zip(c.turns, items, strict=True):
                turns_of.setdefault(item.id, []).append(t.dia_id)
            for q in c.questions:
                start = time.perf_counter()
                hits = mem.recall(q.question, scope=SCOPE, k=data.MAX_K, record_use=False)
                res.query_ms.append((time.perf_counter() - start) * 1000)
                ranked = [d for h in hits for d in turns_of[h.item.id]]
                res.rows.append((c.split, q.category, data.question_metrics(q.evidence, ranked)))
                ranked10 = [d for h in hits[:10] for d in turns_of[h.item.id]]
                res.r10_k10.append((c.split, data.question_metrics(q.evidence, ranked10)["recall@10"]))
    return res


def run_bm25(convs: Sequence[data.Conversation], fmt: str) -> Result:
    res = Result(f"bm25[{fmt}]")
    for c in convs:
        retriever = PlainBM25()
        start = time.perf_counter()
        retriever.index([t.dia_id for t in c.turns], [data.turn_text(t, fmt) for t in c.turns])
        res.index_s += time.perf_counter() - start
        res.turns += len(c.turns)
        for q in c.questions:
            start = time.perf_counter()
            ranked = retriever.search(q.question, data.MAX_K)
            res.query_ms.append((time.perf_counter() - start) * 1000)
            res.rows.append((c.split, q.category, data.question_metrics(q.evidence, ranked)))
            res.r10_k10.append((c.split, data.question_metrics(q.evidence, ranked[:10])["recall@10"]))
        retriever.close()
    return res


def _turns(hits: Sequence[Any]) -> list[str]:
    return [str(h.item.meta["dia_id"]) for h in hits if "dia_id" in h.item.meta]


def summary(res: Result, splits: Sequence[str]) -> dict[str, Any]:
    metrics = data.summarise(res.rows)
    for split in splits:
        vals = [v for s, v in res.r10_k10 if split in ("all", s)]
        if split in metrics and vals:
            metrics[split]["all"]["recall@10_k10_call"] = statistics.fmean(vals)
    return {
        "metrics": metrics,
        "index_s": res.index_s,
        "turns": res.turns,
        "messages_per_s": res.turns / res.index_s if res.index_s else float("nan"),
        "query_ms_p50": pct(res.query_ms, 50),
        "query_ms_p95": pct(res.query_ms, 95),
        **res.extra,
    }


def print_table(results: dict[str, dict[str, Any]], splits: Sequence[str]) -> None:
    cols = ["recall@1", "recall@5", "recall@10", "recall@20", "hit@10", "mrr", "recall@10_k10_call"]
    for split in splits:
        print(f"\n== {split} (categories 1-4, micro-averaged over questions) ==")
        print(f"{'system':24s} {'n':>5s} " + " ".join(f"{c[:12]:>12s}" for c in cols) + "   R@10 by category 1/2/3/4")
        for name, res in results.items():
            block = res["metrics"].get(split)
            if not block:
                continue
            a = block["all"]
            cats = " / ".join(f"{block[f'cat{c}']['recall@10']:.3f}" for c in data.CATEGORIES if f"cat{c}" in block)
            print(
                f"{name:24s} {int(a['n']):5d} "
                + " ".join(f"{a.get(c, float('nan')):12.3f}" for c in cols)
                + f"   {cats}"
            )
    print("\n== ingest and query (wall clock, one process) ==")
    for name, res in results.items():
        print(
            f"{name:24s} {res['turns']:6d} turns  {res['messages_per_s']:9.1f} msg/s  "
            f"query p50 {res['query_ms_p50']:7.2f} ms  p95 {res['query_ms_p95']:7.2f} ms"
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    digest = data.sha256_of(args.data)
    if digest != data.SHA256:
        print(f"{args.data}: sha256 {digest} is not the README's {data.SHA256}", file=sys.stderr)
        return 2
    convs = [c for c in data.load(args.data) if args.split == "all" or c.split == args.split]
    if args.limit_convs:
        convs = convs[: args.limit_convs]
    splits = sorted({c.split for c in convs}, key=list(data.SPLITS).index)
    splits = [*splits, "all"] if len(splits) > 1 else splits
    inner: Embedder = HashEmbedder() if args.embedder == "hash" else default_embedder()
    inner.embed(["warm-up"])
    emb = TimedEmbedder(inner)
    runs: list[Result] = []
    with threadpool_limits(limits=1), tempfile.TemporaryDirectory(prefix="reverie-locomo-conv-") as tmp:
        runs.append(run_conversation(convs, emb, Path(tmp)))
        _progress(runs[-1])
        if not args.no_default:
            runs.append(run_old_default(convs, emb, Path(tmp)))
            _progress(runs[-1])
        for fmt in ("caption", "date"):
            runs.append(run_bm25(convs, fmt))
            _progress(runs[-1])
    results = {r.name: summary(r, splits) for r in runs}
    print_table(results, splits)
    print(f"\nembedder {inner.name}; dataset sha256 {digest}; machine: {machine()}")
    if args.json:
        report = {"split": args.split, "embedder": inner.name, "machine": machine(), "systems": results}
        args.json.write_text(json.dumps(report, indent=2, default=float))
        print(f"wrote {args.json}")
    return 0


def _progress(res: Result) -> None:
    r10 = statistics.fmean(m["recall@10"] for _, _, m in res.rows) if res.rows else float("nan")
    print(f"  {res.name:24s} done: {len(res.rows)} questions, recall@10 {r10:.3f}", file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default="dev")
    ap.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    ap.add_argument("--data", type=Path, default=data.DEFAULT_DATA)
    ap.add_argument("--limit-convs", type=int, default=0, help="only the first N conversations of the split")
    ap.add_argument("--no-default", action="store_true", help="skip the old default")
    ap.add_argument("--json", type=Path)
    return ap.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(main())
