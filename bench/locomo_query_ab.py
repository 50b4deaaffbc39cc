"""Recall latency and ingest rate of source trees side by side, on one LoCoMo conversation.

    git -C . worktree add --detach /tmp/old <commit>
    .venv/bin/python bench/locomo_query_ab.py --src old=/tmp/old/src [--src base=DIR ...]
        [--conversation 0] [--rounds 5] [--embedder minilm|hash] [--json out.json] [--profile LABEL]
    .venv/bin/python bench/locomo_query_ab.py --src old=/tmp/old/src --instructions [--json out.json]

Why this script: a change on the query path (the full-text index form, schema 7) cost about 2 ms
per recall in ``locomo_conversation.py``; one run of that bench per tree, minutes apart on a
shared 2-core machine, cannot tell 2 ms from the load drifting. Here every tree runs at once.

Each tree (``--src LABEL=DIR``, repeatable; ``new`` is this checkout's ``src``) gets a child
process whose ``PYTHONPATH`` is that ``src``. The child does what ``locomo_conversation.py``'s
``conversation`` system does with one LoCoMo conversation (``--conversation N``, index in the
file: 0-4 are the dev split): a ``Memory`` on a fresh SQLite file (``durability="fast"``, a
fixed ``ManualClock``), ``mem.conversation(sample_id, scope=...)``, one ``conv.add`` per turn
(timed: ingest msg/s), then waits. The children ingest one after the other (never two at
once). Then ``--rounds`` rounds: each child in turn runs every question of the conversation
once, ``mem.recall(question, scope=..., k=20, record_use=False)``, timed one by one; the order
of the children rotates every round, so a drift of the machine's load falls on all of them.

Every tree must give the same hits in the same order for every question (text, ``dia_id``,
kind and score to 1e-9 of each hit): the script asserts it and exits 1, printing the first
question that differs, if not. Latency is p50 / p95 over every (question, round) sample, with
and without the query's embedding (the embedder is wrapped: ``benchutil.TimedEmbedder``).
``--profile LABEL`` also runs that tree's questions once under cProfile and prints its top 25.

``--instructions`` counts instead of timing: each child runs under ``valgrind --tool=callgrind
--instr-atstart=no`` (the children at once: a count does not depend on the load), ingests, and
counts the CPU instructions of one round of the questions (``callgrind_control -i on`` / ``off``
around it; ingest and warm-up not counted). The count repeats to ~0.2 % whatever the machine is
doing (every child runs with ``PYTHONHASHSEED=0``); it leaves out cache misses and I/O waits.
The embedder defaults to ``hash`` here (MiniLM under valgrind is very slow, and its instructions
are the same for every tree). Needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess  # nosec B404 # children are this interpreter running this script
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import locomo_data as data  # noqa: E402  (this folder, beside the script)
from benchutil import machine, pct  # noqa: E402

SCOPE = "locomo"


# --- the child: one tree, one store -------------------------------------------------------------


def child(conversation: int, embedder: str, db: Path) -> None:
    """Ingest, then answer ``round`` / ``profile`` / ``quit`` lines on stdin with one JSON line each."""
    import cProfile
    import io
    import pstats
    from datetime import UTC, datetime

    from threadpoolctl import threadpool_limits

    import reverie
    from benchutil import TimedEmbedder
    from locomo_conversation import message_text
    from reverie import ManualClock, Memory
    from reverie.embed import Embedder, HashEmbedder, default_embedder

    conv_data = data.load(data.DEFAULT_DATA)[conversation]
    inner: Embedder = HashEmbedder() if embedder == "hash" else default_embedder()
    inner.embed(["warm-up"])
    emb = TimedEmbedder(inner)
    out = sys.stdout
    with (
        threadpool_limits(limits=1),
        Memory(db, embedder=emb, clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)), durability="fast") as mem,
    ):
        start, cpu = time.perf_counter(), time.process_time()
        conv = mem.conversation(conv_data.sample_id, scope=SCOPE)
        for t in conv_data.turns:
            conv.add(message_text(t), speaker=t.speaker, at=t.date, meta={"dia_id": t.dia_id})
        ingest_s, ingest_cpu = time.perf_counter() - start, time.process_time() - cpu
        questions = [q.question for q in conv_data.questions]
        for q in questions[:3]:  # warm caches and the statement cache; untimed
            mem.recall(q, scope=SCOPE, k=data.MAX_K, record_use=False)
        _send(out, {"turns": len(conv_data.turns), "ingest_s": ingest_s, "ingest_cpu_s": ingest_cpu,
                    "reverie": str(Path(reverie.__file__).parent)})  # fmt: skip
        for line in sys.stdin:
            cmd = line.strip()
            if cmd == "round":
                ms, cpu_ms, embed_ms, hits = [], [], [], []
                for q in questions:
                    before = emb.seconds
                    start, cpu = time.perf_counter(), time.process_time()
                    found = mem.recall(q, scope=SCOPE, k=data.MAX_K, record_use=False)
                    ms.append((time.perf_counter() - start) * 1000)
                    cpu_ms.append((time.process_time() - cpu) * 1000)
                    embed_ms.append((emb.seconds - before) * 1000)
                    hits.append([[h.item.text, h.item.meta.get("dia_id"), h.item.kind, h.score] for h in found])
                _send(out, {"ms": ms, "cpu_ms": cpu_ms, "embed_ms": embed_ms, "hits": hits})
            elif cmd == "count":  # under callgrind: count one round's instructions, nothing else
                toggle = ["callgrind_control", "-i"]
                subprocess.run([*toggle, "on", str(os.getpid())], check=True, capture_output=True)  # nosec B603 B607
                found_all = [mem.recall(q, scope=SCOPE, k=data.MAX_K, record_use=False) for q in questions]
                subprocess.run([*toggle, "off", str(os.getpid())], check=True, capture_output=True)  # nosec B603 B607
                hits = [[[h.item.text, h.item.meta.get("dia_id"), h.item.kind, h.score] for h in f] for f in found_all]
                _send(out, {"hits": hits, "questions": len(questions)})
            elif cmd == "profile":
                prof = cProfile.Profile()
                prof.enable()
                for q in questions:
                    mem.recall(q, scope=SCOPE, k=data.MAX_K, record_use=False)
                prof.disable()
                text = io.StringIO()
                pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
                _send(out, {"profile": text.getvalue()})
            else:
                break


def _send(out: IO[str], obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj) + "\n")
    out.flush()


# --- the parent: alternate the children ---------------------------------------------------------


class Tree:
    def __init__(self, label: str, src: Path, args: argparse.Namespace, tmp: Path) -> None:
        self.label, self.src = label, src
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--conversation", str(args.conversation)]
        argv += ["--embedder", args.embedder, "--db", str(tmp / f"{label}.db")]
        self.valgrind_log: Path | None = None
        if args.instructions:
            self.valgrind_log = tmp / f"valgrind.{label}.txt"
            out = f"--callgrind-out-file={tmp / f'callgrind.{label}'}"
            argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no", out, f"--log-file={self.valgrind_log}", *argv]
        self.proc = subprocess.Popen(  # nosec B603 B607 # this interpreter and script (under valgrind)
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0"),
        )
        self.ingest: dict[str, Any] = {}
        self.ms: list[float] = []
        self.cpu_ms: list[float] = []
        self.embed_ms: list[float] = []
        self.instructions = 0
        self.questions = 0

    def ask(self, cmd: str | None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if cmd is not None:
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.label}: the child process ended (exit {self.proc.wait()})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=600)
        if self.valgrind_log is not None and self.valgrind_log.exists():
            found = re.search(r"Collected : (\d+)", self.valgrind_log.read_text())
            self.instructions = int(found.group(1)) if found else 0


def _same(a: list[list[Any]], b: list[list[Any]]) -> bool:
    return len(a) == len(b) and all(
        x[:3] == y[:3] and abs(float(x[3]) - float(y[3])) <= 1e-9 for x, y in zip(a, b, strict=True)
    )


class _Hits:
    """The first tree's hits for every question; every later answer must equal them."""

    def __init__(self) -> None:
        self.reference: list[list[list[Any]]] | None = None
        self.label = ""

    def check(self, label: str, hits: list[list[list[Any]]]) -> None:
        if self.reference is None:
            self.reference, self.label = hits, label
            return
        for i, (want, got) in enumerate(zip(self.reference, hits, strict=True)):
            if not _same(want, got):
                print(f"{label}: the hits of question {i} differ from {self.label}'s:\n"
                      f"  {self.label}: {want[:5]}\n  {label}: {got[:5]}", file=sys.stderr)  # fmt: skip
                raise SystemExit(1)


