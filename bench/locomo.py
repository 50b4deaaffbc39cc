"""LoCoMo turn retrieval: reverie side by side with plain BM25, plain dense and (if installed) inspeximus.

    .venv/bin/python bench/locomo.py [--split dev|heldout|all] [--embedder minilm|hash]
        [--png out.png] [--json out.json] [--limit-convs N] [--data PATH] [--no-inspeximus]
        [--no-default] [--ablation]

Task, metrics, evidence clean-up and splits follow ``shared/bench/README.md`` exactly (see
``locomo_data.py``). One reverie ``Memory`` per conversation, on a real SQLite file in a temp
dir (``durability="fast"``), every turn remembered in one ``remember_many`` batch as an
``observation`` with ``author`` = speaker, ``valid_from`` = session date (UTC) and
``meta = {dia_id, session, turn, speaker, session_date}``. The clock is a fixed ``ManualClock``,
so decay and trust are equal for every turn. Conflict detection stays on (reverie's default;
it adds ``contradicts`` edges, which ``contradictions="surface"`` only flags) and is part of the
index time. Every question is recalled with ``record_use=False``: no recall changes the store,
so questions are independent.

Systems (each ``name[text format]``):

- ``reverie`` — the tuned configuration (``TUNED`` below; chosen on the dev split only):
  ``window`` text, the speakers' names split off the question (``split_authors``) and matched
  as authors (``author_boost=3``), RRF k=20, and neighbour spread (``Neighbours(after=0.5)``:
  a turn gains half the fused score of the turn right after it, i.e. of its reply).
- ``reverie-default`` — ``Memory.recall`` with no options on the README's ``caption`` text.
- ``bm25`` / ``dense`` — plain baselines (``baselines.py``) on each text format above.
- ``inspeximus`` — its hybrid with the same embedder, if the package imports.

``--ablation`` runs reverie alone in twelve configurations: the cumulative steps from the
defaults to ``reverie`` and ``reverie`` without each mechanism (use it on ``--split dev``).

Text formats: the README's ``plain``, ``caption`` and ``date``, plus ``window`` (ours): the
``date`` text followed by ``" || context: "`` and the two previous turns of the same session
in ``caption`` format, joined by ``" | "``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locomo_data as data
from baselines import InspeximusRetriever, PlainBM25, PlainDense, inspeximus_available
from benchutil import TimedEmbedder, machine, pct
from reverie import ManualClock, Memory
from reverie.embed import Embedder, HashEmbedder, default_embedder
from reverie.recall.engine import Neighbours, RecallOptions
from reverie.recall.expand import split_authors

SCOPE = "locomo"
CLOCK_AT = datetime(2025, 1, 1, tzinfo=UTC)  # after every session date: all turns are "past"
WINDOW_BEFORE = 2
NOTES = [
    "record_use=False on every recall: no recall writes to the store, so questions are independent",
    "clock fixed (ManualClock 2025-01-01): decay and trust are equal for every turn",
    "categories 1-4, evidence cleaned and questions without evidence skipped (shared/bench/README.md)",
    "identical turn texts are corroborated into one item; such an item stands for all its turns",
    "reverie index time includes conflict detection (on by default) and the embedding (shown apart)",
]

# Reference numbers from shared/bench/README.md (categories 1-4, recall@5 / recall@10).
REFERENCE = {
    "BM25 (bm25s) caption": {"dev": (0.445, 0.526), "heldout": (0.417, 0.480)},
    "MiniLM caption": {"dev": (0.403, 0.501), "heldout": (0.307, 0.389)},
    "BM25+MiniLM RRF caption": {"dev": (0.480, 0.574), "heldout": (0.412, 0.501)},
    "inspeximus+MiniLM caption": {"dev": (0.483, 0.571), "heldout": (0.455, 0.544)},
    "BM25 date": {"dev": (0.484, 0.549), "heldout": (0.442, 0.513)},
    "BM25+MiniLM RRF date": {"dev": (0.519, 0.610), "heldout": (0.474, 0.564)},
    "inspeximus+MiniLM date": {"dev": (0.512, 0.602), "heldout": (0.480, 0.583)},
}
PUBLISHED = "bge-m3 (568M parameters) retriever, date prefix, all 10 conversations: recall@10 0.668, hit@10 0.741"


@dataclass(frozen=True)
class Profile:
    """How reverie is used: indexed text, query handling and recall options."""

    name: str
    text_format: str
    split_speakers: bool
    options: dict[str, Any] = field(default_factory=dict)


TUNED = Profile(
    "reverie",
    "window",
    split_speakers=True,
    options={
        "rrf_k": 20,
        "author_boost": 3.0,
        "neighbours": Neighbours(group="session", position="turn", before=0.0, after=0.5),
    },
)
DEFAULT = Profile("reverie-default", "caption", split_speakers=False)


def _ablation() -> list[Profile]:
    """Cumulative steps from the defaults to ``TUNED``, then ``TUNED`` minus one mechanism at a time."""
    nb = TUNED.options["neighbours"]
    boost = {"author_boost": 3.0}
    return [
        DEFAULT,
        Profile("+date", "date", split_speakers=False),
        Profile("+window", "window", split_speakers=False),
        Profile("+rrf_k=20", "window", split_speakers=False, options={"rrf_k": 20}),
        Profile("+author_boost", "window", split_speakers=False, options={"rrf_k": 20} | boost),
        Profile("+split_authors", "window", split_speakers=True, options={"rrf_k": 20} | boost),
        Profile("+neighbours (=reverie)", "window", split_speakers=True, options=TUNED.options),
        Profile("reverie -window (date text)", "date", split_speakers=True, options=TUNED.options),
        Profile("reverie -rrf_k (60)", "window", split_speakers=True, options={"neighbours": nb} | boost),
        Profile("reverie -author_boost", "window", split_speakers=True, options={"rrf_k": 20, "neighbours": nb}),
        Profile("reverie -split_authors", "window", split_speakers=False, options=TUNED.options),
        Profile("reverie -neighbours", "window", split_speakers=True, options={"rrf_k": 20} | boost),
    ]


ABLATION = _ablation()


def turn_text(conv: data.Conversation, i: int, fmt: str) -> str:
    """The indexed text of turn ``i``; ``window`` adds the previous turns of its session."""
    turn = conv.turns[i]
    if fmt != "window":
        return data.turn_text(turn, fmt)
    before = [
        data.turn_text(conv.turns[j], "caption")
        for j in range(max(0, i - WINDOW_BEFORE), i)
        if conv.turns[j].session == turn.session
    ]
    text = data.turn_text(turn, "date")
    return text + (" || context: " + " | ".join(before) if before else "")


@dataclass
class Run:
    """Per-system results: per-question metrics and timings."""

    name: str
    text_format: str
    rows: list[tuple[str, int, dict[str, float]]] = field(default_factory=list)
    index_s: float = 0.0
    turns: int = 0
    query_ms: list[float] = field(default_factory=list)
    embed_ms: list[float] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, conv: data.Conversation, q: data.Question, ranked: Sequence[str]) -> None:
        self.rows.append((conv.split, q.category, data.question_metrics(q.evidence, ranked)))


# -- reverie ------------------------------------------------------------------------------


def run_reverie(
    profiles: Sequence[Profile], convs: Sequence[data.Conversation], inner: Embedder, tmp: Path
) -> list[Run]:
    """Index each conversation once in the profiles' (shared) text format, then run every profile's queries.

    Every profile's run reports the same index time (the one build they share)."""
    fmt = profiles[0].text_format
    assert all(p.text_format == fmt for p in profiles)
    emb = TimedEmbedder(inner)
    runs = [Run(p.name, fmt) for p in profiles]
    index_s = index_embed_s = 0.0
    merged = turns = 0
    for conv in convs:
        with Memory(
            tmp / f"{fmt}-{conv.sample_id}.db", embedder=emb, clock=ManualClock(CLOCK_AT), durability="fast", seed=0
        ) as mem:
            emb.seconds = 0.0
            start = time.perf_counter()
            items = mem.remember_many([_candidate(conv, i, fmt) for i in range(len(conv.turns))], scope=SCOPE)
            index_s += time.perf_counter() - start
            index_embed_s += emb.seconds
            turns += len(conv.turns)
            turns_of: dict[str, list[str]] = {}
            for turn, item in zip(conv.turns, items, strict=True):
                turns_of.setdefault(item.id, []).append(turn.dia_id)
            merged += len(conv.turns) - len(turns_of)
            for profile, run in zip(profiles, runs, strict=True):
                for q in conv.questions:
                    run.add(conv, q, _recall(mem, profile, conv, q, emb, run, turns_of))
    for run in runs:
        run.index_s, run.turns = index_s, turns
        run.extra |= {"turns_merged_by_corroboration": merged, "index_embed_s": index_embed_s}
    return runs


