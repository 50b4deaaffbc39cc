"""What the people list costs on a scope with many people, and what filling it would cost.

    .venv/bin/python bench/people_list.py [--people 300] [--rounds 5] [--db PATH] [--json out]

Scope: ``--people`` persons (given names from ``people/given_names.py``, a surname each), named
through the public conversation path — per person "My <relation> <name> lives in <place>." and
"<name> loves jazz and works at a bank.", said by Alice, 50 people per conversation, closed — so
each person has a relation (about them and Alice) and about four claims. ``--db`` keeps the
built file for the next run (building 300 people takes about a minute here).

Measured (process CPU time, median of ``--rounds``; CPU because 2 cores are shared here):

- ``names``  — the person book alone (every name and alias edge): the old list, which left
  relations and claims out (and reported them empty);
- ``list``   — ``mem.people``: every person with relations and a claim count (one read of the
  scope's ``about`` edges, one ``get_many`` of the claims);
- ``person_each`` — ``mem.person(id)`` for every person: what a caller pays to have every
  person's relations and claims one by one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine
from reverie import ManualClock, Memory
from reverie.conversation.people.book import Book
from reverie.conversation.people.given_names import ALL as GIVEN_NAMES

SCOPE = "s"
RELATIONS = ("sister", "friend", "colleague", "cousin", "neighbour")
PLACES = ("Leeds", "York", "Porto", "Oslo", "Lisbon")


def build(mem: Memory, n: int) -> None:
    given = sorted(g.capitalize() for g in GIVEN_NAMES)[:n]
    for start in range(0, len(given), 50):
        conv = mem.conversation(f"c{start}", scope=SCOPE)
        for i, g in enumerate(given[start : start + 50]):
            name = f"{g} Nowak{start + i}"
            conv.add(f"My {RELATIONS[i % 5]} {name} lives in {PLACES[i % 5]}.", speaker="Alice", role="user")
            conv.add(f"{name} loves jazz and works at a bank.", speaker="Alice", role="user")
        conv.close()


def cpu_ms(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    path = args.db or Path(tempfile.mkdtemp()) / "people.db"
    fresh = not path.exists()
    mem = Memory(str(path), embedder="hash", clock=ManualClock(), seed=0, durability="fast")
    if fresh:
        build(mem, args.people)
    listed = mem.people(scope=SCOPE)
    with threadpool_limits(1):
        found: dict[str, Any] = {
            "people": len(listed),
            "claims": sum(p.claim_count for p in listed),
            "relations": sum(len(p.relations) for p in listed),
            "names_ms": cpu_ms(lambda: Book(mem.store, SCOPE), args.rounds),
            "list_ms": cpu_ms(lambda: mem.people(scope=SCOPE), args.rounds),
            "person_each_ms": cpu_ms(lambda: [mem.person(p.id, scope=SCOPE) for p in listed], max(1, args.rounds // 2)),
            "machine": machine(),
        }
    mem.close()
    for key, value in found.items():
        if key != "machine":
            print(f"{key:<16} {value}")
    if args.json:
        args.json.write_text(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