def run(args: argparse.Namespace) -> dict[str, Any]:
    import tempfile

    srcs: dict[str, Path] = {}
    for spec in args.src:
        label, _, path = spec.partition("=")
        srcs[label] = Path(path).resolve()
    srcs.setdefault("new", HERE.parent / "src")
    trees: list[Tree] = []
    hits = _Hits()
    with tempfile.TemporaryDirectory(prefix="reverie-query-ab-") as tmp:
        try:
            if args.instructions:  # counts do not depend on load: the children run at once
                trees = [Tree(label, src, args, Path(tmp)) for label, src in srcs.items()]
                for tree in trees:
                    tree.ingest = tree.ask(None)
                for tree in trees:
                    reply = tree.ask("count")
                    tree.questions = reply["questions"]
                    hits.check(tree.label, reply["hits"])
            else:
                for label, src in srcs.items():  # one at a time: ingest rates are not shared cores
                    tree = Tree(label, src, args, Path(tmp))
                    trees.append(tree)
                    tree.ingest = tree.ask(None)
                    print(f"  {label:8s} ingest {tree.ingest['turns'] / tree.ingest['ingest_s']:6.1f} msg/s"
                          f"  ({tree.ingest['reverie']})", file=sys.stderr, flush=True)  # fmt: skip
                for r in range(args.rounds):
                    turn = r % len(trees)
                    for tree in trees[turn:] + trees[:turn]:
                        reply = tree.ask("round")
                        tree.ms += reply["ms"]
                        tree.cpu_ms += reply["cpu_ms"]
                        tree.embed_ms += reply["embed_ms"]
                        hits.check(tree.label, reply["hits"])
                    print(f"  round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
                for tree in trees:
                    if tree.label == args.profile:
                        print(tree.ask("profile")["profile"])
        finally:
            for tree in trees:
                tree.close()
    report: dict[str, Any] = {
        "conversation": args.conversation,
        "embedder": args.embedder,
        "mode": "instructions" if args.instructions else "wall clock",
        "rounds": 0 if args.instructions else args.rounds,
        "same_hits": True,
        "trees": {t.label: _row(t, args.instructions) for t in trees},
        "machine": machine(),
    }
    return report


def _row(t: Tree, instructions: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"src": str(t.src), "turns": t.ingest["turns"]}
    if instructions:
        return row | {
            "questions": t.questions,
            "instructions": t.instructions,
            "instructions_per_query": t.instructions / t.questions,
        }
    no_embed = [m - e for m, e in zip(t.ms, t.embed_ms, strict=True)]
    return row | {
        "ingest_msg_per_s": t.ingest["turns"] / t.ingest["ingest_s"],
        "ingest_msg_per_cpu_s": t.ingest["turns"] / t.ingest["ingest_cpu_s"],
        "query_ms_p50": pct(t.ms, 50),
        "query_ms_p95": pct(t.ms, 95),
        "query_ms_p50_no_embed": pct(no_embed, 50),
        "query_ms_p95_no_embed": pct(no_embed, 95),
        "query_cpu_ms_p50": pct(t.cpu_ms, 50),
        "query_cpu_ms_p95": pct(t.cpu_ms, 95),
        "samples": len(t.ms),
    }


_TIMED = [
    ("query_ms_p50", "query p50 ms"),
    ("query_ms_p95", "query p95 ms"),
    ("query_ms_p50_no_embed", "p50 ms w/o embed"),
    ("query_ms_p95_no_embed", "p95 ms w/o embed"),
    ("query_cpu_ms_p50", "query CPU p50 ms"),
    ("query_cpu_ms_p95", "query CPU p95 ms"),
    ("ingest_msg_per_s", "ingest msg/s"),
    ("ingest_msg_per_cpu_s", "ingest msg/CPU-s"),
]
_COUNTED = [("instructions_per_query", "instr./query")]


def print_table(report: dict[str, Any]) -> None:
    """One row per measure, one column per tree, then ``new`` over each other tree."""
    rows = report["trees"]
    labels = list(rows)
    new_label = "new" if "new" in rows else labels[-1]
    others = [label for label in labels if label != new_label]
    print(
        f"\n{'':18s}"
        + "".join(f"{label:>14s}" for label in labels)
        + "".join(f"{new_label + '/' + o:>12s}" for o in others)
    )
    for key, title in _COUNTED if report["mode"] == "instructions" else _TIMED:
        cells = "".join(f"{rows[label][key]:14,.2f}" for label in labels)
        ratios = "".join(f"{rows[new_label][key] / rows[o][key]:12.4f}" for o in others)
        print(f"{title:18s}{cells}{ratios}")
    first = rows[labels[0]]
    samples = f"{first['questions']} questions, one counted round" if report["mode"] == "instructions" else (
        f"{first['samples']} samples each ({report['rounds']} rounds)")  # fmt: skip
    print(f"\nsame hits, same order in every tree: {report['same_hits']}; {samples}; "
          f"embedder {report['embedder']}; machine: {report['machine']}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--src", action="append", default=[], help="LABEL=DIR: another tree's src/ (repeatable)")
    ap.add_argument("--conversation", type=int, default=0, help="index of the LoCoMo conversation (0-4: dev)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--embedder", choices=["minilm", "hash"], help="default: minilm; hash with --instructions")
    ap.add_argument("--instructions", action="store_true", help="count one round's CPU instructions (callgrind)")
    ap.add_argument("--profile", help="LABEL: print that tree's cProfile top 25 over one round")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.embedder is None:
        args.embedder = "hash" if args.instructions else "minilm"
    if args.child:
        child(args.conversation, args.embedder, args.db)
        return 0
    if data.sha256_of(data.DEFAULT_DATA) != data.SHA256:
        print(f"{data.DEFAULT_DATA}: not the README's LoCoMo file (sha256)", file=sys.stderr)
        return 2
    report = run(args)
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
