"""Helpers for the intent and task tests: scopes, and a state fingerprint proving a refused call stored nothing."""

from __future__ import annotations

from typing import Any

from reverie import Memory

SCOPE = "user:alice"
OTHER = "user:bob"


def state_of(mem: Memory, scope: str = SCOPE) -> tuple[Any, ...]:
    """Everything an agenda write could change in ``scope``: the log, the items, every intent and task."""
    events = [(e.seq, e.type, e.payload) for e in mem.events(scope=scope, limit=100_000)]
    items = sorted((i.id, i.text, i.version) for i in mem.list(scope=scope, limit=1000, include_closed=True).items)
    intents = [i.to_dict() for i in mem.intents.list(scope=scope, limit=1000)]
    tasks = [t.to_dict() for t in mem.tasks.list(scope=scope, limit=1000)]
    return events, items, intents, tasks


def migrated(memories: Any, source: Any, store_url: str) -> Memory:
    """A Memory over ``store_url`` after a migration from ``source`` (a store): the migration
    projects each old event as it copies it, which is what an old log meets in the field."""
    from reverie.store.migrate import copy_store
    from reverie.store.opening import open_store

    dest = open_store(store_url)
    try:
        copy_store(source, dest)
    finally:
        dest.close()
    mem: Memory = memories.open(store_url, seed=1)
    return mem