def _candidate(conv: data.Conversation, i: int, fmt: str) -> dict[str, Any]:
    t = conv.turns[i]
    return {
        "text": turn_text(conv, i, fmt),
        "kind": "observation",
        "author": t.speaker,
        "valid_from": t.date,
        "meta": {
            "dia_id": t.dia_id,
            "session": t.session,
            "turn": t.index,
            "speaker": t.speaker,
            "session_date": t.date_text,
        },
    }


def _recall(
    mem: Memory,
    profile: Profile,
    conv: data.Conversation,
    q: data.Question,
    emb: TimedEmbedder,
    run: Run,
    turns_of: dict[str, list[str]],
) -> list[str]:
    query, options = q.question, None
    if profile.split_speakers:
        split = split_authors(q.question, conv.speakers)
        query = split.query
        options = RecallOptions(k=data.MAX_K, authors=split.authors, **profile.options)
    elif profile.options:
        options = RecallOptions(k=data.MAX_K, **profile.options)
    before = emb.seconds
    start = time.perf_counter()
    hits = mem.recall(query, scope=SCOPE, k=data.MAX_K, record_use=False, options=options)
    total = time.perf_counter() - start
    spent = emb.seconds - before
    run.query_ms.append(total * 1000)
    run.embed_ms.append(spent * 1000)
    return [d for h in hits for d in turns_of[h.item.id]]


