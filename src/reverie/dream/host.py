"""``DreamHost``: the narrow interface the dream pass needs from whoever runs it.

Why declared here: the pass sits below the facade and must not import it (that was a circle:
``Memory`` imports ``reverie.dream`` to delegate, and the pass imported ``Memory`` back). What
the pass reads — the store, the clock, the limits — and the few things it asks of its host —
new ids, embeddings, a checked gist command, conflict links, alias groups, and the signals that
it is running or asked to stop — are all it can use. ``reverie.memory.dreaming.Dreaming`` is
the facade's implementation; ``reverie.testing.dream_host(mem)`` hands it to tests that drive
the pass's phases one by one.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from reverie.conflict.entity import Aliases as AliasLookup
from reverie.limits import Limits
from reverie.model import commands as cmd
from reverie.model.clock import Clock
from reverie.model.item import Item
from reverie.store.protocol import Store


class DreamHost(Protocol):
    """What one dream pass reads and which commands it may issue, and nothing more."""

    @property
    def store(self) -> Store:
        """The store the pass reads its snapshot from and applies its batches to."""

    @property
    def clock(self) -> Clock:
        """Where "now" comes from (the lease's expiry, the report's time, decay)."""

    @property
    def limits(self) -> Limits:
        """The boundary checks a gist must pass like any caller's claim."""

    def new_id(self) -> str:
        """A fresh id for a gist or an edge the pass creates."""

    def embed_texts(self, texts: list[str]) -> dict[str, np.ndarray]:
        """Vectors for the gists' texts, computed before the batch's transaction."""

    def gist_command(self, fields: Mapping[str, Any], scope: str) -> cmd.Remember:
        """A ``Remember`` of source ``system``, checked exactly like ``remember_system``."""

    def alias_lookup(self, scope: str) -> AliasLookup | None:
        """The scope's alias groups, read once per batch of conflict rechecks."""

    def conflict_links(
        self, item: Item, *, aliases: AliasLookup | None, match: str | None, second: bool = True
    ) -> list[cmd.Command]:
        """The ``contradicts`` links detection adds for ``item`` (reads only); ``second``: the second
        reader's too, if the host has one (a failing reader raises ``ReaderError``)."""

    @property
    def reads_conflicts(self) -> bool:
        """The host has a second reader: items flagged ``conflicts_unread`` are read in the pass."""

    def running(self) -> AbstractContextManager[None]:
        """Held while a pass runs, so closing the host can wait for it to stop."""

    def cancelled(self) -> bool:
        """True once the host asked running passes to stop (checked between batches)."""
