"""Child-process bodies for the purge crash test (importable by ``multiprocessing``'s spawn)."""

from __future__ import annotations

import os
import signal

SCOPE = "user:alice"


def purge_killed_before_scrub(path: str, canary: str) -> None:
    """Write a claim quoting ``canary`` among others, then purge it and SIGKILL this process the
    moment the purge has committed, before the file scrub (``SQLiteStore._scrub_hook``)."""
    from reverie import Memory

    mem = Memory(path, embedder="hash")
    for i in range(60):  # pages to fill and free, so old content has somewhere to linger
        mem.remember(f"note {i}: box {i * 7} is on shelf {i % 5}", scope=SCOPE)
    secret = mem.remember(f"the alarm code is {canary}", scope=SCOPE, tags=[canary], meta={"c": canary})
    mem.record_use(SCOPE, [(secret.id, 0.5)], f"alarm {canary}")
    revised = mem.revise(secret.id, f"the alarm code is {canary} (new)", scope=SCOPE, reason=f"{canary} rotated")
    for i in range(60, 80):
        mem.remember(f"note {i}: written after the secret", scope=SCOPE)

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    mem.store._scrub_hook = die  # type: ignore[attr-defined]
    mem.forget(revised.id, scope=SCOPE, reason="erasure request", purge=True)
    raise SystemExit(3)  # the hook did not run: the parent sees exit code 3, not SIGKILL