# -- baselines ----------------------------------------------------------------------------


def run_baseline(
    make: Callable[[], Any], fmt: str, convs: Sequence[data.Conversation], emb: TimedEmbedder | None, run: Run
) -> None:
    for conv in convs:
        retriever = make()
        texts = [turn_text(conv, i, fmt) for i in range(len(conv.turns))]
        before = emb.seconds if emb else 0.0
        start = time.perf_counter()
        retriever.index([t.dia_id for t in conv.turns], texts)
        run.index_s += time.perf_counter() - start
        if emb is not None:
            run.extra["index_embed_s"] = run.extra.get("index_embed_s", 0.0) + emb.seconds - before
        run.turns += len(conv.turns)
        for q in conv.questions:
            before = emb.seconds if emb else 0.0
            start = time.perf_counter()
            ranked = retriever.search(q.question, data.MAX_K)
            run.query_ms.append((time.perf_counter() - start) * 1000)
            if emb is not None:
                run.embed_ms.append((emb.seconds - before) * 1000)
            run.add(conv, q, ranked)
        retriever.close()


# -- reporting ----------------------------------------------------------------------------


def timing(run: Run) -> dict[str, float]:
    engine = [t - e for t, e in zip(run.query_ms, run.embed_ms, strict=False)] if run.embed_ms else run.query_ms
    return {
        "index_s": run.index_s,
        "index_ms_per_turn": 1000 * run.index_s / max(1, run.turns),
        "index_embed_ms_per_turn": 1000 * run.extra.get("index_embed_s", float("nan")) / max(1, run.turns),
        "query_ms_p50": pct(run.query_ms, 50),
        "query_ms_p95": pct(run.query_ms, 95),
        "query_embed_ms_p50": pct(run.embed_ms, 50),
        "query_embed_ms_p95": pct(run.embed_ms, 95),
        "query_excl_embed_ms_p50": pct(engine, 50),
        "query_excl_embed_ms_p95": pct(engine, 95),
    }


def label(run: Run) -> str:
    return f"{run.name}[{run.text_format}]"


