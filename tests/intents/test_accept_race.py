"""Promise: one suggestion makes at most one intent, even when two callers accept it at once.

``intents.accept`` re-checks a suggestion (its claim still current, no open intent about it yet)
and then creates the intent. The check used to run outside the write's transaction, so two
accepts racing on one store both passed it and both wrote (two intents about one claim). The race
is driven deterministically: two ``Memory`` instances on one real SQLite file (and one real
PostgreSQL database); the first one's clock (read when its write is built, after the check) holds
it there while the second accepts the same suggestion. Fixed, the check and the write are one
step under the store's write lock: the second accept waits for the first, sees its intent and is
refused with ``NotFoundError`` naming it.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from reverie import ManualClock, Memory, NotFoundError

SCOPE = "user:alice"
START = datetime.fromisoformat("2026-03-01T09:00:00+00:00")
#: How long the test lets the second accept run while the first is held. On the old code the
#: second accept finishes in milliseconds; fixed, it waits for the first one's write lock, and
#: this wait only bounds how long the test lets it try before releasing the first.
_LET_SECOND_TRY_S = 1.0


class GatedClock:
    """A ``ManualClock`` that, once ``arm``-ed, holds the first caller of ``now`` until ``go``."""

    def __init__(self, start: datetime) -> None:
        self._inner = ManualClock(start)
        self._armed = False
        self.reached = threading.Event()
        self.go = threading.Event()

    def arm(self) -> None:
        self._armed = True

    def now(self) -> datetime:
        if self._armed and not self.reached.is_set():
            self.reached.set()
            assert self.go.wait(60), "the test never released the held accept"
        return self._inner.now()


def _outcome(call: Any, into: dict[str, Any], done: threading.Event) -> None:
    try:
        into["intent"] = call()
    except BaseException as exc:  # reported to the test thread
        into["error"] = exc
    finally:
        done.set()


def test_two_accepts_of_one_suggestion_racing_make_exactly_one_intent(store_url: str) -> None:
    owner = Memory(store_url, embedder="hash", clock=ManualClock(START), seed=0)
    gate = GatedClock(START)
    other = Memory(store_url, embedder="hash", clock=gate, seed=1)
    try:
        owner.remember("Alice may be allergic to peanuts", scope=SCOPE, importance=0.9, authority=0.2)
        suggestion = owner.intents.suggest(scope=SCOPE)[0]
        first: dict[str, Any] = {}
        second: dict[str, Any] = {}
        first_done, second_done = threading.Event(), threading.Event()
        gate.arm()
        a = threading.Thread(target=_outcome, args=(lambda: other.intents.accept(suggestion), first, first_done))
        a.start()
        assert gate.reached.wait(60), "the first accept never reached its write"
        b = threading.Thread(target=_outcome, args=(lambda: owner.intents.accept(suggestion), second, second_done))
        b.start()
        second_done.wait(_LET_SECOND_TRY_S)  # old code: done already; fixed: waiting for the lock
        gate.go.set()
        a.join(60)
        b.join(60)
        outcomes = [first, second]
        won = [o["intent"] for o in outcomes if "intent" in o]
        lost = [o["error"] for o in outcomes if "error" in o]
        assert len(won) == 1, f"{len(won)} accepts won: {won}"
        assert len(lost) == 1 and isinstance(lost[0], NotFoundError), lost
        assert f"open intent {won[0].id} is already about it" in lost[0].message
        assert [i.id for i in owner.intents.list(scope=SCOPE)] == [won[0].id]
    finally:
        gate.go.set()
        other.close()
        owner.close()
