"""Lifecycle events: past-tense facts appended to the log, from which every projection is built."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reverie.model.agenda import AGENDA_EVENT_TYPES
from reverie.model.clock import from_iso, to_iso

REMEMBERED = "memory.remembered"
CORROBORATED = "memory.corroborated"
#: A claim a correction superseded was remembered again by a source no stronger than the
#: correction's: recorded as evidence on the superseded version, never as current truth.
#: ``{"id", "evidence_count", "by_source", "corrected_by", "reason"}``.
ECHOED = "memory.echoed"
#: A source that already counts as evidence for a claim (``Remember.count_once``: the provenance's
#: origin and ref) stated it again: recorded, the evidence unchanged; no projection changes.
#: ``{"id", "source_ref": {"origin", "ref"}}`` (``model.evidence``).
RESTATED = "memory.restated"
REVISED = "memory.revised"
FORGOTTEN = "memory.forgotten"
PURGED = "memory.purged"
SUPERSEDED = "memory.superseded"
DISMISSED = "memory.dismissed"
UNDISMISSED = "memory.undismissed"
SCORES_SET = "memory.scores_set"
TIER_SET = "memory.tier_set"
#: Many items' tier changes at once: ``{"changes": [{"id", "tier", "reason"}, ...]}``.
TIERS_SET = "memory.tiers_set"
PROMOTED = "memory.promoted"
FLAGS_SET = "memory.flags_set"
VISIBILITY_SET = "memory.visibility_set"
USED = "memory.used"
LINKED = "edge.linked"
UNLINKED = "edge.unlinked"
#: A bias alert dismissed: ``{"id": "alerts.dismissed", "alert", "kind", "evidence", "reason"}``
#: (``id`` is the same for every dismissal, so one read by it finds them all; no projection).
ALERT_DISMISSED = "alert.dismissed"
LEARNING_PAUSED = "scope.learning_paused"
LEARNING_RESUMED = "scope.learning_resumed"
# Conversations (``model/conversation.py``): each entry of a conversation is an event.
CONVERSATION_OPENED = "conversation.opened"
MESSAGE_ADDED = "conversation.message_added"
TOOL_CALLED = "conversation.tool_called"
SUMMARIZED = "conversation.summarized"
RELEASED = "conversation.released"
MESSAGE_PURGED = "conversation.message_purged"
#: A message's audience changed, with the summaries and recaps narrowed with it (``model/conversation.py``).
CONVERSATION_VISIBILITY_SET = "conversation.visibility_set"
#: A conversation hidden from the principal it was named for, renamed out of its name (``model/legacy_names.py``).
CONVERSATION_RENAMED = "conversation.renamed"

EVENT_TYPES = (
    REMEMBERED,
    CORROBORATED,
    ECHOED,
    RESTATED,
    REVISED,
    FORGOTTEN,
    PURGED,
    SUPERSEDED,
    DISMISSED,
    UNDISMISSED,
    SCORES_SET,
    TIER_SET,
    TIERS_SET,
    PROMOTED,
    FLAGS_SET,
    VISIBILITY_SET,
    USED,
    LINKED,
    UNLINKED,
    LEARNING_PAUSED,
    LEARNING_RESUMED,
    ALERT_DISMISSED,
    CONVERSATION_OPENED,
    MESSAGE_ADDED,
    TOOL_CALLED,
    SUMMARIZED,
    RELEASED,
    MESSAGE_PURGED,
    CONVERSATION_VISIBILITY_SET,
    CONVERSATION_RENAMED,
    # Intents and tasks (``model/agenda.py`` names them and documents their payloads).
    *AGENDA_EVENT_TYPES,
)


@dataclass(frozen=True, slots=True)
class Event:
    """The envelope: ``seq`` is assigned by the store at append time (0 until then).

    ``cause`` is the id shared by every event one command produced, so a batch or a revise
    (which closes one item and opens another) can be traced back to its single request.
    """

    id: str
    type: str
    scope: str
    at: datetime
    cause: str
    payload: dict[str, Any] = field(default_factory=dict)
    seq: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "id": self.id,
            "type": self.type,
            "scope": self.scope,
            "at": to_iso(self.at),
            "cause": self.cause,
            "payload": self.payload,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        return cls(
            id=data["id"],
            type=data["type"],
            scope=data["scope"],
            at=from_iso(data["at"]),
            cause=data["cause"],
            payload=dict(data.get("payload") or {}),
            seq=int(data.get("seq", 0)),
        )