def print_tables(results: dict[str, dict[str, Any]], splits: Sequence[str]) -> None:
    cols = ["recall@1", "recall@5", "recall@10", "recall@20", "hit@10", "all@10", "mrr"]
    for split in splits:
        print(f"\n== {split} (categories 1-4, micro-averaged over questions) ==")
        print(f"{'system':34s} {'n':>5s} " + " ".join(f"{c:>9s}" for c in cols) + "   R@10 by category 1/2/3/4")
        for name, res in results.items():
            block = res["metrics"].get(split)
            if not block:
                continue
            a = block["all"]
            cats = " / ".join(f"{block[f'cat{c}']['recall@10']:.3f}" for c in data.CATEGORIES if f"cat{c}" in block)
            print(f"{name:34s} {int(a['n']):5d} " + " ".join(f"{a[c]:9.3f}" for c in cols) + f"   {cats}")
    print("\n== reference (shared/bench/README.md): R@5 / R@10 ==")
    for name, ref in REFERENCE.items():
        print(f"{name:34s} " + "  ".join(f"{s}: {v[0]:.3f} / {v[1]:.3f}" for s, v in ref.items()))
    print(f"published, comparable: {PUBLISHED}")


def print_ratios(ratios: dict[str, dict[str, float]]) -> None:
    print("\n== reverie recall@10 ÷ baseline recall@10 (same text format) ==")
    for pair, by_split in ratios.items():
        print(f"{pair:48s} " + "  ".join(f"{s}: {v:.2f}x" for s, v in by_split.items()))


def print_timing(results: dict[str, dict[str, Any]]) -> None:
    print("\n== timing (wall clock, one process; query = one question, embedding measured inside the call) ==")
    head = ["index ms/turn", "of it embed", "query p50", "query p95", "embed p50", "embed p95"]
    head += ["excl.emb p50", "excl.emb p95"]
    keys = ["index_ms_per_turn", "index_embed_ms_per_turn", "query_ms_p50", "query_ms_p95"]
    keys += ["query_embed_ms_p50", "query_embed_ms_p95"]
    keys += ["query_excl_embed_ms_p50", "query_excl_embed_ms_p95"]
    print(f"{'system':34s} " + " ".join(f"{h:>13s}" for h in head))
    for name, res in results.items():
        print(f"{name:34s} " + " ".join(f"{res['timing'][k]:13.3f}" for k in keys))


