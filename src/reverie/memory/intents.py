"""``mem.intents``: what is wanted — goals with an owner, a priority, sub-intents and linked claims.

Status machine (``model/agenda.py``): active ↔ paused, and either → completed / cancelled, which
are final. Every write is one command through the reducer (``model/agenda_rules.py``) in one
transaction; a refused move raises ``InvalidTransitionError`` naming the current status and the
moves it allows, and changes nothing.

``suggest`` turns the thinking queue (importance × (1 − authority)) into proposed intents: an
important claim the memory does not trust yet is worth a goal ("confirm or correct it").
Suggestions are values, not writes; ``accept`` creates one.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reverie.dream.queue import QueueEntry
from reverie.errors import InvalidInputError, NotFoundError
from reverie.memory import agenda_common as chk
from reverie.memory.core import Core
from reverie.model import agenda as ag
from reverie.model.events import Event
from reverie.model.item import Item
from reverie.model.suggestion_text import suggestion_label, suggestion_reason
from reverie.model.validate import check_count, check_reason, check_score, check_text

#: How many intents ``list`` returns when no ``limit`` is given.
DEFAULT_LIST = 100


@dataclass(frozen=True, slots=True)
class SuggestedIntent:
    """An intent the thinking queue proposes, not yet written: ``mem.intents.accept(s)`` creates it.

    ``item`` is the claim it is about (for display); the intent itself names it by id only, so
    purging the claim leaves no copy of its text in the intent.
    """

    scope: str
    label: str
    priority: float
    reason: str
    memory_ids: tuple[str, ...]
    item: Item

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "label": self.label,
            "priority": self.priority,
            "reason": self.reason,
            "memory_ids": list(self.memory_ids),
            "text": self.item.text,
        }


def suggestion_for(entry: QueueEntry, scope: str) -> SuggestedIntent:
    """The intent an entry of the thinking queue proposes, with the queue's reason in words."""
    it = entry.item
    imp, auth = it.scores.importance, it.scores.authority
    return SuggestedIntent(
        scope=scope,
        label=suggestion_label(it.kind, it.id),
        priority=round(entry.priority, 6),
        reason=suggestion_reason(imp, auth, entry.priority),
        memory_ids=(it.id,),
        item=it,
    )


