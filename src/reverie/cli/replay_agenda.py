"""An export's intent and task events replayed through ``mem.intents`` / ``mem.tasks`` (``reverie import``).

Each event is re-issued as the public call that made it — ``create`` for ``*.created``, the
named move (``pause``, ``resume``, ``complete``, ``cancel``; ``start``, ``complete``, ``fail``,
``retry``) for the others, with the reason it was given — so the status machine checks every
step as it did live, and the copy's history reads as the source's. Ids are re-assigned:
``intents`` / ``tasks`` map the file's ids to the new ones, and a record's parent, intent,
``memory_ids``, inputs and outputs are remapped through them and through the import's claim
map. A claim of the file that was not imported here (it was forgotten in this scope before the
import, or its own event failed) is left out of the record, and the report says how often
(``notes``), as a slice import's ``dropped_refs`` does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reverie import Event, Memory, NotFoundError

_INTENT_MOVES = {
    "intent.paused": "pause",
    "intent.resumed": "resume",
    "intent.completed": "complete",
    "intent.cancelled": "cancel",
}
_TASK_MOVES = {"task.started": "start", "task.completed": "complete", "task.failed": "fail", "task.retried": "retry"}
#: Every intent and task event type this replay handles.
REPLAYED = frozenset({"intent.created", "task.created", *_INTENT_MOVES, *_TASK_MOVES})


class AgendaReplay:
    """Replays intent and task events into ``scope``; ``claims`` maps the file's claim ids to this scope's."""

    def __init__(self, mem: Memory, scope: str, claims: Mapping[str, str], notes: Counter[str]) -> None:
        self.mem = mem
        self.scope = scope
        self._claims = claims
        self._notes = notes
        #: The file's intent id -> the intent's id here.
        self.intents: dict[str, str] = {}
        #: The file's task id -> the task's id here.
        self.tasks: dict[str, str] = {}
        self._handlers: dict[str, Callable[[str, Mapping[str, Any]], None]] = {
            "intent.created": self._intent_created,
            "task.created": self._task_created,
            **dict.fromkeys(_INTENT_MOVES, self._intent_moved),
            **dict.fromkeys(_TASK_MOVES, self._task_moved),
        }

    def replay(self, event: Event) -> None:
        """Replay one event of ``REPLAYED``; raises as the live call would (the import lists it)."""
        self._handlers[event.type](event.type, event.payload)

    def item_meta(self, meta: Mapping[str, Any]) -> dict[str, Any]:
        """A claim's ``meta`` naming this scope's task and intent (a claim written inside a task run)."""
        out = dict(meta)
        for key, ids in (("task_id", self.tasks), ("intent_id", self.intents)):
            if isinstance(old := out.get(key), str) and old in ids:
                out[key] = ids[old]
        return out

    # -- intents -------------------------------------------------------------------------------
    def _intent_created(self, _: str, payload: Mapping[str, Any]) -> None:
        it = payload["intent"]
        new = self.mem.intents.create(
            it["label"],
            scope=self.scope,
            owner=it.get("owner"),
            priority=float(it.get("priority", 0.5)),
            parent=self._record(self.intents, it.get("parent"), "intent"),
            memory_ids=self._memories(it.get("memory_ids"), "intent.created"),
            reason=str(it.get("reason") or ""),
        )
        self.intents[str(it["id"])] = new.id

    def _intent_moved(self, event_type: str, payload: Mapping[str, Any]) -> None:
        it = payload["intent"]
        intent = self._held(self.intents, it["id"], "intent")
        reason = str(it.get("reason") or "")
        self.mem.intents.transition(intent, _INTENT_MOVES[event_type], scope=self.scope, reason=reason)

    # -- tasks ---------------------------------------------------------------------------------
    def _task_created(self, _: str, payload: Mapping[str, Any]) -> None:
        t = payload["task"]
        new = self.mem.tasks.create(
            t["action"],
            scope=self.scope,
            intent=self._record(self.intents, t.get("intent"), "intent"),
            agent=t.get("agent"),
            inputs=self._memories(t.get("inputs"), "task.created"),
            parent=self._record(self.tasks, t.get("parent"), "task"),
        )
        self.tasks[str(t["id"])] = new.id

    def _task_moved(self, event_type: str, payload: Mapping[str, Any]) -> None:
        t = payload["task"]
        move = _TASK_MOVES[event_type]
        task = self._held(self.tasks, t["id"], "task")
        reason = str(t.get("reason") or "")
        outputs = self._memories(t.get("outputs"), event_type) if move == "complete" else []
        self.mem.tasks.transition(task, move, scope=self.scope, reason=reason, outputs=outputs)

    # -- ids -----------------------------------------------------------------------------------
    @staticmethod
    def _record(ids: Mapping[str, str], old: object, what: str) -> str | None:
        """The id here of the file's record ``old`` (None stays None: no parent, no intent)."""
        return None if old is None else AgendaReplay._held(ids, old, what)

    @staticmethod
    def _held(ids: Mapping[str, str], old: object, what: str) -> str:
        new = ids.get(str(old))
        if new is None:
            raise NotFoundError(f"{what} {old} of the export was not imported (its own event was skipped or failed)")
        return new

    def _memories(self, old: Sequence[str] | None, event_type: str) -> list[str]:
        kept = [self._claims[m] for m in old or () if m in self._claims]
        dropped = len(old or ()) - len(kept)
        if dropped:
            self._notes[f"{event_type}: a claim it names was not imported here, left out"] += dropped
        return list(dict.fromkeys(kept))