def ratios_of(results: dict[str, dict[str, Any]], splits: Sequence[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, res in results.items():
        if not name.startswith("reverie"):
            continue
        fmt = res["text_format"]
        for base in ("bm25", "dense", "inspeximus"):
            other = results.get(f"{base}[{fmt}]")
            if other is None:
                continue
            out[f"{name} / {base}[{fmt}]"] = {
                s: res["metrics"][s]["all"]["recall@10"] / other["metrics"][s]["all"]["recall@10"]
                for s in splits
                if s in res["metrics"] and other["metrics"][s]["all"]["recall@10"] > 0
            }
    return out


def plot(results: dict[str, dict[str, Any]], splits: Sequence[str], out: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: `.venv/bin/pip install matplotlib` (or the `bench` extra)", file=sys.stderr)
        return
    shown = [s for s in splits if s != "all"] or list(splits)
    fig, axes = plt.subplots(1, len(shown), figsize=(6 * len(shown), 4.5), sharey=True, squeeze=False)
    for ax, split in zip(axes[0], shown, strict=True):
        for name, res in results.items():
            block = res["metrics"].get(split)
            if block:
                ax.plot(data.KS, [block["all"][f"recall@{k}"] for k in data.KS], marker="o", label=name)
        ax.set_title(f"LoCoMo turn retrieval, {split} (cat 1-4)")
        ax.set_xlabel("k")
        ax.set_xticks(list(data.KS))
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("recall@k")
    axes[0][-1].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


# -- main ---------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    digest = data.sha256_of(args.data)
    if digest != data.SHA256:
        print(f"{args.data}: sha256 {digest} is not the README's {data.SHA256}", file=sys.stderr)
        if not args.allow_other_data:
            return 2
    convs = [c for c in data.load(args.data) if args.split == "all" or c.split == args.split]
    if args.limit_convs:
        convs = convs[: args.limit_convs]
    splits = sorted({c.split for c in convs}, key=list(data.SPLITS).index)
    splits = [*splits, "all"] if len(splits) > 1 else splits
    start = time.perf_counter()
    inner: Embedder = HashEmbedder() if args.embedder == "hash" else default_embedder()
    inner.embed(["warm-up"])  # loads the model: counted as setup, not as index or query time
    setup_s = time.perf_counter() - start
    with threadpool_limits(limits=1):  # DESIGN.md: BLAS pinned to one thread
        runs = execute(args, convs, inner)
    results = {
        label(r): {"text_format": r.text_format, "metrics": data.summarise(r.rows), "timing": timing(r), **r.extra}
        for r in runs
    }
    ratios = ratios_of(results, splits)
    print_tables(results, splits)
    print_ratios(ratios)
    print_timing(results)
    print(f"\nsetup (model load) {setup_s:.2f} s; embedder {inner.name}; dataset sha256 {digest}")
    print(f"machine: {machine()}")
    for note in NOTES:
        print(f"note: {note}")
    report = {
        "dataset": {"path": str(args.data), "sha256": digest, "sha256_expected": data.SHA256},
        "split": args.split,
        "conversations": [c.sample_id for c in convs],
        "embedder": inner.name,
        "setup_s": setup_s,
        "machine": machine(),
        "profiles": {p.name: _profile_json(p) for p in (TUNED, DEFAULT)},
        "notes": NOTES,
        "systems": results,
        "ratios_recall@10": ratios,
        "reference": {k: {s: list(v) for s, v in ref.items()} for k, ref in REFERENCE.items()},
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=float))
        print(f"wrote {args.json}")
    if args.png:
        plot(results, splits, args.png)
    return 0


def execute(args: argparse.Namespace, convs: Sequence[data.Conversation], inner: Embedder) -> list[Run]:
    runs: list[Run] = []
    profiles = ABLATION if args.ablation else [TUNED] if args.no_default else [TUNED, DEFAULT]
    formats = list(dict.fromkeys(p.text_format for p in profiles))
    with tempfile.TemporaryDirectory(prefix="reverie-locomo-") as tmp:
        for fmt in formats:
            for run in run_reverie([p for p in profiles if p.text_format == fmt], convs, inner, Path(tmp)):
                runs.append(run)
                _progress(run)
    for fmt in formats if not args.ablation else []:
        run = Run("bm25", fmt)
        run_baseline(PlainBM25, fmt, convs, None, run)
        runs.append(run)
        _progress(run)
        emb = TimedEmbedder(inner)
        run = Run("dense", fmt)
        run_baseline(lambda e=emb: PlainDense(e.embed), fmt, convs, emb, run)
        runs.append(run)
        _progress(run)
        if not args.no_inspeximus and inspeximus_available():
            emb = TimedEmbedder(inner)
            run = Run("inspeximus", fmt)
            run_baseline(lambda e=emb: InspeximusRetriever(e.embed), fmt, convs, emb, run)
            runs.append(run)
            _progress(run)
    return runs


def _progress(run: Run) -> None:
    r10 = statistics.fmean(m["recall@10"] for _, _, m in run.rows) if run.rows else float("nan")
    print(f"  {label(run):34s} done: {len(run.rows)} questions, recall@10 {r10:.3f}", file=sys.stderr, flush=True)


def _profile_json(p: Profile) -> dict[str, Any]:
    opts = {k: (asdict(v) if hasattr(v, "__dataclass_fields__") else v) for k, v in p.options.items()}
    return {"text_format": p.text_format, "split_speakers": p.split_speakers, "recall_options": opts}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default="all")
    ap.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    ap.add_argument("--data", type=Path, default=data.DEFAULT_DATA)
    ap.add_argument("--allow-other-data", action="store_true", help="run even if the sha256 differs")
    ap.add_argument("--limit-convs", type=int, default=0, help="only the first N conversations of the split")
    ap.add_argument("--no-inspeximus", action="store_true", help="skip inspeximus even if installed")
    ap.add_argument("--no-default", action="store_true", help="skip reverie-default and the caption baselines")
    ap.add_argument(
        "--ablation", action="store_true", help="reverie only: cumulative steps to the tuned profile and leave-one-out"
    )
    ap.add_argument("--json", type=Path)
    ap.add_argument("--png", type=Path)
    return ap.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(main())
