"""Writes ``old_intent_log.json``: a log of intent moves as the code before intent-move deltas wrote it.

Run with that tree's ``src`` first on the path (the checkout of main before the change)::

    PYTHONPATH=/work/wt/intentdelta-old/src .venv/bin/python tests/intents/data/write_old_intent_log.py \
        <its commit> > tests/intents/data/old_intent_log.json

Every move's event then carries the whole intent (label, claim ids, a principal's blind quotes).
Kept so the fixture can be read and remade; ``test_intent_move_deltas.py`` replays it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import reverie
from reverie import ManualClock, Memory

SCOPE = "user:alice"
BOB, OPS = "agent:bob", "agent:ops"

with tempfile.TemporaryDirectory() as tmp:
    clock = ManualClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    with Memory(Path(tmp) / "old.db", embedder="hash", clock=clock, seed=0) as mem:

        def tick() -> None:
            clock.advance(timedelta(seconds=1))

        claim = mem.remember("Alice may be allergic to peanuts", scope=SCOPE).id
        tick()
        hidden = mem.remember("the clinic's door code is 4471", scope=SCOPE, visibility=[OPS]).id
        tick()
        goal = mem.intents.create(
            f"find out about Alice's allergy, see {claim}",
            scope=SCOPE,
            memory_ids=[claim, hidden],
            owner="agent:lead",
            priority=0.8,
            reason="she asked",
        )
        tick()
        sub = mem.intents.create("ask her doctor", scope=SCOPE, parent=goal.id, memory_ids=[claim])
        tick()
        mem.intents.pause(goal, scope=SCOPE, reason=f"waiting on {hidden}")  # the owner's words: cut for bob
        tick()
        bob = mem.as_principal(BOB)
        bob.intents.pause(sub, scope=SCOPE, reason=f"bob waits on {hidden}")  # bob's blind quote: shown as written
        tick()
        bob.intents.resume(sub, scope=SCOPE, reason="the doctor called back")
        tick()
        mem.intents.resume(goal, scope=SCOPE)
        tick()
        mem.intents.complete(sub, scope=SCOPE, reason="peanuts confirmed")
        tick()
        other = mem.intents.create("book a table", scope=SCOPE, priority=0.2)
        tick()
        mem.intents.cancel(other, scope=SCOPE, reason="not needed")
        tick()
        mem.intents.pause(goal, scope=SCOPE, reason="weekend")
        events = [e.to_dict() for e in mem.events(scope=SCOPE, limit=10_000)]
        assert all("delta" not in e["payload"] for e in events), "run this with the tree before intent-move deltas"
        out = {
            "written_by": "reverie before intent-move deltas (main " + sys.argv[1] + ")",
            "hidden": hidden,
            "principal": BOB,
            "events": events,
            "intents": [i.to_dict() for i in mem.intents.list(scope=SCOPE, limit=100)],
            "intents_as_bob": [i.to_dict() for i in bob.intents.list(scope=SCOPE, limit=100)],
            "events_as_bob": [e.to_dict() for e in bob.events(scope=SCOPE, limit=10_000)],
        }
print(json.dumps(out, indent=1, sort_keys=True))
print(f"written by {reverie.__file__}", file=sys.stderr)
