"""Keep-budget in a conversation scope: do the mined facts outlive the raw turns they came from?

    python bench/chat_retention.py [--conversations 20] [--turns 12] [--seed 7] [--json out.json]

(also run as part 3 of ``bench/dream_retention.py``). A seeded scope of closed conversations,
written through the public conversation API: in each, Alice says ``turns`` things — about half of
them facts the rule extractor mines ("I live in Nezeba.", "My dog is called Zesuko.", a hedge
now and then), the rest chit-chat — and the assistant acknowledges each. Closing a conversation
mines its facts into claims whose ``parents`` are their messages' memories. Conversations are
spread over 120 days and nothing is used since, so the keep score sees only what the items carry.

Under keep budgets of 50 / 30 / 10 % of the scope's current items, one dream pass runs on a copy
of the store; the table gives the share kept of each class: extracted claims, the messages they
were mined from, the other messages, and person records, and the gists and pattern items the pass
made (current items too; the pattern step runs after the budget step, so they may exceed it). A
second pass a day later (no budget change) shows whether the claims kept their footing: "claims
stale" counts claims flagged ``stale_derived`` or demoted by it. What a user wants: the claims
are the distilled value; a raw turn (kept word for word in the conversation archive anyway) goes
first.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig
from reverie.model.records import is_message_memory

S = "bench:chat"
T0 = datetime(2025, 1, 1, tzinfo=UTC)
BUDGETS = (0.5, 0.3, 0.1)
FACTS = (
    "I live in {w}.",
    "I work as a {l} engineer.",
    "My favourite food is {l} soup.",
    "I am allergic to {l}.",
    "I prefer {l} tea in the morning.",
    "My dog is called {w}.",
    "I play the {l} on weekends.",
    "I think I might move to {w} next year.",  # a hedge: mined as a low-salience hypothesis
)
CHAT = ("What time is it?", "Ok thanks.", "Haha, that is funny.", "Can you say that again?", "Good morning!")
SYLLABLES = ("ba", "ko", "ri", "ta", "mu", "ze", "lo", "ne", "vi", "su", "da", "pe")


def build_chat_store(path: Path, conversations: int, turns: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    clock = ManualClock(T0)
    with Memory(path, embedder="hash", clock=clock, seed=1, durability="fast", detect_conflicts=False) as mem:
        for c in range(conversations):
            clock.set(T0 + timedelta(days=120 * c / max(1, conversations)))
            conv = mem.conversation(f"chat-{c}", scope=S)
            for _ in range(turns):
                if rng.random() < 0.5:
                    word = "".join(rng.choice(SYLLABLES, size=3).tolist())
                    line = FACTS[int(rng.integers(len(FACTS)))].format(w=word.capitalize(), l=word)
                else:
                    line = CHAT[int(rng.integers(len(CHAT)))]
                conv.add(line, speaker="Alice", role="user")
                clock.advance(minutes=1)
                conv.add("Noted.", speaker="Bot", role="assistant")
                clock.advance(minutes=1)
            conv.close()


def _classes(mem: Memory) -> dict[str, set[str]]:
    items = mem.store.query(S, _live(), _sort(), limit=10**9)
    claims = {i.id for i in items if "extracted" in i.meta and i.kind != "person"}
    mined = {p for i in items if i.id in claims for p in i.parents}
    messages = {i.id for i in items if is_message_memory(i)}
    return {
        "claims": claims,
        "mined_messages": messages & mined,
        "other_messages": messages - mined,
        "persons": {i.id for i in items if i.kind == "person"},
        "gists": {i.id for i in items if i.meta.get("dream") == "gist"},  # made by the pass
        "patterns": {i.id for i in items if i.meta.get("dream") == "pattern"},  # made after the budget step
    }


def chat_retention(work: Path, conversations: int = 20, turns: int = 12, seed: int = 7) -> list[dict[str, Any]]:
    src = work / "chat.db"
    build_chat_store(src, conversations, turns, seed)
    with Memory(src, embedder="hash") as mem:
        start = _classes(mem)
    total = sum(len(v) for v in start.values())
    rows = []
    for frac in BUDGETS:
        budget = round(frac * total)
        dst = work / f"chat-{budget}.db"
        with Memory(src, embedder="hash") as mem:
            mem.backup(dst)
        clock = ManualClock(T0 + timedelta(days=180))
        cfg = DreamConfig(keep_budget=budget)
        with Memory(dst, embedder="hash", clock=clock, seed=2, durability="fast", detect_conflicts=False) as mem:
            mem.dream(scope=S, config=cfg)
            current = {i.id for i in mem.store.query(S, _live(), _sort(), limit=10**9)}
            made = _classes(mem)
            clock.advance(days=1)
            second = mem.dream(scope=S, config=cfg)
            stale = second.ids("provenance", "applied") & current & start["claims"]
        row: dict[str, Any] = {"budget": frac, "items": total, "kept": len(current)}
        for name, ids in start.items():  # each class as it was before the pass
            if name not in ("gists", "patterns"):
                row[f"{name}_kept"] = len(current & ids) / max(1, len(ids))
        row["gists"], row["patterns"] = len(made["gists"]), len(made["patterns"])
        row["claims_stale_after_second_pass"] = len(stale)
        rows.append(row)
    sizes = ", ".join(f"{len(v)} {k}" for k, v in start.items() if k not in ("gists", "patterns"))
    print(f"\nchat retention: {conversations} conversations x {turns} turns: {total} items ({sizes}); seed {seed}")
    return rows


def print_chat(rows: list[dict[str, Any]]) -> None:
    print(
        "\n| budget | current after | claims | messages mined | other messages | persons | gists made "
        "| patterns made | claims stale (2nd pass) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['budget']:.0%} | {r['kept']} / {r['items']} | {r['claims_kept']:.1%} "
            f"| {r['mined_messages_kept']:.1%} | {r['other_messages_kept']:.1%} | {r['persons_kept']:.1%} "
            f"| {r['gists']} | {r['patterns']} "
            f"| {r['claims_stale_after_second_pass']} |"
        )


def _live() -> Any:
    from reverie import Q

    return Q.status("live")


def _sort() -> Any:
    from reverie.model.query import parse_sort

    return parse_sort(["id"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=20)
    ap.add_argument("--turns", type=int, default=12, help="user turns per conversation (each acknowledged)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="reverie-chat-bench-") as work:
        rows = chat_retention(Path(work), args.conversations, args.turns, args.seed)
    print_chat(rows)
    if args.json:
        args.json.write_text(json.dumps({"chat_retention": rows}, indent=2))


if __name__ == "__main__":
    main()
