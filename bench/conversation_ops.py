"""Conversation wing costs: ingest throughput (vs plain ``remember``), archive search at scale, idle/recap.

    .venv/bin/python bench/conversation_ops.py [--messages 500] [--archive 100000] [--embedder hash|minilm|both]

- **ingest**: ``conv.add`` per message (archive row + recallable memory in one transaction)
  against ``mem.remember`` per message of the same text (author, valid_from), both on a SQLite
  file with ``durability="fast"``, one message per call, in messages/s.
- **archive search**: p50 / p95 of ``mem.archive_search`` over an archive of ``--archive``
  messages (one scope, 100 conversations). The archive is filled through the store's
  ``execute`` with the wing's own ``RecordEntry`` commands, 1,000 per transaction — the rows and
  index a real ``add`` writes, without their recallable memories (which archive search never
  reads), so filling 100k takes seconds, not the ~20 minutes of 100k ``add`` calls here.
- **idle / recap**: under a ``ManualClock``: when the recap appears and what history shows.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, pct
from reverie import ManualClock, Memory
from reverie.model.conversation import Entry, OpenConversation, RecordEntry
from reverie.model.ids import IdFactory

START = datetime(2025, 1, 1, tzinfo=UTC)
WORDS = tuple(
    [
        "garden",
        "tomato",
        "budget",
        "lisbon",
        "tram",
        "pottery",
        "class",
        "screenplay",
        "drama",
        "romance",
        "deploy",
        "release",
        "boiler",
        "water",
        "painting",
        "sunset",
        "kids",
        "puppy",
        "biscuit",
        "vet",
        "account",
        "settings",
        "meeting",
        "monday",
        "invoice",
        "travel",
        "hotel",
        "train",
    ]
)


def sentence(rng: random.Random, i: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))) + f" number {i}."


def ingest(tmp: Path, embedder: str, n: int) -> dict[str, float]:
    rng = random.Random(0)
    texts = [sentence(rng, i) for i in range(n)]
    out: dict[str, float] = {}
    for name in ("conversation", "remember"):
        with Memory(
            tmp / f"{name}-{embedder}.db", embedder=embedder, clock=ManualClock(START), durability="fast"
        ) as mem:
            mem.embedder.embed(["warm-up"])
            conv = mem.conversation("c", scope="s") if name == "conversation" else None
            start = time.perf_counter()
            for i, text in enumerate(texts):
                at = START - timedelta(days=1) + timedelta(seconds=i)
                who = "Alice" if i % 2 else "Bob"
                if conv is not None:
                    conv.add(text, speaker=who, at=at)
                else:
                    mem.remember(text, scope="s", author=who, valid_from=at)
            out[name] = n / (time.perf_counter() - start)
    out["cost_ratio"] = out["remember"] / out["conversation"]
    return out


def archive(tmp: Path, n: int, queries: int) -> dict[str, float]:
    rng = random.Random(1)
    clock = ManualClock(START)
    with Memory(tmp / "archive.db", embedder="hash", clock=clock, durability="fast", seed=0) as mem:
        store = mem.store
        ids = IdFactory(0)

        def new_id() -> str:
            return ids.new(START)

        convs = [f"conv-{c}" for c in range(100)]
        store.execute([OpenConversation("s", c) for c in convs], now=START, new_id=new_id, vectors={})
        position = dict.fromkeys(convs, 0)
        start = time.perf_counter()
        texts: list[str] = []
        for batch in range(0, n, 1000):
            commands = []
            for i in range(batch, min(n, batch + 1000)):
                c = convs[i % len(convs)]
                text = sentence(rng, i)
                texts.append(text)
                entry = Entry(id=new_id(), scope="s", conversation=c, kind="message", text=text,
                              at=START, speaker="Alice", role="user")  # fmt: skip
                commands.append(RecordEntry("s", entry, position[c]))
                position[c] += 1
            store.execute(commands, now=START, new_id=new_id, vectors={})
        fill_s = time.perf_counter() - start
        times: list[float] = []
        for _ in range(queries):
            words = rng.choice(texts).split()
            at = rng.randrange(0, max(1, len(words) - 3))
            quote = " ".join(words[at : at + 3])
            t0 = time.perf_counter()
            hits = mem.archive_search(quote, scope="s", k=10)
            times.append((time.perf_counter() - t0) * 1000)
            assert hits, quote
        rare = []
        for i in rng.sample(range(n), 50):
            t0 = time.perf_counter()
            assert mem.archive_search(f"number {i}", scope="s", k=10)
            rare.append((time.perf_counter() - t0) * 1000)
    return {"messages": n, "fill_s": fill_s, "p50_ms": pct(times, 50), "p95_ms": pct(times, 95),
            "rare_p50_ms": pct(rare, 50), "rare_p95_ms": pct(rare, 95)}  # fmt: skip


def idle_recap() -> list[str]:
    clock = ManualClock(START)
    lines = []
    with Memory(":memory:", embedder="hash", clock=clock, seed=0) as mem:
        conv = mem.conversation("c", scope="s")
        conv.add("I am planning a trip to Lisbon in May.", speaker="Alice")
        conv.add("Book the tram tour early.", speaker="Bot", role="assistant")
        for minutes in (10, 19, 1):
            clock.advance(minutes=minutes)
            recap = mem.recap(scope="s")
            lines.append(
                f"+{minutes:2d} min: history {len(conv.history())} entries, recap {'yes' if recap else 'none'}"
            )
        recap = mem.recap(scope="s")
        lines.append(f"recap text: {recap.text if recap else None!r}")
        conv.add("back from Lisbon!", speaker="Alice")
        lines.append(f"next message opens session {conv.state().session}; history {len(conv.history())} entry")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--messages", type=int, default=500)
    ap.add_argument("--archive", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--embedder", choices=["hash", "minilm", "both"], default="both")
    args = ap.parse_args()
    embedders = ["hash", "minilm"] if args.embedder == "both" else [args.embedder]
    with threadpool_limits(limits=1), tempfile.TemporaryDirectory(prefix="reverie-conv-ops-") as tmp:
        for emb in embedders:
            r = ingest(Path(tmp), emb, args.messages)
            print(f"ingest [{emb}] {args.messages} messages: conv.add {r['conversation']:.1f} msg/s, "
                  f"remember {r['remember']:.1f} msg/s, cost x{r['cost_ratio']:.2f}")  # fmt: skip
        if args.archive:
            a = archive(Path(tmp), args.archive, args.queries)
            print(f"archive search at {a['messages']} messages (filled in {a['fill_s']:.1f} s): 3-word quotes "
                  f"p50 {a['p50_ms']:.2f} ms p95 {a['p95_ms']:.2f} ms; rare quotes p50 {a['rare_p50_ms']:.2f} ms "
                  f"p95 {a['rare_p95_ms']:.2f} ms")  # fmt: skip
    for line in idle_recap():
        print(line)
    print(f"machine: {machine()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
