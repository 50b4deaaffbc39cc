"""Contradiction benchmark: reverie's rules vs a lexical-negation baseline, on two data sets.

    python bench/contradictions.py [--data own|fresh|fresh2|both|all] [--split dev|test|all] [--json out.json]
        [--errors] [--timing] [--old REV]
    python bench/contradictions.py --data-file PATH [--json out.json] [--old REV]
    python bench/contradictions.py --write-cost --old REV [--json out.json]

Data sets:
- ``own``: bench/data/contradictions.jsonl, pairs written for this project; each pair's split
  is fixed by a hash of its id (see ``split_of``);
- ``fresh``: bench/data/contradictions_fresh.jsonl, 1,060 pairs written by someone who never
  saw the rules (issue #16); its split field was frozen when it was written. Its test split is
  for reporting only: never tune on it and never list its errors (``--errors`` refuses it).
- ``fresh2``: bench/data/contradictions_fresh2.jsonl, 800 pairs by a second blind writer
  (2026-12-02, same brief: axes and compatibility only); split by a hash of the id, 376 dev /
  424 test, the test split frozen like the fresh set's.

``--data-file PATH`` scores any JSONL of pairs in the fresh set's format (``id``, ``a``, ``b``,
``label`` contradiction|compatible, ``axis``, ``kind``; ``split`` optional and ignored): every
pair, overall and per axis, and never a pair's text, id or verdict, so a set kept outside the
repository can be scored without anyone (or any tuning) seeing which pairs were missed.

``--write-cost --old REV``: what detection adds to a write, today vs REV: ``remember`` /
``remember_many`` items per CPU-second (process time; wall clock on this shared machine swings
2x) with the hash embedder (so the rules, not the model, dominate), detection on and off, each
tree in its own subprocess, alternated old/new twice.

Prints precision / recall / F1 per axis and overall, per data set and split, for reverie and
the baseline side by side. ``--old REV`` also scores the rules as they were at git revision
REV (the tree is archived to a temp dir and scored in a subprocess), printed next to today's.

How the numbers are counted:
- overall: a pair is a positive when the system reports any conflict; a detection on the
  wrong axis still counts as correct (the axis agreement column says how often it matched);
- per-axis recall: of the contradictions labelled with that axis, how many were detected;
- per-axis precision: of the pairs the system put on that axis, how many are contradictions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

# ``--src DIR`` (used by ``--old``) scores another tree's rules; by default this one's.
sys.path.insert(
    0,
    next(
        (sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--src"),
        str(Path(__file__).resolve().parents[1] / "src"),
    ),
)

from reverie.conflict import AXES, Claim, baseline_negation, detect

DATA = Path(__file__).resolve().parent / "data" / "contradictions.jsonl"
FRESH = Path(__file__).resolve().parent / "data" / "contradictions_fresh.jsonl"
FRESH2 = Path(__file__).resolve().parent / "data" / "contradictions_fresh2.jsonl"
DATASETS = {"own": DATA, "fresh": FRESH, "fresh2": FRESH2}
#: Sets written by someone who never saw the rules: their test split is for reporting only.
BLIND = frozenset({"fresh", "fresh2"})
SPLITS = ("dev", "test")


@dataclass(frozen=True)
class Pair:
    """One labelled pair from the dataset."""

    id: str
    a: Claim
    b: Claim
    label: str
    axis: str | None
    kind: str
    split: str
    aliases: tuple[frozenset[str], ...]


@dataclass(frozen=True)
class Prediction:
    detected: bool
    axis: str | None


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    f1: float
    support: int  # contradiction pairs this row's recall is over

    def as_dict(self) -> dict[str, float]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "support": self.support}


def split_of(pair_id: str) -> str:
    """The split a pair belongs to: fixed by its id, decided before any rule was tuned."""
    return "dev" if int(hashlib.sha256(pair_id.encode()).hexdigest(), 16) % 2 == 0 else "test"


def _when(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _claim(row: dict[str, object], side: str) -> Claim:
    valid = row.get(f"{side}_valid") or [None, None]
    assert isinstance(valid, list)
    key, value = row.get(f"key_{side}"), row.get(f"value_{side}")
    return Claim(
        text=str(row[side]),
        key=None if key is None else str(key),
        value=None if value is None else str(value),
        valid_from=_when(valid[0]),
        valid_to=_when(valid[1]),
    )


def load(path: Path = DATA, *, external: bool = False) -> list[Pair]:
    """The pairs of one JSONL file. ``external``: a set from outside the repository, checked
    field by field (a bad line is reported by its number, never by its text) and read whole."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = _checked_row(line, number) if external else json.loads(line)
        groups = tuple(frozenset(g) for g in row.get("aliases", []))
        pairs.append(
            Pair(
                id=row["id"],
                a=_claim(row, "a"),
                b=_claim(row, "b"),
                label=row["label"],
                axis=row["axis"],
                kind=row["kind"],
                split="external" if external else row["split"],
                aliases=groups,
            )
        )
    return pairs


