"""Another process inside ``mem.atomic(scope=…)`` with one claim written and not committed.

The tests of reads and recalls beside a long writer (SQLite and PostgreSQL) all need the same
other process: it opens the store, enters an ``atomic`` block, writes, says "holding" through a
pipe and stays in the block until the test writes a line to it. No timed assertions: the pipe
says when it holds; ``HANG_GUARD`` only stops a hung test.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path
from types import TracebackType

HANG_GUARD = 120  # seconds: only stops a hung test, never decides a pass

_SCRIPT = """
import sys
from datetime import datetime
from reverie import Memory
from reverie.model.clock import ManualClock
target, scope, at = sys.argv[1], sys.argv[2], sys.argv[3]
clock = {"clock": ManualClock(datetime.fromisoformat(at))} if at else {}
mem = Memory(target, embedder="hash", **clock)
with mem.atomic(scope=scope):
    mem.remember("a write still in progress", scope=scope)
    print("holding", flush=True)
    sys.stdin.readline()
print("released", flush=True)
mem.close()
"""


class AtomicHolder:
    """Starts the holder and returns once it is inside its block; ``release`` lets it commit."""

    def __init__(self, target: str | Path, *, scope: str = "s", at: datetime | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SCRIPT, str(target), scope, at.isoformat() if at else ""],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "holding"

    @property
    def holding(self) -> bool:
        return self.proc.poll() is None

    def release(self) -> None:
        """Let the holder commit and exit (once; a second call does nothing)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self.proc.poll() is None and not self.proc.stdin.closed:
            self.proc.stdin.write("go\n")
            self.proc.stdin.close()
            assert self.proc.stdout.readline().strip() == "released"
            assert self.proc.wait(timeout=HANG_GUARD) == 0

    def stop(self) -> None:
        """Kill the holder if it still runs, and close its pipes (always, also after a failure)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()

    def __enter__(self) -> AtomicHolder:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
