"""What the contradictions' second reader (``conflict_reader="nli"``) costs a write and a dream pass.

    python bench/conflict_reader_cost.py [--claims 200] [--background 100000] [--rounds 2] [--json out.json]

Writes the same claims (both sides of the fresh pair set's dev pairs, in file order; hash
embedder, so the model being measured is the reader, not the embedder) into three fresh SQLite
stores, side by side in one run:

- ``rules``: ``Memory()`` as shipped — detection with the rules after each write;
- ``nli while idle``: ``conflict_reader="nli"`` — the rules after each write, which flags the
  claim ``conflicts_unread``; then one ``dream`` pass in which the reader reads them;
- ``nli at write``: ``conflict_reader="nli", read_at_write=True`` — the reader right after each write.

Prints writes per second (wall clock; the machine is shared, so read the ratios; the setups are
alternated ``--rounds`` times after a warm-up, every other round in reverse order, and the faster
round of each is shown), the dream pass's
seconds, how many ordered pairs the reader scored, and the contradicts edges found.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reverie import Memory
from reverie.nli import OnnxPairScorer

FRESH = Path(__file__).resolve().parent / "data" / "contradictions_fresh.jsonl"
SCOPE = "bench"


class _Counting(OnnxPairScorer):
    """The real model, counting the ordered pairs it scores (cache hits included)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def contradiction_scores(self, pairs: Any) -> list[float]:
        self.asked += len(pairs)
        return super().contradiction_scores(pairs)


def _claims(n: int) -> list[str]:
    rows = [json.loads(line) for line in FRESH.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [t for r in rows if r["split"] == "dev" for t in (r["a"], r["b"])]
    return list(dict.fromkeys(texts))[:n]


_NAMES = ("Ana", "Ben", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jia", "Kofi", "Lena")
_THINGS = ("report", "server", "garden", "budget", "invoice", "bike", "laptop", "ticket", "lease", "recipe")
_STATES = ("ready", "late", "blue", "shared", "archived", "broken", "new", "paid", "open", "quiet")


def _background(n: int) -> list[str]:
    """``n`` distinct filler claims, seeded: what a store already holds when the new claims arrive."""
    rng = random.Random(0)
    out = []
    for i in range(n):
        name, thing, state = rng.choice(_NAMES), rng.choice(_THINGS), rng.choice(_STATES)
        out.append(f"{name}'s {thing} number {i} was {state} on day {rng.randint(1, 28)}.")
    return out


def _run(
    name: str, claims: list[str], folder: Path, *, reader: bool, at_write: bool, background: list[str]
) -> dict[str, Any]:
    from reverie.conflict.second import SecondReader

    scorer = _Counting() if reader else None
    if scorer is not None:
        scorer.load()  # each setup has its own scorer (and cache); loading is not what is measured
    spec = SecondReader(scorer) if scorer is not None else None
    with Memory(folder / f"{name}.db", embedder="hash", conflict_reader=spec, read_at_write=at_write) as mem:
        for at in range(0, len(background), 1000):  # already there: no detection, no flags
            mem.remember_many([{"text": t} for t in background[at : at + 1000]], scope=SCOPE, check_conflicts=False)
        start = time.perf_counter()
        for text in claims:
            mem.remember(text, scope=SCOPE)
        writes = time.perf_counter() - start
        start = time.perf_counter()
        mem.dream(scope=SCOPE)
        dream = time.perf_counter() - start
        edges = len(mem.contradictions(scope=SCOPE, limit=1000))
    return {
        "setup": name,
        "writes_per_s": len(claims) / writes,
        "dream_s": dream,
        "pairs_scored": scorer.asked if scorer is not None else 0,
        "contradictions": edges,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2, help="alternated rounds; the faster of each is shown")
    parser.add_argument("--background", type=int, default=0, help="claims already in the store (e.g. 100000)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    claims = _claims(args.claims)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        setups = (("rules", False, False), ("nli while idle", True, False), ("nli at write", True, True))
        background = _background(args.background)
        _run("warm-up", claims[:20], folder, reader=True, at_write=True, background=[])  # imports, page cache
        rounds = []
        for r in range(args.rounds):  # odd rounds run the setups in reverse: order effects cancel
            order = list(enumerate(setups)) if r % 2 == 0 else list(reversed(list(enumerate(setups))))
            done = {
                i: _run(f"{name}-{r}", claims, folder, reader=reader, at_write=at, background=background)
                for i, (name, reader, at) in order
            }
            rounds.append([done[i] for i in range(len(setups))])
        # The faster round of each setup (wall clock on a shared machine only ever adds time).
        rows = [
            {**max((rnd[i] for rnd in rounds), key=lambda row: row["writes_per_s"]), "setup": name}
            for i, (name, _, _) in enumerate(setups)
        ]
    base = rows[0]["writes_per_s"]
    print(
        f"{len(claims)} claims into a store of {args.background} others, hash embedder, {args.rounds} rounds, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'setup':20} {'writes/s':>9} {'x rules':>8} {'dream s':>8} {'pairs scored':>13} {'conflicts':>10}")
    for r in rows:
        print(
            f"{r['setup']:20} {r['writes_per_s']:>9.1f} {r['writes_per_s'] / base:>8.2f} {r['dream_s']:>8.1f}"
            f" {r['pairs_scored']:>13} {r['contradictions']:>10}"
        )
    if args.json:
        result = {"claims": len(claims), "background": args.background, "rounds": args.rounds, "rows": rows}
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
