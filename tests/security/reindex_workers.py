"""Child-process code for the reindex tests (spawned, so it imports only reverie and the stdlib).

A child killed with SIGKILL cannot report: the parent checks the file it leaves behind.
"""

from __future__ import annotations

import os
import signal
from typing import Any

SCOPE = "s"


def new_embedder() -> Any:
    """The embedder every test reindexes *to* (same dim as the default hash embedder, another name)."""
    from reverie.embed import HashEmbedder

    return HashEmbedder(seed=1)


def reindex_killed_after_first_batch(path: str) -> None:
    """Reindex with the new embedder and SIGKILL this process as soon as one batch is done."""
    from reverie import Memory

    mem = Memory(path, embedder=new_embedder())

    def progress(done: int, total: int) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    mem.reindex(progress=progress)
    raise SystemExit(3)  # never reached: the kill comes first


def reindex_pausing_after_first_batch(path: str, paused: Any, resume: Any) -> None:
    """Reindex with the new embedder; after the first batch, let the writer run, then go on."""
    from reverie import Memory

    mem = Memory(path, embedder=new_embedder())
    first = [True]

    def progress(done: int, total: int) -> None:
        if first[0]:
            first[0] = False
            paused.set()
            if not resume.wait(120):
                raise SystemExit(4)

    mem.reindex(progress=progress)
    mem.close()


def write_between_batches(path: str, paused: Any, resume: Any, ids: dict[str, str]) -> None:
    """Once the reindexer paused: forget, revise, purge and remember, each its own transaction."""
    from reverie import Memory

    if not paused.wait(120):
        raise TimeoutError("the reindexer never finished its first batch")
    mem = Memory(path, embedder=new_embedder())
    mem.forget(ids["forget"], scope=SCOPE, reason="closed while a reindex runs")
    mem.revise(ids["revise"], "the revised wording of item to revise", scope=SCOPE, reason="between batches")
    mem.forget(ids["purge"], scope=SCOPE, reason="erased while a reindex runs", purge=True)
    mem.remember("an item written while the reindex ran", scope=SCOPE)
    mem.close()
    resume.set()
