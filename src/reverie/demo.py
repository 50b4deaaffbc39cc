"""A short tour of reverie on the embedded default: remember, recall, revise, forget, believe.

Run it with ``bash scripts/demo`` (or ``python -m reverie.demo --db path``). It writes a real
SQLite file, uses the real local embedding model, and prints what the memory believes.

The tour recreates its file, so it runs only on a store that holds nothing yet: a file that
holds anything (``Memory.scopes``: any event of any kind, intents and conversations without a
single item too) is kept with ``--if-empty`` and recreated only with ``--fresh``; without either
the tour refuses it, untouched. A file that is no reverie store is refused even with ``--fresh``:
the demo never deletes another application's database.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta
from pathlib import Path

from reverie import ManualClock, Memory
from reverie.errors import InvalidInputError, ReverieError

SCOPE = "user:alice"


def _show(title: str, lines: list[str]) -> None:
    print(f"\n== {title}")
    for line in lines:
        print("  " + line)


def held(db: str, embedder: str = "minilm") -> list[str]:
    """The scopes the store at ``db`` holds (``Memory.scopes``: a scope with any event in its log);
    ``[]`` when there is no file yet or it holds no event. Raises the store's own error for a file
    that is no reverie store (``InvalidInputError``) or no database at all (``StorageError``)."""
    if not Path(db).exists():
        return []
    with Memory(db, embedder=embedder) as mem:
        return mem.scopes()


def _named(scopes: list[str]) -> str:
    return f"scope{'s' if len(scopes) > 1 else ''} {', '.join(scopes)}"


def run(db: str, embedder: str = "minilm", *, fresh: bool = False) -> int:
    """Runs the tour on ``db`` (recreated) and returns a process exit code.

    ``db`` must hold nothing unless ``fresh`` (``InvalidInputError`` otherwise, the file
    untouched), and must be a reverie store or no file: see the module docstring.
    """
    scopes = held(db, embedder)
    if scopes and not fresh:
        raise InvalidInputError(
            f"{db} already holds {_named(scopes)}, and the tour recreates its file; nothing was changed. "
            "Keep it with --if-empty, recreate it with --fresh (deletes what it holds), or name another --db"
        )
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
    parser.add_argument("--db", default="reverie-demo.db", help="SQLite file to create (or recreate, --fresh)")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hash"])
    keep = parser.add_mutually_exclusive_group()
    keep.add_argument(
        "--if-empty",
        action="store_true",
        help="Only seed a store that holds nothing yet; keep one that holds anything (exit 0).",
    )
    keep.add_argument(
        "--fresh", action="store_true", help="Recreate the store even when it holds something (deletes it)."
    )
    args = parser.parse_args(argv)
    try:
        scopes = held(args.db, args.embedder)
        if scopes and args.if_empty:
            print(f"{args.db} already holds {_named(scopes)}: keeping it, so no tour this time.")
            print(
                f"  To see the tour again: bash scripts/demo --fresh (recreates {args.db}),\n"
                f"  or python -m reverie.demo --db {args.db} --fresh (the same, without the server)."
            )
            return 0
        return run(args.db, args.embedder, fresh=args.fresh)
    except ReverieError as exc:
        print(f"error[{exc.code}]: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
