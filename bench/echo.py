"""Echo benchmark: do corrections survive an extractor re-reading old messages?

    python bench/echo.py [--embedder hash|minilm|both] [--json out.json]

30 generated facts (6 people × 5 attributes), each remembered from an ``inferred`` source with a
structured key and value, corrected with ``revise`` 30 days later, then echoed 1–3 times 5 days
after that (seeded), from an ``inferred`` or ``observed`` source, in one of three wordings:

- ``exact``: the original text again;
- ``case_punct``: the original text upper-cased with other end punctuation ("BOB LIVES IN PARIS!");
- ``key_value``: other words, same key and value ("Bob's city is Paris", key ``bob.city``).

A fact *stays corrected* when, after its echoes, (1) current truth (``list`` by its key) holds
the correction alone, and (2) no hit in the top 5 of ``recall(<its question>)`` states the
superseded value. Both parts are reported, per wording and overall, for each embedder; the goal
is 100 %. All facts live in one scope (one user), so recall must also pick the right person.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchutil import machine
from reverie import ManualClock, Memory, Q

START = datetime(2025, 1, 1, tzinfo=UTC)

SCOPE = "user:bench"
NAMES = ("Bob", "Alice", "Carol", "Dan", "Erin", "Frank")
#: (attribute, statement, question, values): the statement and question take the name and value.
ATTRS = (
    ("city", "{n} lives in {v}.", "where does {n} live", ("Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna")),
    (
        "employer",
        "{n} works at {v}.",
        "where does {n} work",
        ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Wayne"),
    ),
    ("pet", "{n} has a pet {v}.", "what pet does {n} have", ("cat", "dog", "parrot", "hamster", "rabbit", "turtle")),
    (
        "drink",
        "{n} drinks {v} every morning.",
        "what does {n} drink in the morning",
        ("tea", "coffee", "juice", "cocoa", "milk", "kefir"),
    ),
    (
        "sport",
        "{n} plays {v} on weekends.",
        "what sport does {n} play",
        ("tennis", "football", "chess", "golf", "hockey", "rugby"),
    ),
)
WORDINGS = ("exact", "case_punct", "key_value")


@dataclass(frozen=True)
class Fact:
    name: str
    attr: str
    statement: str
    question: str
    old: str
    new: str

    @property
    def key(self) -> str:
        return f"{self.name.lower()}.{self.attr}"

    def text(self, value: str) -> str:
        return self.statement.format(n=self.name, v=value)


def facts(rng: random.Random) -> list[Fact]:
    """The 30 facts: an original value and a different corrected one per (person, attribute)."""
    out = []
    for name in NAMES:
        for attr, statement, question, values in ATTRS:
            old, new = rng.sample(values, 2)
            out.append(Fact(name, attr, statement, question.format(n=name), old, new))
    return out


def echo(fact: Fact, wording: str) -> dict[str, Any]:
    """The keyword arguments of one echo of ``fact``'s superseded value."""
    if wording == "exact":
        return {"text": fact.text(fact.old)}
    if wording == "case_punct":
        return {"text": fact.text(fact.old).upper().rstrip(".") + "!"}
    return {"text": f"{fact.name}'s {fact.attr} is {fact.old}", "key": fact.key, "value": fact.old}


def run(embedder: str, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    clock = ManualClock(START)
    mem = Memory(":memory:", embedder=embedder, clock=clock, seed=seed, durability="fast")
    plan = facts(rng)
    corrected: dict[str, str] = {}
    for f in plan:
        item = mem.remember(f.text(f.old), scope=SCOPE, kind="assertion", source="inferred", key=f.key, value=f.old)
        clock.advance(hours=1)
        corrected[f.key] = item.id
    clock.advance(days=30)
    for f in plan:
        corrected[f.key] = mem.revise(corrected[f.key], f.text(f.new), scope=SCOPE, value=f.new).id
    clock.advance(days=5)
    echoes: list[tuple[Fact, str]] = []
    for f in plan:
        for _ in range(rng.randint(1, 3)):
            wording = rng.choice(WORDINGS)
            source = rng.choice(("inferred", "observed"))
            mem.remember(**echo(f, wording), scope=SCOPE, kind="assertion", source=source)
            echoes.append((f, wording))
    started = time.perf_counter()
    truth: dict[str, bool] = {}
    recall_ok: dict[str, bool] = {}
    everything = mem.list(scope=SCOPE, limit=1000).items
    for f in plan:
        current = mem.list(scope=SCOPE, where=Q.key(f.key)).items
        echoed_live = [i for i in everything if _states(i.text, f.name, f.old)]
        truth[f.key] = [i.id for i in current] == [corrected[f.key]] and not echoed_live
        hits = mem.recall(f.question, scope=SCOPE, k=5, record_use=False)
        recall_ok[f.key] = not any(_states(h.item.text, f.name, f.old) for h in hits)
    elapsed = time.perf_counter() - started
    evidence = sum(1 for e in mem.events(scope=SCOPE, limit=10_000) if e.type == "memory.echoed")
    mem.close()
    by_wording: dict[str, dict[str, Any]] = {}
    for wording in WORDINGS:
        keys = sorted({f.key for f, w in echoes if w == wording})
        by_wording[wording] = {
            "facts": len(keys),
            "current_truth": _share(truth[k] for k in keys),
            "recall_top5": _share(recall_ok[k] for k in keys),
            "stays_corrected": _share(truth[k] and recall_ok[k] for k in keys),
        }
    return {
        "embedder": embedder,
        "facts": len(plan),
        "echoes": len(echoes),
        "echoes_recorded_as_evidence": evidence,
        "current_truth": _share(truth.values()),
        "recall_top5": _share(recall_ok.values()),
        "stays_corrected": _share(truth[f.key] and recall_ok[f.key] for f in plan),
        "by_wording": by_wording,
        "read_seconds": round(elapsed, 3),
    }


def _states(text: str, name: str, value: str) -> bool:
    """Does ``text`` say ``name``'s (superseded) ``value``? Any wording and case."""
    words = set(text.casefold().replace("'s", " ").replace(".", " ").replace("!", " ").split())
    return name.casefold() in words and value.casefold() in words


def _share(values: Any) -> float:
    vals = list(values)
    return round(sum(1 for v in vals if v) / len(vals), 4) if vals else float("nan")


def table(results: list[dict[str, Any]]) -> str:
    head = (
        f"{'embedder':<8} {'wording':<11} {'facts':>5} {'current truth':>13} {'recall top5':>11} "
        f"{'stays corrected':>15}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        rows = [("all", r["facts"], r)] + [(w, d["facts"], d) for w, d in r["by_wording"].items()]
        for wording, n, d in rows:
            lines.append(
                f"{r['embedder']:<8} {wording:<11} {n:>5} {d['current_truth']:>13.1%} {d['recall_top5']:>11.1%} "
                f"{d['stays_corrected']:>15.1%}"
            )
        lines.append(
            f"{'':<8} echoes {r['echoes']}, recorded as evidence on the superseded version: "
            f"{r['echoes_recorded_as_evidence']}"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=("hash", "minilm", "both"), default="both")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="write the results here as JSON")
    args = ap.parse_args()
    names = ("hash", "minilm") if args.embedder == "both" else (args.embedder,)
    results = [run(name, args.seed) for name in names]
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps({"results": results, "seed": args.seed, "machine": machine()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
