"""Does the archive index (``conv_fts``) write one FTS5 segment per message? Counted on both write paths.

    .venv/bin/python bench/conv_fts_segments.py [--messages 2000] [--json out]

Why: FTS5 keeps a transaction's new terms in memory and writes them out as one segment at the
commit, but also whenever a statement opens a savepoint (a trigger, an upsert) after them. The
items' index had that pattern (a vector row with a trigger inserted after each item's full-text
row: a segment per item, see ``SQLiteStore._write_vectors``); this checks the archive's index.

Two public paths, each on a fresh SQLite file (hash embedder, ``durability="fast"``):

- ``add``: ``conv.add`` once per message (one transaction each, with the message's memory);
- ``import``: ``import_slice`` of a slice carrying the same messages (one transaction for all).

Each path runs twice: once with FTS5's merging turned off on both indexes (``automerge`` 0,
``crisismerge`` out of reach), so the segments left are exactly the segments *written*; and once
as shipped (default merging), giving the segments a reader sees. ``conv_fts`` is compared with
the items' index ``fts`` written in the same transactions. A segment per message would show as
``written`` = messages on the ``import`` path; one per transaction is the floor on the ``add`` path
(its merging-off run stops at ``UNMERGED_MAX`` messages: past 2,000 segments FTS5 merges regardless).
Seconds are wall time of the whole public call, write-time contradiction detection included (it,
not the index, is most of an import's time here: the synthetic messages resemble each other).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine
from reverie import ManualClock, Memory

START = datetime(2025, 1, 1, tzinfo=UTC)
SOURCE, TARGET = "user:bench", "user:copy"
#: FTS5's ``crisismerge`` ceiling: a level must hold this many segments before a forced merge.
NO_CRISIS = 100_000
#: FTS5 merges anyway once an index holds 2,000 segments (``FTS5_MAX_SEGMENT``), so the ``add`` path
#: with merging off writes fewer transactions than that, or its count would not be the segments written.
UNMERGED_MAX = 1_500


def _open(path: Path, merging: bool) -> Memory:
    """A fresh store; with ``merging`` off, FTS5 never merges either full-text index (set on the file)."""
    Memory(path, embedder="hash", seed=0).close()  # creates the schema
    if not merging:
        c = sqlite3.connect(path)
        for table in ("conv_fts", "fts"):
            c.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', 0)")  # nosec B608 # constant names
            c.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('crisismerge', {NO_CRISIS})")  # nosec B608
        c.commit()
        c.close()
    return Memory(path, embedder="hash", clock=ManualClock(START), seed=0, durability="fast")


def segments(path: Path) -> dict[str, int]:
    """Segments of each full-text index now (every segment has a row in its ``_idx`` shadow table)."""
    c = sqlite3.connect(path)
    try:
        sql = "SELECT count(DISTINCT segid) FROM {}_idx"
        return {t: int(c.execute(sql.format(t)).fetchone()[0]) for t in ("conv_fts", "fts")}
    finally:
        c.close()


def _text(i: int) -> str:
    return f"message {i}: the {['red', 'green', 'blue'][i % 3]} box of topic{i % 37} went to shelf {i * 7}"


def add_path(path: Path, n: int, merging: bool) -> float:
    with _open(path, merging) as mem:
        conv = mem.conversation("c", scope=SOURCE)
        t0 = time.perf_counter()
        for i in range(n):
            conv.add(_text(i), speaker=("Ann", "Bo")[i % 2])
        return time.perf_counter() - t0


def import_path(path: Path, slice_: Any, merging: bool) -> float:
    with _open(path, merging) as mem:
        t0 = time.perf_counter()
        mem.import_slice(slice_, scope=TARGET)
        return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    n = args.messages
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for merging in (False, True):
            p = d / f"add-{merging}.db"
            txns = n if merging else min(n, UNMERGED_MAX)
            secs = add_path(p, txns, merging)
            rows.append({"path": "add", "transactions": txns, "merging": merging, "seconds": secs, **segments(p)})
        with Memory(d / "add-True.db", embedder="hash", seed=0) as src:
            slice_ = src.export_slice(scope=SOURCE, include_conversations=True)
        for merging in (False, True):
            p = d / f"import-{merging}.db"
            secs = import_path(p, slice_, merging)
            rows.append({"path": "import", "transactions": 1, "merging": merging, "seconds": secs, **segments(p)})
    print(f"{n} messages ({min(n, UNMERGED_MAX)} on add without merging); segments of each full-text index")
    print("after the path (merging off: the segments written)\n")
    print(f"{'path':<8}{'txns':>6}  {'merging':<8}{'conv_fts':>9}{'fts':>6}{'conv_fts/txn':>14}{'seconds':>9}")
    for r in rows:
        per = r["conv_fts"] / r["transactions"]
        print(
            f"{r['path']:<8}{r['transactions']:>6}  {'on' if r['merging'] else 'off':<8}"
            f"{r['conv_fts']:>9}{r['fts']:>6}{per:>14.3f}{r['seconds']:>9.2f}"
        )
    info = machine()
    print(f"\nload average (1, 5, 15 min): {info['loadavg_1_5_15']} on {info['cpus']} CPUs; sqlite {info['sqlite']}")
    out = {"messages": n, "rows": rows, "machine": info}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    main()
