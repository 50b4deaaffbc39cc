"""The registry behind the ``memories`` fixture, importable by name.

Tests that annotate with it import it from here: ``from conftest import …`` picks whichever
``conftest`` module pytest loaded first (``tests/intents/conftest.py`` in a whole run), so it
works for one directory and fails for the suite.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reverie import ClosedError, ManualClock, Memory
from reverie.store.reference import ReferenceStore


class MemoryRegistry:
    """Opens memories for a test, then doctors and closes each of them afterwards."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self._opened: list[tuple[Memory, Path | str | None]] = []
        #: Run after every memory is checked and closed (a test database is dropped only then).
        self.after_close: list[Callable[[], None]] = []

    def open(self, path: str | Path | None = None, *, reference: bool = False, **kwargs: Any) -> Memory:
        kwargs.setdefault("embedder", "hash")
        kwargs.setdefault("clock", self.clock)
        kwargs.setdefault("seed", 0)
        if reference:
            mem = Memory(store=kwargs.pop("store", None) or ReferenceStore(), **kwargs)
            self._opened.append((mem, None))
            return mem
        assert path is not None, "a SQLite memory needs a path (use tmp_path, or ':memory:')"
        mem = Memory(path, **kwargs)
        file: Path | str | None = Path(path) if str(path) != ":memory:" else None
        if str(path).startswith("postgresql://"):
            file = str(path)  # reopened by URL, like a file
        self._opened.append((mem, file))
        return mem

    def check_and_close(self) -> list[str]:
        problems: list[str] = []
        for mem, path in self._opened:
            try:
                report = mem.doctor()
            except ClosedError:
                if path is None:
                    continue  # an in-memory store closed by the test is gone; nothing to check
                with Memory(path, embedder="hash") as again:
                    report = again.doctor()
            finally:
                mem.close()
            if not report.ok:
                problems.append(f"{path or 'in-memory store'}: {report.problems}")
        for done in self.after_close:
            done()
        return problems
