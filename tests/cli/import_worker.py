"""A real ``reverie import`` in a process of its own that SIGKILLs itself part-way.

``python import_worker.py KILL_AFTER reverie-args...`` runs the CLI with those arguments and,
once the import has replayed ``KILL_AFTER`` units of the file (its progress callback, called
after each unit inside the import), sends itself SIGKILL: no ``finally``, no atexit, no
rollback by Python — the store sees what a crash or an OOM kill leaves. The moment is a count,
not a timer, so each run dies at the same event. Nothing of the store is replaced.
"""

from __future__ import annotations

import os
import signal
import sys

from reverie.cli import cli
from reverie.cli.state import Progress


def main() -> None:
    kill_after = int(sys.argv[1])

    def update(self: Progress, done: int, total: int) -> None:
        if done >= kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

    Progress.update = update  # type: ignore[method-assign]
    cli.main(sys.argv[2:], prog_name="reverie")


if __name__ == "__main__":
    main()
