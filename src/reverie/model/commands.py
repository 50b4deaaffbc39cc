"""Commands: the only way state changes. Imperative names; the reducer turns each into events.

A command carries exactly what the caller asked for, already validated at the boundary by
``Memory``; the reducer re-checks everything that depends on state (existence, versions,
tombstones, learning pause) inside the write transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reverie.model.agenda import CreateIntent, CreateTask, MoveIntent, MoveTask
from reverie.model.conversation import OpenConversation, PurgeMessage, RecordEntry, SetMessageVisibility
from reverie.model.item import Provenance
from reverie.model.values import Value


@dataclass(frozen=True, slots=True)
class Remember:
    scope: str
    text: str
    kind: str
    source: str
    key: str | None = None
    value: Value | None = None
    author: str | None = None
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    parents: tuple[str, ...] = ()
    provenance: Provenance = field(default_factory=Provenance)
    scores: dict[str, float] = field(default_factory=dict)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    tier: str = "active"
    learning: bool = True  # a learning write is refused while the scope's learning is paused
    #: False: always a new item, never corroboration of an equal current one (a dream-pass
    #: gist quotes a member's text; corroborating would modify that member instead).
    corroborate: bool = True
    #: Machine flags the new item starts with (e.g. ``conflicts_unchecked``).
    flags: tuple[str, ...] = ()
    #: Who may see it (``model.visibility``): empty = everyone in the scope.
    visibility: tuple[str, ...] = ()
    #: Who writes (set by ``VisibleStore``; None: the store's owner). A tombstone holds only within
    #: the audience of the claim it came from: one whose claim this principal may not see does not
    #: refuse it (a refusal would confirm the hidden claim's words and name its id).
    principal: str | None = None
    #: True: ``provenance`` (origin + ref) names one source, which counts at most once as evidence
    #: for a claim (``model.evidence``); a restatement is ``memory.restated``, evidence unchanged.
    count_once: bool = False


@dataclass(frozen=True, slots=True)
class Revise:
    scope: str
    id: str
    text: str
    reason: str = ""
    author: str | None = None
    key: str | None = None
    value: Value | None = None
    expected_version: int | None = None
    #: Machine flags the new version gets on top of the old one's (e.g. ``conflicts_unchecked``).
    flags: tuple[str, ...] = ()
    #: Set: the world changed at this time (the old version stays believed, valid until then,
    #: and the new one starts here). None: a correction (we were wrong; valid time unchanged).
    valid_from: datetime | None = None
    #: The new version's end of validity when known; None keeps the old one's (a correction) or
    #: leaves it open (a change).
    valid_to: datetime | None = None
    #: Who writes (set by ``VisibleStore``; None: the store's owner). A tombstone holds only within
    #: the audience of the claim it came from: one whose claim this principal may not see does not
    #: refuse it (a refusal would confirm the hidden claim's words and name its id).
    principal: str | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Forget:
    scope: str
    id: str
    reason: str = ""
    expected_version: int | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()
    #: Forgotten as never true (a gist with no standing source): ``model.valid_reads.RETRACTED_FLAG``.
    retracted: bool = False


@dataclass(frozen=True, slots=True)
class Purge:
    """Forget ``id`` *and* erase its content everywhere it is stored (GDPR erasure, a leaked secret).

    The one exception to "never delete": every version of the claim (its revisions) is
    redacted in the item rows, the indexes and every event payload that carried its text,
    and a ``memory.purged`` event (reason only, no content) records that it happened.
    """

    scope: str
    id: str
    reason: str = ""
    expected_version: int | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Supersede:
    """``id`` is replaced by the existing item ``by`` (conflict resolution): closed, linked, kept."""

    scope: str
    id: str
    by: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Dismiss:
    scope: str
    id: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Undismiss:
    scope: str
    fingerprints: tuple[str, ...]
    reason: str = ""
    #: Who lifts (set by ``VisibleStore``): a principal lifts only tombstones of claims it may see;
    #: any other reads as a value never dismissed (``not_found``).
    principal: str | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Link:
    scope: str
    type: str
    src: str
    dst: str
    author: str | None = None
    authority: float = 0.5
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Unlink:
    scope: str
    edge_id: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SetScores:
    scope: str
    id: str
    scores: dict[str, float]
    reason: str = ""
    expected_version: int | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SetTier:
    scope: str
    id: str
    tier: str
    reason: str = ""
    expected_version: int | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TierChange:
    """One item's move in a ``SetTiers``: its own tier, reason and expected version."""

    id: str
    tier: str
    reason: str = ""
    expected_version: int | None = None


@dataclass(frozen=True, slots=True)
class SetTiers:
    """Move many items between tiers in one event, all or nothing.

    Why a bulk command: a dream pass over a 100k backlog demotes ~40k items; one event (and one
    write of three columns) per item cost ~100 µs each, four seconds of the pass. Each change
    still carries its own reason and expected version, and ``history`` finds the event from
    every item it names.
    """

    scope: str
    changes: tuple[TierChange, ...]
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Promote:
    """Human promotion: to ``manual`` (a person vouches for it) or to the ``durable`` tier."""

    scope: str
    id: str
    to: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SetFlags:
    scope: str
    id: str
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    reason: str = ""
    expected_version: int | None = None
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SetVisibility:
    """Change who may see the claim ``id`` — every version of it (``revise`` links them), so an
    older version never shows what the current one hides. Empty ``visibility``: everyone."""

    scope: str
    id: str
    visibility: tuple[str, ...]
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RecordUse:
    """Recall used these items for ``query``; weights in (0, 1] say how strongly (rank-based)."""

    scope: str
    uses: tuple[tuple[str, float], ...]
    query: str
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DismissAlert:
    """A person dismissed a bias alert while its evidence is ``evidence`` (``reverie.dream.bias``)."""

    scope: str
    alert: str
    kind: str
    evidence: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PauseLearning:
    scope: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResumeLearning:
    scope: str
    reason: str = ""
    #: Hidden ids its words quote (set by ``VisibleStore``; carried by its events as ``unseen``).
    unseen: tuple[str, ...] = ()


Command = (
    Remember
    | Revise
    | Forget
    | Purge
    | Supersede
    | Dismiss
    | Undismiss
    | Link
    | Unlink
    | SetScores
    | SetTier
    | SetTiers
    | Promote
    | SetFlags
    | SetVisibility
    | RecordUse
    | DismissAlert
    | PauseLearning
    | ResumeLearning
    | OpenConversation
    | RecordEntry
    | PurgeMessage
    | SetMessageVisibility
    | CreateIntent
    | MoveIntent
    | CreateTask
    | MoveTask
)

#: The commands that erase content: an item's purge and a message's. A store scrubs what it keeps
#: of the erased words after either (SQLite: ``store/sqlite/purge.py``), whatever else the batch
#: holds, so a message purge with nothing else left to erase is scrubbed as an item purge is.
ERASING: tuple[type[Purge], type[PurgeMessage]] = (Purge, PurgeMessage)


def erases_content(commands: Iterable[object]) -> bool:
    """Does the batch erase content (a ``Purge`` or a ``PurgeMessage``)? Then it takes the purge path."""
    return any(isinstance(c, ERASING) for c in commands)
