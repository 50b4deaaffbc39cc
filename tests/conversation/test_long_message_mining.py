"""Mining one long message: work linear in its names, and the write lock held in bounded steps.

Outside probe 2, finding 11: closing a conversation whose one message (in the text limit) said
"my cousin X lives in Y" ~860 times took ~40 s, quadratic in the names, all under the file's
write lock, and another process could not even open the store ("database is locked"). Two costs
grew with what the same message had already enrolled: each new ``derived_from`` link's cycle check
read every edge into the message's memory (one per claim so far), and each mention was compared
with every person of the scope. Work is counted here, not timed: SQLite's own progress handler
(called every 100 virtual-machine instructions, full-text ranking aside) and the calls of the
memoised ``names.tokens`` (each comparison of a mention with a name calls it).
"""

from __future__ import annotations

import json
import random
import sqlite3
import string
import subprocess
import sys
import time
from pathlib import Path

from reverie import Limits, Memory
from reverie.conversation.people.names import tokens
from reverie.store.sqlite.store import SQLiteStore

SCOPE = "user:alice"


def _cousins(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)

    def name() -> str:
        return rng.choice(string.ascii_uppercase) + "".join(rng.choice("aeioulnrst") for _ in range(6))

    return ". ".join(f"my cousin {name()} lives in {name()}" for _ in range(n)) + "."


def _conn(mem: Memory) -> sqlite3.Connection:
    store = mem.store
    assert isinstance(store, SQLiteStore)
    return store._conn


def _close_work(tmp_path: Path, sentences: int) -> tuple[int, int, int]:
    """(SQLite VM work in steps of 100 instructions, ``tokens`` calls, claims) of one close."""
    path = tmp_path / f"w{sentences}.db"
    limits = Limits(max_claims_per_message=10_000)  # every claim is mined: the work of all of them
    with Memory(path, embedder="hash", limits=limits, seed=7) as mem:
        conv = mem.conversation("c", scope=SCOPE)
        conv.add(_cousins(sentences), speaker="Alice", role="user")
        steps = [0]
        ranking = [False]

        def statement(sql: str) -> None:
            # Full-text ranking (the MATCH query and the statements FTS5 runs inside it, traced
            # as "-- ...") is bounded on its own, per query, by ``fts_budget.LEXICAL_BUDGET``.
            ranking[0] = sql.startswith("--") or " MATCH " in sql

        def tick() -> int:
            steps[0] += not ranking[0]
            return 0

        _conn(mem).set_trace_callback(statement)
        _conn(mem).set_progress_handler(tick, 100)
        before = tokens.cache_info()
        closed = conv.close()
        after = tokens.cache_info()
        _conn(mem).set_progress_handler(None, 0)
        _conn(mem).set_trace_callback(None)
    assert closed.extraction is not None and not closed.extraction.skipped
    calls = (after.hits + after.misses) - (before.hits + before.misses)
    return steps[0], calls, len(closed.extraction.claims)


def test_mining_one_message_does_work_linear_in_its_names(tmp_path: Path) -> None:
    small_sql, small_names, small_claims = _close_work(tmp_path, 60)
    big_sql, big_names, big_claims = _close_work(tmp_path, 120)
    assert big_claims == 2 * small_claims > 0
    # Twice the names: about twice the work (quadratic was about four times).
    assert big_sql < 2.4 * small_sql, (small_sql, big_sql)
    assert big_names < 2.4 * small_names, (small_names, big_names)


def test_a_message_gives_at_most_max_claims_per_message_and_the_rest_are_reported(tmp_path: Path) -> None:
    with Memory(tmp_path / "cap.db", embedder="hash", limits=Limits(max_claims_per_message=20)) as mem:
        conv = mem.conversation("c", scope=SCOPE)
        conv.add(_cousins(15), speaker="Alice", role="user")  # 30 claims proposed
        report = conv.close().extraction
        assert report is not None
        assert len(report.claims) == 20
        over = [s for s in report.skipped if s.reason.startswith("limit_exceeded")]
        assert len(over) == 10
        assert all("max_claims_per_message" in s.reason and s.text for s in over)
        assert report.messages_mined == 1
        # Mined once: a second extraction writes nothing more (the message carries its mark).
        again = conv.extract()
        assert again.claims == [] and again.messages_already_mined == 1


def test_a_session_is_written_in_chunks_each_under_its_own_lock(tmp_path: Path) -> None:
    with Memory(tmp_path / "chunks.db", embedder="hash", limits=Limits(max_claims_per_message=10)) as mem:
        conv = mem.conversation("c", scope=SCOPE)
        for seed in range(3):
            conv.add(_cousins(4, seed=seed), speaker="Alice", role="user")  # 8 claims each
        traced: list[str] = []
        _conn(mem).set_trace_callback(traced.append)
        report = conv.close().extraction
        _conn(mem).set_trace_callback(None)
    assert report is not None and not report.skipped
    assert len(report.claims) == 24 and report.messages_mined == 3  # nothing lost to the chunking
    # Three holds of the lock for the three messages (8 + 8 > 10), not one for the session.
    mining = [s for s in traced if s.startswith("BEGIN IMMEDIATE")]
    assert len(mining) >= 3


def _long_message() -> str:
    """About 860 sentences, just under ``Limits.max_text_chars``: the outside tester's message."""
    text = _cousins(1_000)
    return text[: text.rfind(".", 0, 31_990) + 1]


def test_another_process_writes_another_scope_while_a_long_message_is_mined(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Memory(db, embedder="hash") as mem:
        mem.conversation("c", scope=SCOPE).add(_long_message(), speaker="Alice", role="user")
    worker = Path(__file__).with_name("long_close_worker.py")
    procs = [
        subprocess.Popen([sys.executable, str(worker), mode, str(db), str(tmp_path)]) for mode in ("close", "write")
    ]
    ready = [tmp_path / "ready-close", tmp_path / "ready-write"]
    while not all(p.exists() for p in ready):  # both started; then both go at once
        assert all(p.poll() is None for p in procs), "a worker died before the start line"
        time.sleep(0.01)
    (tmp_path / "go").touch()
    assert [p.wait() for p in procs] == [0, 0]
    closed = json.loads((tmp_path / "close.json").read_text())
    wrote = json.loads((tmp_path / "write.json").read_text())
    assert wrote["errors"] == [], wrote  # was: StorageError "database is locked" after 30 s
    assert wrote["written"] >= 1
    cap = Limits().max_claims_per_message
    assert closed["claims"] == cap  # the first ones; the rest reported, not silently dropped
    assert closed["skipped"] and all(r.startswith("limit_exceeded") for r in closed["skipped"])
    with Memory(db, embedder="hash") as mem:
        assert len(mem.list(scope="user:bob", limit=1_000).items) == wrote["written"]
