"""The write loop shared by every backend: decide → append → project → apply, per command.

Commands of one batch run in order inside one transaction and each sees the effects of the
ones before it (two equal claims in one batch corroborate instead of duplicating). The
backend supplies the transaction, the reads and the two primitive writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

import numpy as np

from reverie.model.commands import Command
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.projection import Change, ProjectionView, project
from reverie.model.reducer import Context, StateView, decide
from reverie.store.protocol import Outcome


class Backend(StateView, Protocol):
    def append_event(self, event: Event) -> Event: ...

    def apply_change(self, change: Change, vectors: Mapping[str, np.ndarray]) -> None: ...

    def edge(self, scope: str, edge_id: str) -> Edge | None: ...

    def item(self, scope: str, item_id: str) -> Item | None: ...


def run_commands(
    backend: Backend,
    commands: Sequence[Command],
    *,
    now: datetime,
    new_id: Callable[[], str],
    vectors: Mapping[str, np.ndarray],
) -> list[Outcome]:
    """Run inside the backend's open write transaction; raises (and the caller rolls back) on refusal."""
    view = ProjectionView(backend.item, backend.edge)
    outcomes: list[Outcome] = []
    for cmd in commands:
        ctx = Context(now=now, new_id=new_id, cause=new_id())
        stored: list[Event] = []
        for event in decide(cmd, backend, ctx):
            event = backend.append_event(event)
            stored.append(event)
            for change in project(event, view):
                backend.apply_change(change, vectors)
        outcomes.append(Outcome(tuple(stored)))
    return outcomes
