"""Another process inside ``mem.atomic(scope=…)`` with one claim written and not committed.

The tests of reads and recalls beside a long writer (SQLite and PostgreSQL) all need the same
other process: it opens the store, enters an ``atomic`` block, writes, says "holding" through a
pipe and stays in the block until the test sends "go" through it. No timed assertions: the pipe
says when it holds; ``HANG_GUARD`` only stops a hung test.

The process is forked from a multiprocessing forkserver that has already imported reverie, not
started cold (``python -c``): a separate process all the same, with its own connection and
lock, but without an interpreter start and reverie's import per test.
"""

from __future__ import annotations

import multiprocessing as mp
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType

HANG_GUARD = 120  # seconds: only stops a hung test, never decides a pass


def hold(target: str, scope: str, at: str, pipe: Connection) -> None:
    """The holder process: write inside ``atomic``, say "holding", wait for "go", commit, say "released"."""
    from reverie import Memory
    from reverie.model.clock import ManualClock

    clock = {"clock": ManualClock(datetime.fromisoformat(at))} if at else {}
    mem = Memory(target, embedder="hash", **clock)  # type: ignore[arg-type]
    with mem.atomic(scope=scope):
        mem.remember("a write still in progress", scope=scope)
        pipe.send("holding")
        pipe.recv()
    pipe.send("released")
    mem.close()


class AtomicHolder:
    """Starts the holder and returns once it is inside its block; ``release`` lets it commit."""

    def __init__(self, target: str | Path, *, scope: str = "s", at: datetime | None = None) -> None:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["reverie", "atomic_holder"])
        self.pipe, child = ctx.Pipe()
        args = (str(target), scope, at.isoformat() if at else "", child)
        self.proc = ctx.Process(target=hold, args=args, daemon=True)
        self.proc.start()
        child.close()
        self._released = False
        assert self.pipe.poll(HANG_GUARD), "the holder did not start"
        assert self.pipe.recv() == "holding"

    @property
    def holding(self) -> bool:
        return self.proc.is_alive()

    def release(self) -> None:
        """Let the holder commit and exit (once; a second call does nothing)."""
        if self.proc.is_alive() and not self._released:
            self._released = True
            self.pipe.send("go")
            assert self.pipe.poll(HANG_GUARD), "the holder did not commit"
            assert self.pipe.recv() == "released"
            self.proc.join(HANG_GUARD)
            assert self.proc.exitcode == 0

    def stop(self) -> None:
        """Kill the holder if it still runs, and close its pipe (always, also after a failure)."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.pipe.close()

    def __enter__(self) -> AtomicHolder:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
