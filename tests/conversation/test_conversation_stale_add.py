"""Promise: an ``add`` that read the previous turns before a purge or a narrowing committed never
writes a memory quoting what was purged, or quoting a message to whom may no longer see it.

A message's memory quotes the previous turns of its session. ``add`` reads them, embeds the
memory (no lock held), then writes; a purge or ``set_visibility`` committing in between used to
leave the conversation's position unmoved, so the stale write passed its check and the purged
words (or the now hidden ones) came back in the new memory's context. The race is driven
deterministically: two ``Memory`` instances on one real SQLite file (and again on one real
PostgreSQL database); the first one's embedder (a real ``HashEmbedder`` behind a
``threading.Event`` gate) pauses it after its read, the second purges or narrows, then the first
goes on: its write is refused as stale and runs again, under the write lock, from a fresh read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from reverie import ManualClock, Memory
from reverie.embed import HashEmbedder

SCOPE = "team:a"
CONV = "chat"
SECRET = "my locker code is zq4242"
START = datetime.fromisoformat("2026-03-01T09:00:00+00:00")


class GatedEmbedder:
    """A ``HashEmbedder`` that, the first time it embeds a text containing ``trigger``, says so
    (``reached``) and waits for ``go``: the point between an ``add``'s read and its write."""

    def __init__(self, trigger: str) -> None:
        self._inner = HashEmbedder()
        self.trigger = trigger
        self.reached = threading.Event()
        self.go = threading.Event()

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> Any:
        if not self.reached.is_set() and any(self.trigger in t for t in texts):
            self.reached.set()
            assert self.go.wait(60), "the test never released the paused add"
        return self._inner.embed(texts)


Step = Callable[[Memory, str], Any]


def _race(db: str, clock: ManualClock, visibility: Sequence[str], trigger: str, paused: Step, meanwhile: Step) -> Any:
    """Two turns (the first says ``SECRET``); then ``paused(mem, first_id)`` on another instance,
    held at its first embedding of a text containing ``trigger`` while ``meanwhile(owner,
    first_id)`` runs and commits; return the owner's ``Memory`` once both are done."""
    owner = Memory(db, embedder="hash", clock=clock, seed=0)
    conv = owner.conversation(CONV, scope=SCOPE, visibility=list(visibility) or None)
    first = conv.add(SECRET, speaker="ann")
    conv.add("noted, I will keep it safe", speaker="bob", role="assistant")
    gate = GatedEmbedder(trigger)
    done: dict[str, Any] = {}

    def run_paused() -> None:
        with Memory(db, embedder=gate, clock=clock, seed=1) as other:
            try:
                done["result"] = paused(other, first.id)
            except BaseException as exc:  # reported to the test thread
                done["error"] = exc
            finally:
                gate.reached.set()

    worker = threading.Thread(target=run_paused)
    worker.start()
    try:
        assert gate.reached.wait(60), "the paused call never reached its embedding"
        assert "error" not in done, done.get("error")
        meanwhile(owner, first.id)
    finally:
        gate.go.set()
        worker.join(60)
    assert "error" not in done, done.get("error")
    return owner


def _third(mem: Memory, _first: str) -> Any:
    message = mem.conversation(CONV, scope=SCOPE).add("the third turn", speaker="ann")
    assert message.position == 3  # landed once, after the purge or narrowing
    return message


def _purge(mem: Memory, first: str) -> None:
    mem.conversation(CONV, scope=SCOPE).purge(first, reason="asked")


def _narrow(mem: Memory, first: str) -> None:
    mem.conversation(CONV, scope=SCOPE).set_visibility(first, ["user:ann"], reason="private")


def _memory_texts(mem: Memory) -> str:
    items = mem.list(scope=SCOPE, include_closed=True, limit=1000).items
    return " ".join(i.text for i in items)


def test_an_add_that_read_before_a_purge_does_not_quote_the_purged_message(store_url: str) -> None:
    clock = ManualClock(START)
    mem = _race(store_url, clock, (), "the third turn", _third, _purge)
    try:
        events = " ".join(str(e.payload) for e in mem.events(scope=SCOPE, limit=10_000))
        assert "zq4242" not in _memory_texts(mem) + events
        third = [i for i in mem.list(scope=SCOPE).items if "the third turn" in i.text]
        assert len(third) == 1  # remembered once, with a context read after the purge
    finally:
        mem.close()
    if not store_url.startswith("postgresql://"):
        assert b"zq4242" not in Path(store_url).read_bytes()


def test_an_add_that_read_before_a_narrowing_does_not_quote_it_to_whom_may_not_see_it(store_url: str) -> None:
    clock = ManualClock(START)
    mem = _race(store_url, clock, ("user:ann", "user:bob"), "the third turn", _third, _narrow)
    try:
        bob = mem.as_principal("user:bob")
        seen = _memory_texts(bob) + " ".join(h.item.text for h in bob.recall("locker code third turn", scope=SCOPE))
        assert "the third turn" in seen  # bob sees the new turn ...
        assert "zq4242" not in seen  # ... but not the message narrowed away from him
        assert "zq4242" in _memory_texts(mem.as_principal("user:ann"))
    finally:
        mem.close()


def test_a_purge_that_read_before_an_add_re_writes_the_new_turns_memory_too(store_url: str) -> None:
    """The other order: the purge read the turns (to re-write the memories quoting the message),
    a third turn quoting it committed, then the purge: it must not miss the new memory."""
    clock = ManualClock(START)
    mem = _race(store_url, clock, (), "[purged]", _purge, _third)
    try:
        assert "zq4242" not in _memory_texts(mem)
        third = [i for i in mem.list(scope=SCOPE).items if "the third turn" in i.text]
        assert len(third) == 1
    finally:
        mem.close()
    if not store_url.startswith("postgresql://"):  # the retried purge, under the write lock, scrubbed it too
        assert b"zq4242" not in Path(store_url).read_bytes()


def test_a_narrowing_that_read_before_an_add_re_writes_the_new_turns_memory_too(store_url: str) -> None:
    clock = ManualClock(START)
    mem = _race(store_url, clock, ("user:ann", "user:bob"), "noted, I will keep it safe", _narrow, _third)
    try:
        seen = _memory_texts(mem.as_principal("user:bob"))
        assert "the third turn" in seen and "zq4242" not in seen
    finally:
        mem.close()
