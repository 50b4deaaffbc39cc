"""Promise: several processes may add to, and close, one conversation of one store file at once.

- Appends from several processes all land, each exactly once, numbered in the order they
  committed, and each message's memory quotes the turns committed before it (never a stale
  context); no caller sees ``version_conflict``.
- Closes from several processes mine the conversation once: one of them writes the recap, the
  others find it released; the claims, people and links are those of one close, not one set per
  closer.
- A close racing appends: every message lands, each is mined exactly once, and the people it
  names are enrolled once.
- Closes of different conversations of one scope naming the same people enroll each person once.
- Purges racing appends: no memory written by an append quotes a message purged before or after
  it committed (a purge moves the conversation's revision, which every write checks).

The workers are real processes (``conversation_worker.py``) on one real SQLite file, and again on
one real PostgreSQL database (``tests/pg_server.py``); a ``go`` file starts them together once
each says it is ready.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import ManualClock, Memory, Q

pytestmark = pytest.mark.slow

SCOPE = "team:a"
CONV = "chat"
WORKER = Path(__file__).with_name("conversation_worker.py")
START = "2026-03-01T09:00:00+00:00"


def run_workers(
    tmp_path: Path, db: str, plans: list[list[dict[str, Any]]], *, clock: str, conversations: list[str] | None = None
) -> list[dict[str, Any]]:
    """Start one process per plan (on ``CONV``, or on ``conversations[n]``), release them together,
    and return each one's result."""
    go = tmp_path / "go"
    specs, paths = [], []
    for n, steps in enumerate(plans):
        spec = {
            "db": str(db),
            "scope": SCOPE,
            "conversation": conversations[n] if conversations else CONV,
            "steps": steps,
            "clock": clock,
            "start": START,
            "seed": 100 + n,
            "ready": str(tmp_path / f"ready{n}"),
            "go": str(go),
            "out": str(tmp_path / f"out{n}.json"),
        }
        path = tmp_path / f"spec{n}.json"
        path.write_text(json.dumps(spec))
        specs.append(spec)
        paths.append(path)
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(path)]) for path in paths]
    try:
        while not all(Path(s["ready"]).exists() for s in specs):
            assert all(p.poll() is None for p in procs), "a worker exited before it was ready"
            time.sleep(0.01)
        go.touch()
        for p in procs:
            assert p.wait(timeout=240) == 0, "a worker failed"
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return [json.loads(Path(s["out"]).read_text()) for s in specs]


def open_memory(db: str | Path, clock: str = "manual") -> Memory:
    """The parent's view of the file, on the workers' clock (``system``: messages stamped "now")."""
    if clock == "system":
        return Memory(db, embedder="hash")
    return Memory(db, embedder="hash", clock=ManualClock(datetime.fromisoformat(START)), seed=1)


