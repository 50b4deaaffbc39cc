"""What ``mem.intents`` and ``mem.tasks`` share: the store's agenda reads and the boundary checks.

Every check here runs before a command is built, so bad input gets its own clear error and the
store sees nothing. State-dependent checks (does the parent exist *in this scope*, is the move
allowed from the current status) are the reducer's, inside the write transaction
(``model/agenda_rules.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from reverie.conversation.checks import check_name
from reverie.errors import InvalidInputError, LimitExceededError
from reverie.memory.reads import versions_of
from reverie.model.agenda import Intent, IntentQuery, Task, TaskQuery
from reverie.model.validate import check_id, shown
from reverie.store.protocol import Store

#: Most memory ids one intent or task may name (inputs, outputs, linked claims).
MAX_LINKED_IDS = 1000

Record = TypeVar("Record", Intent, Task)


@runtime_checkable
class AgendaStore(Protocol):
    """The intent and task reads of a store backend (every one scoped: ``scope`` first)."""

    def intent(self, scope: str, intent_id: str) -> Intent | None: ...

    def task(self, scope: str, task_id: str) -> Task | None: ...

    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]: ...

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]: ...


def agenda_store(store: Store) -> AgendaStore:
    """``store`` as an ``AgendaStore``, or a clear error for a backend that keeps no intents or tasks."""
    if not isinstance(store, AgendaStore):
        raise InvalidInputError(f"the store backend {type(store).__name__} keeps no intents or tasks")
    return store


def record_id(value: object, what: str) -> str:
    """An intent or task given as its record or its id, as the id (checked)."""
    if isinstance(value, Intent | Task):
        return value.id
    return check_id(value, what)


def maybe_id(value: object, what: str) -> str | None:
    return None if value is None else record_id(value, what)


def memory_ids(values: object, what: str) -> tuple[str, ...]:
    """Memory ids (an ``Item`` or its id each), de-duplicated in order, bounded."""
    if isinstance(values, str) or not isinstance(values, Sequence | set | frozenset | tuple):
        raise InvalidInputError(f"{what} must be a list of memory ids, got {type(values).__name__}")
    out: list[str] = []
    for v in values:
        item_id = getattr(v, "id", v)
        out.append(check_id(item_id, f"{what} id"))
    if len(out) > MAX_LINKED_IDS:
        raise LimitExceededError(f"{what} names {len(out)} memories; the limit is {MAX_LINKED_IDS}")
    return tuple(dict.fromkeys(out))


def name(value: object, what: str) -> str | None:
    """An owner or agent name: optional, else a bounded single-line string."""
    return None if value is None else check_name(value, what)


def statuses(value: object, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    """A status or list of statuses, each one of ``allowed`` (a typo would match nothing)."""
    if value is None:
        return ()
    found = (value,) if isinstance(value, str) else value
    if not isinstance(found, Sequence) or not all(isinstance(s, str) for s in found):
        raise InvalidInputError(f"{what} status must be a string or a list of strings, got {shown(value)}")
    bad = [s for s in found if s not in allowed]
    if bad:
        raise InvalidInputError(f"unknown {what} status {bad[0]!r}; use one of {', '.join(allowed)}")
    return tuple(found)


def check_move(value: object, moves: Sequence[str], what: str) -> str:
    if not isinstance(value, str) or value not in moves:
        raise InvalidInputError(f"{what} move {shown(value)} is unknown; use one of {', '.join(moves)}")
    return value


def check_version(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"expected_version must be a positive int, got {shown(value)}")
    return value


def about_claim(
    store: Store,
    scope: str,
    memory: str | None,
    fetch: Callable[[str | None], list[Record]],
    key: Callable[[Record], Any],
    limit: int,
) -> list[Record]:
    """The records ``fetch`` finds about ``memory`` or any other version of that claim.

    Why: intents and tasks keep the claim ids they were given (what they were about when made),
    but ``revise`` makes a new version of the claim; a listing by the current version must still
    find the intent about the old one, or ``suggest`` proposes the claim again (outside probe 2,
    finding 16). Versions are ``history``'s (``supersedes`` followed both ways). ``fetch(id)`` is
    the store's query for one id; the union is re-sorted by ``key`` (the store's order) and cut
    to ``limit``.
    """
    if memory is None:
        return fetch(None)
    found: dict[str, Record] = {}
    for version in versions_of(store, scope, memory):
        for record in fetch(version):
            found.setdefault(record.id, record)
    return sorted(found.values(), key=key)[:limit]