_LABELS = ("contradiction", "compatible")


def _checked_row(line: str, number: int) -> dict[str, object]:
    """One line of an external set, or SystemExit naming the line and what is wrong with it."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"line {number}: not JSON ({exc.msg}); each line must be one JSON object") from None
    if not isinstance(row, dict):
        raise SystemExit(f"line {number}: a JSON object is expected, with id, a, b, label, axis, kind")
    missing = [k for k in ("id", "a", "b", "label", "axis", "kind") if k not in row]
    if missing:
        raise SystemExit(f"line {number}: missing field(s) {', '.join(missing)}")
    if not (isinstance(row["a"], str) and isinstance(row["b"], str) and row["a"].strip() and row["b"].strip()):
        raise SystemExit(f"line {number}: 'a' and 'b' must be non-empty strings")
    if row["label"] not in _LABELS:
        raise SystemExit(f"line {number}: label must be one of {', '.join(_LABELS)}")
    if row["label"] == "contradiction" and row["axis"] not in AXES:
        raise SystemExit(f"line {number}: a contradiction's axis must be one of {', '.join(AXES)}")
    return row


def score_file(path: Path) -> dict[str, object]:
    """Scores of reverie and the baseline over every pair of an external file: numbers only."""
    pairs = load(path, external=True)
    if not pairs:
        raise SystemExit(f"{path}: no pairs")
    out: dict[str, object] = {}
    for system, predict in (("reverie", predict_reverie), ("baseline", predict_baseline)):
        result = evaluate(pairs, predict)
        result.pop("errors")  # never leaves this function: no pair is named
        out[system] = result
    return {"external": out}


def _alias_lookup(groups: tuple[frozenset[str], ...]) -> Callable[[str], frozenset[str]] | None:
    if not groups:
        return None

    def lookup(name: str) -> frozenset[str]:
        return next((g for g in groups if name in g), frozenset({name}))

    return lookup


#: ``--reader nli``: the rules, then the second reader where they found nothing (``conflict.second``).
_READER: Any = None


def predict_reverie(pair: Pair) -> Prediction:
    if _READER is not None:
        from reverie.conflict.second import second_reading

        found = second_reading(pair.a, pair.b, _READER, aliases=_alias_lookup(pair.aliases))
    else:
        found = detect(pair.a, pair.b, aliases=_alias_lookup(pair.aliases))
    return Prediction(found is not None, None if found is None else found.axis)


def _use_reader(name: str | None, threshold: float | None) -> None:
    """Turn on the second reader for ``predict_reverie`` (``--reader nli``)."""
    global _READER
    if name is None:
        return
    from reverie.conflict.second import DEFAULT_THRESHOLD, SecondReader
    from reverie.nli import OnnxPairScorer

    _READER = SecondReader(OnnxPairScorer(), DEFAULT_THRESHOLD if threshold is None else threshold)


def predict_baseline(pair: Pair) -> Prediction:
    hit = baseline_negation(pair.a.text, pair.b.text)
    return Prediction(hit, "polarity" if hit else None)


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def evaluate(pairs: Iterable[Pair], predict: Callable[[Pair], Prediction]) -> dict[str, object]:
    """Scores overall and per axis, plus axis agreement and the misjudged pair ids."""
    rows = [(p, predict(p)) for p in pairs]
    positive = [(p, y) for p, y in rows if p.label == "contradiction"]
    tp = sum(y.detected for _, y in positive)
    fp = sum(y.detected for p, y in rows if p.label != "contradiction")
    p_, r_, f_ = _prf(tp, fp, len(positive) - tp)
    scores: dict[str, Score] = {"overall": Score(p_, r_, f_, len(positive))}
    for axis in AXES:
        labelled = [y for p, y in positive if p.axis == axis]
        predicted = [p for p, y in rows if y.axis == axis]
        hit = sum(y.detected for y in labelled)
        correct = sum(p.label == "contradiction" for p in predicted)
        prec = correct / len(predicted) if predicted else 0.0
        rec = hit / len(labelled) if labelled else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        scores[axis] = Score(prec, rec, f1, len(labelled))
    detected = [(p, y) for p, y in positive if y.detected]
    agree = sum(p.axis == y.axis for p, y in detected) / len(detected) if detected else 0.0
    errors = {
        "false_positives": [p.id for p, y in rows if y.detected and p.label != "contradiction"],
        "false_negatives": [p.id for p, y in positive if not y.detected],
        "wrong_axis": [p.id for p, y in detected if p.axis != y.axis],
    }
    return {"scores": scores, "axis_agreement": agree, "pairs": len(rows), "errors": errors}


def _table(split: str, ours: dict[str, object], base: dict[str, object]) -> str:
    so, sb = ours["scores"], base["scores"]
    assert isinstance(so, dict) and isinstance(sb, dict)
    lines = [
        f"split: {split}  ({ours['pairs']} pairs)",
        f"{'':10} {'support':>7} | {_system():>9} {'R':>5} {'F1':>5} | {'baseline P':>10} {'R':>5} {'F1':>5}",
    ]
    for name in ("overall", *AXES):
        a, b = so[name], sb[name]
        lines.append(
            f"{name:10} {a.support:>7} | {a.precision:>9.2f} {a.recall:>5.2f} {a.f1:>5.2f} |"
            f" {b.precision:>10.2f} {b.recall:>5.2f} {b.f1:>5.2f}"
        )
    agree_o, agree_b = float(str(ours["axis_agreement"])), float(str(base["axis_agreement"]))
    lines.append(f"{'axis agreement (detected contradictions)':44} {agree_o:>5.0%} | {'':>10} {agree_b:>11.0%}")
    return "\n".join(lines)


def _system() -> str:
    return "rules+nli P" if _READER is not None else "reverie P"


def run(split: str, path: Path = DATA) -> dict[str, dict[str, object]]:
    pairs = load(path)
    chosen = SPLITS if split == "all" else (split,)
    out: dict[str, dict[str, object]] = {}
    for name in (*chosen, "all") if split == "all" else chosen:
        subset = [p for p in pairs if name == "all" or p.split == name]
        out[name] = {"reverie": evaluate(subset, predict_reverie), "baseline": evaluate(subset, predict_baseline)}
    return out


def timing(rounds: int = 15) -> dict[str, float]:
    """CPU microseconds per ``detect`` call over every pair, the claim cache cleared each round.

    What one write pays per candidate it is checked against (a write checks ~10-20). Cold
    cache, because a new item's text has never been analysed. Process CPU time, and the best
    and median rounds, because wall clock on a shared 2-core machine swings by 2x.
    """
    from reverie.conflict.frame import analyse

    try:  # the rules before issue #16 had no meaning reading (``--old`` runs them too)
        from reverie.conflict.claim_frame import frame_of
    except ImportError:  # pragma: no cover - trees before round 10 kept it in ``meaning``
        try:
            from reverie.conflict.meaning import frame_of
        except ImportError:
            frame_of = None

    pairs = load() + load(FRESH)
    per_round: list[float] = []
    for _ in range(rounds):
        analyse.cache_clear()
        if frame_of is not None:
            frame_of.cache_clear()
        start = time.process_time()
        for p in pairs:
            detect(p.a, p.b, aliases=_alias_lookup(p.aliases))
        per_round.append((time.process_time() - start) / len(pairs) * 1e6)
    per_round.sort()
    return {"pairs": float(len(pairs)), "median_us": per_round[len(per_round) // 2], "best_us": per_round[0]}


def _jsonable(result: dict[str, dict[str, object]], *, blind: bool = False) -> dict[str, object]:
    """Scores as JSON. For a blind set (``BLIND``) only the dev split keeps the ids of its errors:
    a frozen split's misses are never written down, not even by id."""

    def conv(split: str, block: dict[str, object]) -> dict[str, object]:
        scores = block["scores"]
        assert isinstance(scores, dict)
        kept = {k: v for k, v in block.items() if k != "errors" or not blind or split == "dev"}
        return {**kept, "scores": {k: v.as_dict() for k, v in scores.items()}}

    return {split: {sys_: conv(split, b) for sys_, b in blocks.items()} for split, blocks in result.items()}  # type: ignore[arg-type]


