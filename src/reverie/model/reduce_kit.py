"""What every reducer rule shares: the state it reads, the context it writes with, and the checks.

Split from ``reducer`` (which dispatches commands) so the rules for claims (``reduce_claims``), for
conversations and for intents and tasks can use the same checks without importing the dispatcher.
Pure: no I/O, reads state only through ``StateView``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from reverie.errors import (
    AlreadyClosedError,
    DismissedValueError,
    LearningPausedError,
    NotFoundError,
    VersionConflictError,
)
from reverie.model import events as ev
from reverie.model.agenda import Intent, Task
from reverie.model.conversation import ConversationState, Entry
from reverie.model.item import Edge, Item
from reverie.model.redact import dismissal_keys
from reverie.model.visibility import may_see


class StateView(Protocol):
    """What the reducer may read. Every method is scoped: it can never see another scope."""

    def item(self, scope: str, item_id: str) -> Item | None: ...

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        """The current ``version`` of each item that exists (absent ids are left out), in one read:
        a bulk command checks thousands, and decoding each whole row would cost more than its write."""
        ...

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        """Every current item holding ``fingerprint``, oldest first: one claim said of several
        periods (Acme 2020-2021, Acme from today) is several current items with one fingerprint."""
        ...

    def tombstone(self, scope: str, fingerprint: str) -> str | None: ...

    def paused(self, scope: str) -> bool: ...

    def edge(self, scope: str, edge_id: str) -> Edge | None: ...

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]: ...

    def revisions(self, scope: str, item_id: str) -> list[str]:
        """Ids of every version of the claim ``item_id`` belongs to (linked by revise), itself included."""
        ...

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        """The newest superseded (and not purged) item holding ``fingerprint``: a value a correction
        replaced, so that remembering it again can be recognised as an echo."""
        ...

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        """The current edges touching ``item_id`` (either end), ordered by id."""
        ...

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        """The current ``type`` edges leaving ``item_id`` (it is their ``src``), ordered by id.

        Why not ``edges_of``: the cycle check walks sources only, and a message's memory has one
        incoming ``derived_from`` edge per claim mined from it; reading them all on each new link
        made mining one long message quadratic (outside probe 2, finding 11)."""
        ...

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        """The sources (origin, ref) the log records as counted evidence for ``item_id``
        (``model.evidence``: the ``source_ref`` of its corroborations, echoes and restatements).

        Read only when a ``count_once`` statement meets an equal claim, so a backend may read the
        item's events (``store.evidence.sources``) rather than keep a projection of them.
        """
        ...

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        """Every item (open or closed) whose parents include one of ``parent_ids``, sorted by id.

        Read by a purge (``redact.purge_set``: the system's copies of purged content go with it) and
        by a restricting ``set_visibility`` (``model.audience``: the copies are restricted with it);
        both are rare, so a backend may scan the scope's items with parents.
        """
        ...

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        """Where the conversation stands (``model/conversation.py``), or None if it was never opened."""
        ...

    def conversation_entry(self, scope: str, entry_id: str) -> Entry | None:
        """One entry (message, tool call, summary, recap) of any conversation of the scope."""
        ...

    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[Entry]:
        """The conversation's entries in order (only ``kinds`` if given). Read by a message purge,
        which bounds the time of the next message by the latest message left (rare: a scan is fine)."""
        ...

    def intent(self, scope: str, intent_id: str) -> Intent | None:
        """The intent as its last event left it (``model/agenda.py``), or None."""
        ...

    def task(self, scope: str, task_id: str) -> Task | None:
        """The task as its last event left it, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Context:
    """Per-command facts from outside the reducer: the time and an id source."""

    now: datetime
    new_id: Callable[[], str]
    cause: str


def event(ctx: Context, type_: str, scope: str, payload: dict[str, Any]) -> ev.Event:
    return ev.Event(id=ctx.new_id(), type=type_, scope=scope, at=ctx.now, cause=ctx.cause, payload=payload)


def require(view: StateView, scope: str, item_id: str) -> Item:
    item = view.item(scope, item_id)
    if item is None:
        # Same message whether the id is absent or lives in another scope: no existence oracle.
        raise NotFoundError(f"no item {item_id} in scope {scope!r}")
    return item


def require_current(view: StateView, scope: str, item_id: str, action: str) -> Item:
    item = require(view, scope, item_id)
    if not item.is_current:
        raise AlreadyClosedError(f"cannot {action} item {item_id}: it is already {item.status}")
    return item


def check_version(item: Item, expected: int | None) -> None:
    check_stale(item.id, item.version, expected)


def check_stale(item_id: str, version: int, expected: int | None) -> None:
    if expected is not None and version != expected:
        raise VersionConflictError(
            f"item {item_id} is at version {version}, not {expected}: it changed since you read it; "
            "read it again and retry"
        )


def check_learning(view: StateView, scope: str) -> None:
    if view.paused(scope):
        raise LearningPausedError(
            f"learning is paused in scope {scope!r}; call resume_learning({scope!r}) to allow writes"
        )


def tombstone(view: StateView, scope: str, key: str, principal: str | None) -> str | None:
    """The claim whose dismissal holds ``key``, as ``principal`` may know it (None: no tombstone).

    A tombstone holds only within the audience of the claim it came from (and for the owner,
    ``principal=None``): for anyone else it does not exist. Refusing their write, even without
    the id, would confirm the hidden claim's words (a wrong guess is stored, the right one not),
    and lifting it would change what they may not see (README, Guarantees 7).
    """
    by = view.tombstone(scope, key)
    if by is None or principal is None:
        return by
    holder = view.item(scope, by)
    return by if holder is not None and may_see(holder.visibility, principal) else None


def check_not_dismissed(view: StateView, scope: str, prints: tuple[str, ...], principal: str | None) -> None:
    # A purge seals the tombstones of its values (``redact.seal``): they refuse the value still.
    for key in (k for fp in prints for k in dismissal_keys(fp)):
        by = tombstone(view, scope, key, principal)
        if by is not None:
            raise DismissedValueError(
                f"this value was dismissed in scope {scope!r} (tombstone from item {by}); "
                "call undismiss(...) first if it should be learned again"
            )


def close_contradictions(
    view: StateView, ctx: Context, scope: str, item_id: str, why: str, first: str | None = None
) -> list[ev.Event]:
    """``edge.unlinked`` for every current ``contradicts`` edge of an item leaving current truth.

    Why: a conflict with a claim nobody believes any more is not open, and recall must not mark
    the survivor contested by it (``contradictions()`` and ``Hit.contradicted_by`` agree). Edges
    to ``first`` (the winner of a resolution) come first, so an import can group the events.
    """
    edges = [e for e in view.edges_of(scope, item_id) if e.type == "contradicts"]
    edges.sort(key=lambda e: (first not in (e.src, e.dst), e.id))
    return [event(ctx, ev.UNLINKED, scope, {"edge_id": e.id, "reason": why}) for e in edges]
