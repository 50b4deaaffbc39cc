"""The usage capability: which queries used which items.

Why its own module: use is the signal value reinforcement, decay resets and graduation learn
from, so what counts as "used" is a policy of its own, kept apart from ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reverie.errors import InvalidInputError
from reverie.memory.core import Core
from reverie.model import commands as cmd
from reverie.model.validate import check_id, check_score, check_unicode


class Usage:
    """``record_use`` over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def record_use(self, scope: str, uses: Sequence[tuple[str, float]], query: str) -> None:
        """Record that ``query`` used these items (weights in (0, 1]). Recall records its own uses for
        you, without waiting for another writer (``record_recalled``); this call is a write like any other."""
        core = self._core
        s = core.scope(scope)
        if isinstance(uses, str) or not isinstance(uses, Iterable):
            raise InvalidInputError("uses must be a list of (item id, weight) pairs")
        checked = tuple(_use(u) for u in uses)
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
        check_unicode(query, "query")
        if checked:
            core.run([cmd.RecordUse(s, checked, query[: core.limits.max_query_chars])])

    def record_recalled(self, scope: str, uses: Sequence[tuple[str, float]], query: str) -> None:
        """A recall's use (``scope`` checked, ``uses`` built from its hits): written now if the write
        lock is free, else kept in order for later, with the recall's time (``pending_uses``), so
        a read never queues behind another process's long write."""
        core = self._core
        use = cmd.RecordUse(scope, tuple(uses), query[: core.limits.max_query_chars])
        core.pending_uses.record(use, core.clock.now())


def _use(entry: object) -> tuple[str, float]:
    """One (item id, weight) pair of ``record_use``; weight in (0, 1] (it scales reinforcement)."""
    if not isinstance(entry, tuple | list) or len(entry) != 2:
        raise InvalidInputError("each use is an (item id, weight) pair")
    weight = check_score("weight", entry[1])
    if weight <= 0.0:
        raise InvalidInputError("a use weight must be in (0, 1]")
    return check_id(entry[0]), weight
