"""A short tour of reverie on the embedded default: remember, recall, revise, forget, believe.

Run it with ``bash scripts/demo`` (or ``python -m reverie.demo --db path``). It writes a real
SQLite file, uses the real local embedding model, and prints what the memory believes.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta
from pathlib import Path

from reverie import ManualClock, Memory

SCOPE = "user:alice"


def _show(title: str, lines: list[str]) -> None:
    print(f"\n== {title}")
    for line in lines:
        print("  " + line)


def run(db: str, embedder: str = "minilm") -> int:
    """Runs the tour on ``db`` (recreated) and returns a process exit code."""
    for suffix in ("", "-wal", "-shm"):
        Path(db + suffix).unlink(missing_ok=True)
    clock = ManualClock()
    with Memory(db, embedder=embedder, clock=clock, seed=7) as mem:
        allergy = mem.remember(
            "Alice is allergic to peanuts",
            scope=SCOPE,
            kind="assertion",
            source="user_stated",
            key="alice.allergy",
            value="peanuts",
            importance=0.9,
        )
        mem.remember_many(
            [
                {"text": "Alice prefers window seats on long flights", "kind": "trait"},
                {"text": "Alice's team ships the billing service on Thursdays", "kind": "semantic"},
                {"text": "Had lunch with Alice at the Thai place on Friday", "kind": "episodic"},
                {"text": "Alice mentioned she is training for the Berlin marathon", "kind": "episodic"},
            ],
            scope=SCOPE,
        )
        mem.remember("alice is allergic to peanuts.", scope=SCOPE, source="observed")  # corroboration
        clock.advance(days=3)
        hits = mem.recall("what is Alice allergic to?", scope=SCOPE, k=3)
        _show(
            "recall: what is Alice allergic to?",
            [
                f"{h.score:.4f}  {h.item.text}  (evidence {h.item.evidence_count}; lexical rank "
                f"{h.why['lexical_rank']}, dense rank {h.why['dense_rank']}, decay {h.why['decay']})"
                for h in hits
            ],
        )
        clock.advance(days=1)
        revised = mem.revise(
            allergy.id,
            "Alice is allergic to tree nuts",
            scope=SCOPE,
            value="tree nuts",
            reason="her doctor corrected it",
        )
        before = clock.now() - timedelta(days=2)
        _show(
            "after revise",
            [
                f"now:        {mem.get(revised.id, scope=SCOPE).text}",
                f"as of {before:%Y-%m-%d}: {mem.get(allergy.id, scope=SCOPE, as_of=before).text}",
                "history:    " + " → ".join(v.text for v in mem.history(revised.id, scope=SCOPE).versions),
            ],
        )
        lunch = mem.recall("lunch with Alice", scope=SCOPE, k=1)[0].item
        mem.forget(lunch.id, scope=SCOPE, reason="not worth keeping")
        print("\n== context for 'plan Alice's dinner' (budget 120 tokens)")
        print(mem.context("plan Alice's dinner", scope=SCOPE, budget_tokens=120))
        summary = mem.summary(scope=SCOPE)
        _show("what reverie believes", [f"{k}: {v}" for k, v in summary.items()])
        report = mem.doctor()
        _show("doctor", ["ok" if report.ok else "; ".join(report.problems)])
        return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", default="reverie-demo.db", help="SQLite file to (re)create")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hash"])
    parser.add_argument(
        "--if-empty", action="store_true", help="Only seed a store that has no items yet (keep an existing one)."
    )
    args = parser.parse_args(argv)
    if args.if_empty and Path(args.db).exists():
        with Memory(args.db, embedder=args.embedder) as mem:
            scopes = mem.scopes()
        if scopes:
            held = f"scope{'s' if len(scopes) > 1 else ''} {', '.join(scopes)}"
            print(f"{args.db} already holds {held}: keeping it, so no tour this time.")
            print(
                f"  To see the tour again: bash scripts/demo --fresh (recreates {args.db}),\n"
                f"  or python -m reverie.demo --db {args.db} (the same, without the server)."
            )
            return 0
    return run(args.db, args.embedder)


if __name__ == "__main__":
    sys.exit(main())