class Intents:
    """create, pause / resume / complete / cancel, get, list, children, history, suggest, accept."""

    def __init__(self, core: Core, queue: Callable[..., builtins.list[QueueEntry]]) -> None:
        self._core = core
        self._queue = queue

    # -- writes ---------------------------------------------------------------------------
    def create(
        self,
        label: str,
        *,
        scope: str,
        owner: str | None = None,
        priority: float = 0.5,
        parent: ag.Intent | str | None = None,
        memory_ids: Sequence[Item | str] = (),
        reason: str = "",
    ) -> ag.Intent:
        """A new active intent. ``parent`` makes it a sub-intent (of an open intent in ``scope``);
        ``memory_ids`` are claims of ``scope`` it is about. Raises ``NotFoundError`` for a parent
        or claim not in ``scope``."""
        core = self._core
        command = ag.CreateIntent(
            scope=core.scope(scope),
            label=check_text(label, core.limits, "label"),
            owner=chk.name(owner, "owner"),
            priority=check_score("priority", priority),
            parent=chk.maybe_id(parent, "parent"),
            memory_ids=chk.memory_ids(memory_ids, "memory_ids"),
            reason=check_reason(reason),
        )
        return self._written(core.run([command]))

    def transition(
        self,
        intent: ag.Intent | str,
        move: str,
        *,
        scope: str,
        reason: str = "",
        expected_version: int | None = None,
    ) -> ag.Intent:
        """Apply ``move`` (``pause``, ``resume``, ``complete`` or ``cancel``) and return the intent after it.

        ``expected_version`` (here and on every named verb) refuses the move with
        ``VersionConflictError`` unless the intent is at that version, so a caller acting on what it
        read does not overwrite a move it has not seen."""
        core = self._core
        command = ag.MoveIntent(
            scope=core.scope(scope),
            id=chk.record_id(intent, "intent"),
            move=chk.check_move(move, tuple(ag.INTENT_MOVES), "intent"),
            reason=check_reason(reason),
            expected_version=chk.check_version(expected_version),
            max_moves=core.limits.max_record_moves,
        )
        # A move's event carries only what it changed (``model/agenda.py``): the intent after it is
        # read back in the same transaction, so it is this move's result, not a later one's.
        with core.store.atomic(command.scope):
            core.run([command])
            return self.get(command.id, scope=command.scope)

    def pause(
        self, intent: ag.Intent | str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> ag.Intent:
        """active → paused."""
        return self.transition(intent, "pause", scope=scope, reason=reason, expected_version=expected_version)

    def resume(
        self, intent: ag.Intent | str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> ag.Intent:
        """paused → active."""
        return self.transition(intent, "resume", scope=scope, reason=reason, expected_version=expected_version)

    def complete(
        self, intent: ag.Intent | str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> ag.Intent:
        """active or paused → completed (final)."""
        return self.transition(intent, "complete", scope=scope, reason=reason, expected_version=expected_version)

    def cancel(
        self, intent: ag.Intent | str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> ag.Intent:
        """active or paused → cancelled (final)."""
        return self.transition(intent, "cancel", scope=scope, reason=reason, expected_version=expected_version)

    # -- reads ----------------------------------------------------------------------------
    def get(self, intent: ag.Intent | str, *, scope: str) -> ag.Intent:
        """The intent as it stands now, or ``NotFoundError`` (also for another scope's intent)."""
        s = self._core.scope(scope)
        intent_id = chk.record_id(intent, "intent")
        found = chk.agenda_store(self._core.store).intent(s, intent_id)
        if found is None:
            raise NotFoundError(f"no intent {intent_id} in scope {s!r}")
        return found

    def list(
        self,
        *,
        scope: str,
        status: str | Sequence[str] | None = None,
        owner: str | None = None,
        parent: ag.Intent | str | None = None,
        memory: Item | str | None = None,
        min_priority: float | None = None,
        limit: int | None = None,
    ) -> builtins.list[ag.Intent]:
        """The scope's intents matching every given filter, highest priority first (ties: oldest first).

        ``status`` one or several of active / paused / completed / cancelled; ``parent`` its
        sub-intents; ``memory`` intents linked to that claim — to any version of it (``history``'s
        versions): an intent made about a claim still lists under the claim's revision.
        """
        core = self._core
        s = core.scope(scope)
        query = ag.IntentQuery(
            statuses=chk.statuses(status, ag.INTENT_STATUSES, "intent"),
            owner=chk.name(owner, "owner"),
            parent=chk.maybe_id(parent, "parent"),
            min_priority=None if min_priority is None else check_score("min_priority", min_priority),
        )
        n = check_count(limit, "limit", default=DEFAULT_LIST, limits=core.limits)
        claim = None if memory is None else chk.memory_ids([memory], "memory")[0]
        return self._about(s, claim, query, n)

    def _about(self, scope: str, claim: str | None, query: ag.IntentQuery, limit: int) -> builtins.list[ag.Intent]:
        """The intents matching ``query`` about ``claim`` (any of its versions, when given)."""
        store = chk.agenda_store(self._core.store)
        return chk.about_claim(
            self._core.store,
            scope,
            claim,
            lambda one: store.intents(scope, replace(query, memory=one), limit=limit),
            lambda it: (-it.priority, it.id),
            limit,
        )

    def children(self, intent: ag.Intent | str, *, scope: str) -> builtins.list[ag.Intent]:
        """The sub-intents of ``intent`` (which must exist in ``scope``)."""
        parent = self.get(intent, scope=scope)
        return self.list(scope=scope, parent=parent.id, limit=self._core.limits.max_k)

    def history(self, intent: ag.Intent | str, *, scope: str) -> builtins.list[Event]:
        """Every event of the intent, oldest first: its creation and each move with its reason."""
        found = self.get(intent, scope=scope)
        return self._core.store.events(found.scope, item_id=found.id, limit=self._core.limits.max_events)

    # -- suggestions ----------------------------------------------------------------------
    def suggest(self, *, scope: str, k: int | None = None) -> builtins.list[SuggestedIntent]:
        """Important-but-uncertain claims of ``scope`` as suggested intents (nothing is written).

        From the thinking queue (importance × (1 − authority), highest first); a claim an open
        intent is already about (any version of it) is left out, so accepting a suggestion retires it.
        """
        core = self._core
        s = core.scope(scope)
        n = check_count(k, "k", default=10, limits=core.limits)
        out: builtins.list[SuggestedIntent] = []
        for entry in self._queue(scope=s, k=min(core.limits.max_k, 4 * n)):
            if not self._open_about(s, entry.item.id):
                out.append(suggestion_for(entry, s))
            if len(out) == n:
                break
        return out

    def accept(
        self, suggestion: SuggestedIntent, *, owner: str | None = None, priority: float | None = None
    ) -> ag.Intent:
        """Create the intent ``suggestion`` proposes (its label, reason and claim; its priority unless given).

        A suggestion is a value read earlier: it is re-checked now. ``NotFoundError`` ("no intent is
        suggested for claim …", as HTTP answers) if its claim is no longer current (forgotten,
        superseded, dismissed) or an open intent is already about it (accepted twice, or by another
        caller meanwhile), so one suggestion makes at most one intent on every face.

        The re-check and the write are one step inside ``store.atomic(scope)``, which holds the
        write lock from the first read to the commit (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's
        per-scope lock). Why: checked outside it, two callers accepting the same suggestion at once
        (two processes on one file) both passed the check and both wrote; now the second waits for
        the first, reads its intent and is refused.
        """
        if not isinstance(suggestion, SuggestedIntent):
            raise InvalidInputError("accept takes a SuggestedIntent from mem.intents.suggest(...)")
        scope = self._core.scope(suggestion.scope)
        with self._core.store.atomic(scope):
            self._check_still_suggested(suggestion)
            return self.create(
                suggestion.label,
                scope=scope,
                owner=owner,
                priority=suggestion.priority if priority is None else priority,
                memory_ids=suggestion.memory_ids,
                reason=suggestion.reason,
            )

    def _open_about(self, scope: str, claim: str) -> builtins.list[ag.Intent]:
        """The open (active or paused) intents about ``claim`` or another version of it."""
        return self._about(scope, claim, ag.IntentQuery(statuses=("active", "paused")), 1)

    def _check_still_suggested(self, suggestion: SuggestedIntent) -> None:
        s = self._core.scope(suggestion.scope)
        for claim in suggestion.memory_ids:
            found = self._core.store.get(s, claim)
            if found is None or not found.is_current:
                raise NotFoundError(
                    f"no intent is suggested for claim {claim} in scope {s!r}: the claim is no longer current "
                    "(forgotten, superseded or dismissed since it was suggested); ask intents.suggest again"
                )
            already = self._open_about(s, claim)
            if already:
                raise NotFoundError(
                    f"no intent is suggested for claim {claim} in scope {s!r}: open intent {already[0].id} is "
                    "already about it (was this suggestion accepted already?); ask intents.suggest again"
                )

    @staticmethod
    def _written(outcomes: builtins.list[Any]) -> ag.Intent:
        return ag.Intent.from_dict(outcomes[0].events[-1].payload["intent"])