@pytest.fixture(params=["sqlite", "postgres"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store the workers share: a SQLite file, then a fresh PostgreSQL database (``pg_url``)."""
    if request.param == "sqlite":
        return str(tmp_path / "shared.db")
    return str(request.getfixturevalue("pg_url"))


def shape(mem: Memory) -> dict[str, Any]:
    """What mining wrote, independent of ids: the items (kind, text, version), the edges and events by type."""
    items = mem.list(scope=SCOPE, limit=1000, include_closed=True).items
    return {
        "items": sorted((i.kind, i.text, i.version, i.status) for i in items if i.kind != "observation"),
        "edges": Counter(e.type for e in mem.edges(scope=SCOPE, include_closed=True)),
        "events": Counter(e.type for e in mem.events(scope=SCOPE, limit=100_000)),
    }


@pytest.mark.parametrize("clock", ["manual", "system"])
def test_appends_from_several_processes_all_land_once_in_commit_order(tmp_path: Path, shared: str, clock: str) -> None:
    db = shared
    with open_memory(db) as mem:
        mem.conversation(CONV, scope=SCOPE)
    workers, each = 4, 25
    plans = [
        [{"op": "add", "text": f"worker {w} says line {i}", "speaker": f"W{w}"} for i in range(each)]
        for w in range(workers)
    ]
    results = run_workers(tmp_path, db, plans, clock=clock)

    assert [r["errors"] for r in results] == [[]] * workers  # no version_conflict reached a caller
    with open_memory(db, clock) as mem:
        conv = mem.conversation(CONV, scope=SCOPE)
        messages = conv.messages()
        # Every message exactly once, numbered 1..n in commit order.
        assert sorted(m.text for m in messages) == sorted(s["text"] for p in plans for s in p)
        assert [m.position for m in messages] == list(range(1, workers * each + 1))
        assert [m.turn for m in messages] == list(range(1, workers * each + 1))
        by_id = {m.id: m for m in messages}
        for r in results:
            acked = r["added"]
            assert [(by_id[a["id"]].position, by_id[a["id"]].text) for a in acked] == [
                (a["position"], a["text"]) for a in acked
            ]
            assert [a["position"] for a in acked] == sorted(a["position"] for a in acked)  # each its own order
        # The log holds them in the same order: positions follow the commit order.
        added = [e for e in mem.events(scope=SCOPE, limit=100_000) if e.type == "conversation.message_added"]
        assert [e.payload["entry"]["position"] for e in added] == list(range(1, workers * each + 1))
        # Each message's memory was built from the turns committed before it, not a stale read.
        for before, m in itertools.pairwise(messages):
            (item,) = mem.list(scope=SCOPE, where=Q.meta("message", m.id), limit=5).items
            assert item.meta["turn"] == m.turn
            assert before.text in item.text, f"turn {m.turn}'s context misses turn {before.turn}"
        assert mem.doctor().ok


def test_purges_racing_appends_leave_no_memory_quoting_a_purged_message(tmp_path: Path, shared: str) -> None:
    db = shared
    with open_memory(db) as mem:
        mem.conversation(CONV, scope=SCOPE)
    rounds = 15
    talk = [{"op": "add", "text": f"worker talks line {i}", "speaker": "Bob"} for i in range(2 * rounds)]
    taken = [{"op": "add_purge", "text": f"secret zqs{i:03d}x", "speaker": "Ann"} for i in range(rounds)]
    results = run_workers(tmp_path, db, [talk, taken], clock="manual")

    assert [r["errors"] for r in results] == [[], []]
    with open_memory(db) as mem:
        texts = " ".join(i.text for i in mem.list(scope=SCOPE, limit=1000, include_closed=True).items)
        assert "zqs" not in texts, "a memory quotes a purged message"
        assert "zqs" not in " ".join(str(e.payload) for e in mem.events(scope=SCOPE, limit=100_000))
        current = mem.list(scope=SCOPE, limit=1000).items
        assert sorted(i.meta["message"] for i in current) == sorted(a["id"] for a in results[0]["added"])
        assert mem.doctor().ok


def _seed(db: str | Path, n: int) -> None:
    with open_memory(db) as mem:
        conv = mem.conversation(CONV, scope=SCOPE)
        for i in range(n):
            conv.add(f"My sister Zorvina lives in Paris{i}. I love chess{i}.", speaker="Alice")


def test_closes_from_several_processes_mine_the_conversation_once(tmp_path: Path, shared: str) -> None:
    serial = tmp_path / "serial.db"
    for db in (serial, shared):
        _seed(db, 6)
    with open_memory(serial) as mem:
        alone = mem.conversation(CONV, scope=SCOPE).close()
        expected = shape(mem)
    assert alone.recap is not None and alone.extraction.messages_mined == 6

    workers = 4
    results = run_workers(tmp_path, shared, [[{"op": "close"}]] * workers, clock="manual")

    assert [r["errors"] for r in results] == [[]] * workers
    closes = [c for r in results for c in r["closed"]]
    assert sum(c["recap"] is not None for c in closes) == 1  # one close released it, the others found it closed
    assert sum(c["mined"] for c in closes) == 6  # each message mined by exactly one closer
    with open_memory(shared) as mem:
        assert shape(mem) == expected  # the same claims, people and links as one close: nothing twice
        people = [i.text for i in mem.list(scope=SCOPE, limit=1000).items if i.kind == "person"]
        assert sorted(people) == ["Alice", "Zorvina"]
        assert mem.doctor().ok


def test_a_close_racing_appends_mines_every_message_exactly_once(tmp_path: Path, shared: str) -> None:
    db = shared
    _seed(db, 3)
    n = 20
    adder = [{"op": "add", "text": f"I love chess{i}.", "speaker": "Alice"} for i in range(3, 3 + n)]
    closer = [{"op": "close"}] * 6
    results = run_workers(tmp_path, db, [adder, closer, closer], clock="manual")

    assert [r["errors"] for r in results] == [[]] * 3
    assert len(results[0]["added"]) == n
    with open_memory(db) as mem:
        conv = mem.conversation(CONV, scope=SCOPE)
        final = conv.close()
        closes = [c for r in results for c in r["closed"]] + [
            {"mined": final.extraction.messages_mined, "recap": final.recap}
        ]
        messages = conv.messages()
        assert len(messages) == 3 + n
        assert sum(c["mined"] for c in closes) == 3 + n  # each message mined once, by one close
        assert final.extraction.messages_already_mined == 3 + n - final.extraction.messages_mined
        items = mem.list(scope=SCOPE, limit=1000).items
        claims = [i for i in items if i.kind == "trait"]
        # Every "I love chessN." became one claim, written once (a second mining would corroborate it).
        assert sorted(i.text for i in claims) == sorted(f"Alice loves chess{i}." for i in range(3 + n))
        assert [i.version for i in claims] == [1] * len(claims)
        assert sorted(i.text for i in items if i.kind == "person") == ["Alice", "Zorvina"]
        assert mem.doctor().ok


def test_an_idle_session_released_by_racing_calls_is_recapped_and_mined_once(tmp_path: Path, shared: str) -> None:
    """The idle timeout releases a session on whichever call notices first: an add, a history
    read or ``mem.recap`` in several processes all notice at once, and one release wins."""
    db = shared
    with Memory(db, embedder="hash", clock=ManualClock(datetime.fromisoformat(START) - timedelta(hours=1))) as mem:
        conv = mem.conversation(CONV, scope=SCOPE)
        for i in range(4):
            conv.add(f"I love chess{i}.", speaker="Alice")
    adder = [{"op": "add", "text": f"I love chess{i}.", "speaker": "Alice"} for i in range(4, 8)]
    plans = [adder, [{"op": "recap"}] * 3, [{"op": "history"}] * 3, [{"op": "recap"}] * 3]
    results = run_workers(tmp_path, db, plans, clock="manual")

    assert [r["errors"] for r in results] == [[]] * len(plans)
    with open_memory(db) as mem:
        entries = mem.conversation(CONV, scope=SCOPE).entries()
        recaps = [e for e in entries if e.kind == "recap"]
        assert [(r.meta["from"], r.meta["upto"]) for r in recaps] == [(1, 4)]  # the idle session, released once
        assert [e.position for e in entries] == list(range(1, len(entries) + 1))
        claims = [i for i in mem.list(scope=SCOPE, limit=1000).items if i.kind == "trait"]
        assert sorted(i.text for i in claims) == sorted(f"Alice loves chess{i}." for i in range(4))
        assert [i.version for i in claims] == [1] * 4  # mined once, by the release that won


def test_closes_of_several_conversations_naming_the_same_people_enroll_each_once(tmp_path: Path, shared: str) -> None:
    """Regression: each closer looked the names up before any of them enrolled one, so four
    conversations closed at once made up to four "Zorvina" persons."""
    names = [f"c{n}" for n in range(4)]
    with open_memory(shared) as mem:
        for name in names:
            mem.conversation(name, scope=SCOPE).add(
                "My sister Zorvina lives in Paris. My friend Quillon plays chess.", speaker="Alice"
            )
    results = run_workers(tmp_path, shared, [[{"op": "close"}]] * 4, clock="manual", conversations=names)

    assert [r["errors"] for r in results] == [[]] * 4
    with open_memory(shared) as mem:
        people = sorted(i.text for i in mem.list(scope=SCOPE, limit=1000).items if i.kind == "person")
        assert people == ["Alice", "Quillon", "Zorvina"]
        assert mem.doctor().ok
