"""``ConversationHost``: what the conversation wing needs from whoever runs it, declared here.

Why a protocol and not ``memory.core.Core``: the wing sits below the facade and must not import
it (``tests/test_layering.py``), as the dream pass declares ``DreamHost``. ``Core`` satisfies it
as it stands. ``ConversationStore`` is the part of a store backend the wing reads; both shipped
backends (SQLite and the reference store) implement it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from reverie.errors import InvalidInputError
from reverie.limits import Limits
from reverie.model import commands as cmd
from reverie.model.clock import Clock
from reverie.model.conversation import ConversationState, Entry
from reverie.store.protocol import Outcome, Store


@runtime_checkable
class ConversationStore(Protocol):
    """The conversation reads of a store backend (every one scoped: ``scope`` first)."""

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None: ...

    def conversation_entry(self, scope: str, entry_id: str) -> Entry | None: ...

    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[Entry]: ...

    def conversations(self, scope: str) -> list[ConversationState]: ...

    def conversation_speakers(self, scope: str) -> list[str]: ...

    def archive_search(self, scope: str, query: str, *, conversation: str | None, limit: int) -> list[Entry]: ...


class ConversationHost(Protocol):
    """The store, the clock, the limits, ids, the scope check and the one write path."""

    @property
    def store(self) -> Store:
        """The backend; it must also be a ``ConversationStore``."""

    @property
    def clock(self) -> Clock:
        """Where "now" comes from (idle time, ``at`` defaults)."""

    @property
    def limits(self) -> Limits:
        """The input bounds (message size is ``max_text_chars``)."""

    @property
    def read_only(self) -> bool:
        """A store opened for inspection: the wing's reads must not write (no idle release, no
        history summary stored); they show what a write would have made, marked as not written."""

    def new_id(self) -> str:
        """A fresh time-ordered id (messages carry their id into their recallable memory)."""

    def scope(self, scope: object) -> str:
        """``scope`` checked at the boundary."""

    def run(self, commands: Sequence[cmd.Command], texts: Sequence[str] = ()) -> list[Outcome]:
        """Embed ``texts``, then apply ``commands`` in one transaction."""


def conversation_store(host: ConversationHost) -> ConversationStore:
    """The host's store as a ``ConversationStore``, or a clear error for a backend that keeps none."""
    store = host.store
    if not isinstance(store, ConversationStore):
        raise InvalidInputError(f"the store backend {type(store).__name__} keeps no conversations")
    return store
