"""Helpers for the conversation tests: a whole-state fingerprint to prove a refused call stored nothing,
and a local chat-completions server for the LLM extractor's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from chat_server import ChatServer

from reverie import Memory


def state_of(mem: Memory, scope: str) -> tuple[Any, ...]:
    """Everything a write could change in ``scope``: the log, the items and every conversation entry."""
    events = [(e.seq, e.type, e.payload) for e in mem.events(scope=scope, limit=100_000)]
    items = sorted((i.id, i.text, i.version) for i in mem.list(scope=scope, limit=1000, include_closed=True).items)
    store: Any = mem.store
    convs = [(c.id, c.position) for c in store.conversations(scope)]
    entries = [(e.id, e.text) for c in store.conversations(scope) for e in store.conversation_entries(scope, c.id)]
    return events, items, convs, entries


@pytest.fixture
def snapshot() -> Any:
    return state_of


@pytest.fixture
def server() -> Iterator[ChatServer]:
    """A local HTTP server speaking the chat-completions protocol (the LLM extractor's tests)."""
    s = ChatServer()
    try:
        yield s
    finally:
        s.stop()
