"""A dream pass on PostgreSQL plans and applies what the same pass does on SQLite.

The pass's conflict rechecks run lexical searches inside its batch transactions, between its
own writes (``store/postgres/scopestats.py`` keeps a write transaction's scope figures): the
report (actions, outcomes, attention, stats) and the scope's log after it must match SQLite's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from reverie import Memory
from reverie.dream import DreamConfig

S = "user:alice"
_WORDS = [
    "tea",
    "coffee",
    "green",
    "black",
    "juice",
    "cats",
    "dogs",
    "lisbon",
    "porto",
    "jazz",
    "piano",
    "runs",
    "swims",
    "reads",
    "early",
    "late",
]


def _seed(mem: Memory) -> None:
    rng = random.Random(7)
    texts = [" ".join(rng.choices(_WORDS, k=rng.randint(3, 7))) for _ in range(120)]
    mem.remember_many(texts[:60], scope=S)
    for i, text in enumerate(texts[60:]):
        mem.remember(text, scope=S, key=f"k{i % 9}", value=str(i % 4))
    mem.remember("Alice likes green tea", scope=S)
    mem.remember("Alice likes green tea a lot", scope=S)
    mem.remember("Alice does not like green tea", scope=S)


def _pass(mem: Memory) -> str:
    _seed(mem)
    report = mem.dream(scope=S, config=DreamConfig(apply_batch=16))
    events = [(e.seq, e.type, e.payload) for e in mem.store.events(S, limit=100_000)]
    return json.dumps({"report": report.to_dict(), "events": events}, sort_keys=True, default=str)


def test_a_pass_on_postgres_matches_the_same_pass_on_sqlite(memories, pg_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    on_pg = _pass(memories.open(pg_url, detect_conflicts=False))
    on_sqlite = _pass(memories.open(tmp_path / "a.db", detect_conflicts=False))
    report = json.loads(on_pg)["report"]
    assert any(a["op"] == "detect_conflicts" for a in report["actions"])  # the rechecks ran
    assert on_pg == on_sqlite