def _old_scores(rev: str, names: list[str], split: str, *, timed: bool = False) -> dict[str, object]:
    """Score the rules as they were at ``rev``: archive that tree, run this script on it."""
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="reverie-old-rules-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev, "src"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        out = Path(tmp) / "old.json"
        cmd = [sys.executable, __file__, "--src", str(Path(tmp) / "src"), "--split", split, "--json", str(out)]
        cmd += ["--data", names[0] if len(names) == 1 else "both" if sorted(names) == ["fresh", "own"] else "all"]
        subprocess.run([*cmd, "--timing"] if timed else cmd, check=True, capture_output=True)
        loaded = json.loads(out.read_text(encoding="utf-8"))
        assert isinstance(loaded, dict)
        return loaded


def _old_table(split: str, now: dict[str, object], old: dict[str, object]) -> str:
    lines = [
        f"split: {split}  today vs old rules",
        f"{'':10} | {'today P':>8} {'R':>5} {'F1':>5} | {'old P':>6} {'R':>5} {'F1':>5}",
    ]
    so = now["scores"]
    sb = old["scores"]
    assert isinstance(so, dict) and isinstance(sb, dict)
    for name in ("overall", *AXES):
        a, b = so[name], sb[name]
        lines.append(
            f"{name:10} | {a.precision:>8.2f} {a.recall:>5.2f} {a.f1:>5.2f} |"
            f" {b['precision']:>6.2f} {b['recall']:>5.2f} {b['f1']:>5.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", choices=(*DATASETS, "both", "all"), default="all", help="both = own and fresh")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--json", type=Path, help="also write the scores to this file")
    parser.add_argument("--errors", action="store_true", help="list misjudged pairs (dev only; refused on fresh test)")
    parser.add_argument("--timing", action="store_true", help="also time detect() per pair (cold claim cache)")
    parser.add_argument("--old", metavar="REV", help="also score the rules at this git revision, side by side")
    parser.add_argument(
        "--data-file", type=Path, metavar="PATH", help="score an outside JSONL of pairs (scores only, no texts)"
    )
    parser.add_argument("--write-cost", action="store_true", help="CPU cost of writes with detection, vs --old REV")
    parser.add_argument("--write-cost-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)  # used by --old: score another tree
    parser.add_argument(
        "--reader", choices=("nli",), help="also ask the second reader where the rules find nothing (reverie[nli])"
    )
    parser.add_argument("--threshold", type=float, help="the second reader's margin (default: the library's)")
    args = parser.parse_args(argv)
    _use_reader(args.reader, args.threshold)
    if args.write_cost_worker:
        print(json.dumps(_write_cost_worker()))
        return 0
    if args.write_cost:
        return _main_write_cost(args)
    if args.data_file is not None:
        return _main_file(args)
    names = {"all": list(DATASETS), "both": ["own", "fresh"]}.get(args.data, [args.data])
    if args.errors and BLIND & set(names) and args.split != "dev":
        print("--errors on a blind set (fresh, fresh2) lists dev pairs only: pass --split dev", file=sys.stderr)
        return 2
    own = {p.id: p for p in load(DATA)}
    mismatched = [p.id for p in own.values() if p.split != split_of(p.id)]
    if mismatched:
        print(f"split field disagrees with the id hash for: {', '.join(mismatched)}", file=sys.stderr)
        return 2
    old = _old_scores(args.old, names, args.split, timed=args.timing) if args.old else None
    out: dict[str, object] = {}
    for name in names:
        pairs = {p.id: p for p in load(DATASETS[name])}
        result = run(args.split, DATASETS[name])
        for split, blocks in result.items():
            print(f"[{name}] " + _table(split, blocks["reverie"], blocks["baseline"]))
            if old is not None:
                prior = old[name]
                assert isinstance(prior, dict)
                print(f"[{name}] " + _old_table(split, blocks["reverie"], prior[split]["reverie"]))
            print()
            if args.errors:
                errors = blocks["reverie"]["errors"]
                assert isinstance(errors, dict)
                for kind, ids in errors.items():
                    for pid in ids:
                        p = pairs[pid]
                        print(f"  {kind:16} {pid:22} {p.a.text!r} | {p.b.text!r}")
        out[name] = _jsonable(result, blind=name in BLIND)
    if old is not None:
        out["old"] = {"rev": args.old, **old}
    if args.timing:
        cost = timing()
        print(f"detect: {cost['median_us']:.0f} us CPU per pair (median of 15 rounds, best {cost['best_us']:.0f} us)")
        out["timing"] = cost
        prior = old.get("timing") if old is not None else None
        if isinstance(prior, dict):  # measured in the subprocess just before: a side-by-side ratio
            ratio = cost["median_us"] / prior["median_us"]
            print(f"detect at {args.old}: {prior['median_us']:.0f} us CPU per pair (today / old = {ratio:.2f})")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


def _write_cost_worker(n_single: int = 200, n_batched: int = 1000) -> dict[str, float]:
    """Items per CPU-second of this tree's ``Memory``, detection on and off (hash embedder)."""
    import tempfile

    sys.path.insert(1, str(Path(__file__).resolve().parent))
    from reverie import ManualClock, Memory
    from reverie.embed import HashEmbedder
    from throughput import texts  # LoCoMo turns, as bench/throughput.py writes them

    out: dict[str, float] = {}
    for detect_on in (True, False):
        source = texts()
        with tempfile.TemporaryDirectory(prefix="reverie-write-cost-") as tmp:
            clock = ManualClock(datetime(2025, 1, 1).astimezone())
            mem = Memory(Path(tmp) / "t.db", embedder=HashEmbedder(), clock=clock, durability="fast", seed=0,
                         detect_conflicts=detect_on)  # fmt: skip
            with mem:
                mem.remember("warm-up", scope="cost")
                start = time.process_time()
                for _ in range(n_single):
                    mem.remember(next(source), scope="cost")
                single = time.process_time() - start
                start = time.process_time()
                for _ in range(n_batched // 500):
                    mem.remember_many([{"text": next(source)} for _ in range(500)], scope="cost")
                batched = time.process_time() - start
        tag = "on" if detect_on else "off"
        out[f"single_{tag}"] = n_single / single
        out[f"batched_{tag}"] = n_batched // 500 * 500 / batched
    return out


def _main_write_cost(args: argparse.Namespace) -> int:
    """``--write-cost``: old and new trees alternated, each in its own subprocess."""
    import subprocess
    import tempfile

    if not args.old:
        print("--write-cost compares two trees: pass --old REV", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parents[1]
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory(prefix="reverie-old-rules-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", args.old, "src"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        trees = {"old": Path(tmp) / "src", "new": root / "src"}
        for _ in range(2):
            for name, src in trees.items():
                cmd = [sys.executable, __file__, "--src", str(src), "--write-cost-worker"]
                done = subprocess.run(cmd, check=True, capture_output=True, text=True)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("items per CPU-second (hash embedder, durability fast; two alternated runs each)")
    print(f"{'':16} {'old':>14} {'today':>14} {'today/old':>9}")
    summary: dict[str, dict[str, float]] = {}
    for key in ("single_on", "batched_on", "single_off", "batched_off"):
        old = sorted(r[key] for r in runs["old"])[-1]  # best of two: the least disturbed run
        new = sorted(r[key] for r in runs["new"])[-1]
        summary[key] = {"old": old, "new": new, "ratio": new / old}
        print(f"{key:16} {old:>14,.0f} {new:>14,.0f} {new / old:>9.2f}")
    if args.json:
        payload = {"old_rev": args.old, "runs": runs, "best": summary, "loadavg": list(os.getloadavg())}
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


def _main_file(args: argparse.Namespace) -> int:
    """``--data-file``: one set from outside the repository, every pair, scores only."""
    if args.errors or args.timing:
        print("--data-file prints scores only: --errors and --timing are refused with it", file=sys.stderr)
        return 2
    if not args.data_file.is_file():
        print(f"--data-file {args.data_file}: no such file", file=sys.stderr)
        return 2
    result = score_file(args.data_file)
    blocks = result["external"]
    assert isinstance(blocks, dict)
    print(f"[{args.data_file.name}] " + _table("external", blocks["reverie"], blocks["baseline"]))
    out: dict[str, object] = {"data_file": str(args.data_file), **_jsonable(result)}  # type: ignore[arg-type]
    if args.old:
        old = _old_file_scores(args.old, args.data_file)
        print(f"[{args.data_file.name}] " + _old_table("external", blocks["reverie"], old["external"]["reverie"]))
        out["old"] = {"rev": args.old, **old}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


def _old_file_scores(rev: str, path: Path) -> dict[str, Any]:
    """``--data-file`` scored by the rules at ``rev`` (same archive-and-subprocess as ``--old``)."""
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="reverie-old-rules-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev, "src"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        out = Path(tmp) / "old.json"
        cmd = [sys.executable, __file__, "--src", str(Path(tmp) / "src"), "--data-file", str(path)]
        subprocess.run([*cmd, "--json", str(out)], check=True, capture_output=True)
        loaded = json.loads(out.read_text(encoding="utf-8"))
        assert isinstance(loaded, dict)
        return loaded


if __name__ == "__main__":
    raise SystemExit(main())
