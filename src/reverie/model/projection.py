"""Projection: how each event changes the read model, as a list of ``Change`` values.

Pure and deterministic: the store applies the changes it is given, and a rebuild replays the
whole log through this same function, so live projections and rebuilt ones cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from reverie.model import events as ev
from reverie.model.agenda import AgendaChange, IntentReader, TaskReader, is_agenda_event, project_agenda
from reverie.model.clock import from_iso
from reverie.model.conversation import ConversationChange, project_conversation
from reverie.model.item import Edge, Item, Scores
from reverie.model.redact import PURGED_FLAG, REDACTED, created_edge_meta, redact_item
from reverie.model.valid_reads import RETRACTED_FLAG
from reverie.model.validate import current_print, fingerprints

#: Recall reinforcement: value moves this fraction of the way to 1 for a rank-1 hit.
REINFORCE_RATE = 0.1
#: An episodic memory used this many times has proven general: it graduates to semantic.
GRADUATE_AFTER_USES = 3
#: Flag on a superseded version that was remembered again after its correction (``memory.echoed``).
ECHOED_FLAG = "echoed"


@dataclass(frozen=True, slots=True)
class PutItem:
    """Store ``item``. ``redact``: its content was just erased (purge), so the store must also
    replace every index row (full-text, vector, fingerprint) that held the old content.

    ``before``: the stored item this one replaces, as the projection read it. A store may use it
    to write only the columns that changed (a tier change is 3 of 31 columns, none indexed); it
    is a hint, never needed for correctness, and absent for created or redacted items.
    """

    item: Item
    created: bool = False
    redact: bool = False
    before: Item | None = None


@dataclass(frozen=True, slots=True)
class EraseContent:
    """Rewrite the log of ``scope`` before ``before_seq`` as ``model.redact.plan_erasure`` says.

    The one change that touches the log rather than a projection: a purge must erase what
    the events themselves carried. Replaying it over an already rewritten log changes nothing.
    """

    scope: str
    ids: tuple[str, ...]
    fingerprints: tuple[str, ...]
    before_seq: int


@dataclass(frozen=True, slots=True)
class PutEdge:
    edge: Edge


@dataclass(frozen=True, slots=True)
class PutTombstone:
    scope: str
    fingerprint: str
    item_id: str


@dataclass(frozen=True, slots=True)
class DropTombstone:
    scope: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class PutTiers:
    """Move each ``(item id, tier)`` of ``scope`` to its tier: ``version`` + 1, ``updated_at`` = ``at``.

    The same row change as a ``PutItem`` of a tier event, without reading and rewriting each
    item: the reducer has checked that every item exists, and a bulk move names thousands.
    """

    scope: str
    at: datetime
    tiers: tuple[tuple[str, str], ...]

    def moved(self, item: Item) -> Item | None:
        """``item`` after this change, or None if the change does not name it."""
        for item_id, tier in self.tiers:
            if item_id == item.id:
                return item.evolve(updated_at=self.at, version=item.version + 1, tier=tier)
        return None


@dataclass(frozen=True, slots=True)
class SetPaused:
    scope: str
    paused: bool


Change = (
    PutItem
    | PutTiers
    | PutEdge
    | PutTombstone
    | DropTombstone
    | SetPaused
    | EraseContent
    | ConversationChange
    | AgendaChange
)


#: Prefix of the fingerprints a store keeps for superseded versions (``StateView.superseded_by_fingerprint``).
SUPERSEDED_PREFIX = "was:"


def superseded_prints(item: Item) -> tuple[str, ...]:
    """The fingerprints under which a store indexes ``item`` as a corrected value (none if it is not one).

    Superseded and not purged: a purged version's content is gone, and so must its index rows be.
    """
    if item.status != "superseded" or PURGED_FLAG in item.flags or item.text == REDACTED:
        return ()
    return tuple(SUPERSEDED_PREFIX + fp for fp in fingerprints(item.text, item.key, item.value))


class ProjectionView:
    """What projecting needs to read: the current item, edge, task and intent rows.

    ``task`` / ``intent`` are read by a task's or intent's move event, which carries only what the
    move changed (``model/agenda.py``); a view without them cannot project one (``LookupError``).
    """

    def __init__(
        self,
        item: Callable[[str, str], Item | None],
        edge: Callable[[str, str], Edge | None],
        task: TaskReader | None = None,
        intent: IntentReader | None = None,
    ):
        self.item = item
        self.edge = edge
        self.task = task
        self.intent = intent


def project(event: ev.Event, view: ProjectionView) -> list[Change]:
    """The changes ``event`` makes to the projections."""
    if event.type.startswith("conversation."):
        return project_conversation(event)
    if is_agenda_event(event.type):
        return list(project_agenda(event.type, event.payload, view.task, view.intent))
    handler = _HANDLERS.get(event.type)
    if handler is None:
        return []  # unknown (future) event types are skipped, never fatal for replay
    return handler(event, view)


def _get(view: ProjectionView, event: ev.Event, key: str = "id") -> Item:
    item = view.item(event.scope, event.payload[key])
    if item is None:  # pragma: no cover - the reducer guarantees existence
        raise LookupError(f"event {event.id} refers to missing item {event.payload[key]}")
    return item


def _touch(item: Item, event: ev.Event, **changes: object) -> Item:
    return item.evolve(updated_at=event.at, version=item.version + 1, **changes)


def _remembered(event: ev.Event, view: ProjectionView) -> list[Change]:
    return [PutItem(Item.from_dict(event.payload["item"]), created=True)]


def _corroborated(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    return [
        PutItem(_touch(item, event, evidence_count=event.payload["evidence_count"], last_seen_at=event.at), before=item)
    ]


def _echoed(event: ev.Event, view: ProjectionView) -> list[Change]:
    """More evidence for a superseded version (an echo of a corrected claim); it stays closed.

    The ``echoed`` flag says, on the item the caller gets back, why it is not current truth.
    """
    item = _get(view, event)
    flags = tuple(sorted({*item.flags, ECHOED_FLAG}))
    changed = _touch(item, event, evidence_count=event.payload["evidence_count"], last_seen_at=event.at, flags=flags)
    return [PutItem(changed, before=item)]


def _supersedes_edge(event: ev.Event, winner: Item, loser: Item) -> PutEdge:
    """The ``winner supersedes loser`` edge revise, conflict resolution and a supersedes link record.

    A link's event carries the edge's own author and authority (``edge``); the others take the winner's.
    """
    given = event.payload.get("edge") or {}
    return PutEdge(
        Edge(
            id=event.payload["edge_id"],
            scope=event.scope,
            type="supersedes",
            src=winner.id,
            dst=loser.id,
            recorded_at=event.at,
            author=given.get("author", winner.author),
            authority=float(given.get("authority", winner.scores.authority)),
            meta=(created_edge_meta(event) or ("", {}))[1],
        )
    )


def _revised(event: ev.Event, view: ProjectionView) -> list[Change]:
    old = _get(view, event, "old_id")
    new = Item.from_dict(event.payload["item"])
    ends = event.payload.get("old_valid_to")
    if ends is not None:  # a change in the world: still believed, true until the change
        closed = _touch(old, event, valid_to=from_iso(ends))
    else:  # a correction: no longer believed
        closed = _touch(old, event, status="superseded", closed_at=event.at)
    return [PutItem(closed, before=old), PutItem(new, created=True), _supersedes_edge(event, new, old)]


def _forgotten(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    valid_to = item.valid_to if item.valid_to is not None and item.valid_to < event.at else event.at
    closed = _touch(item, event, status="forgotten", closed_at=event.at, valid_to=valid_to)
    if event.payload.get("retracted") and RETRACTED_FLAG not in closed.flags:  # never true: model.valid_reads
        closed = closed.evolve(flags=(*closed.flags, RETRACTED_FLAG))
    return [PutItem(closed, before=item)]


def _purged(event: ev.Event, view: ProjectionView) -> list[Change]:
    """Close the claim if it is current (like forget) and erase the content of every version.

    The fingerprints are taken before redaction: they are the old content, which the log
    rewrite must find in tombstones and undismiss events.
    """
    prints: set[str] = set()
    redacted: list[Change] = []
    for item_id in event.payload["ids"]:
        item = view.item(event.scope, item_id)
        if item is None:  # pragma: no cover - the reducer listed existing versions only
            continue
        # Already erased (a second purge; or a rebuild, where the rewritten log's items carry the
        # marker without the flag): its "text" is the marker, whose prints must not be sealed.
        if item.text != REDACTED and PURGED_FLAG not in item.flags:
            prints.update(fingerprints(item.text, item.key, item.value))
        clean = redact_item(item)
        if item.is_current:
            valid_to = item.valid_to if item.valid_to is not None and item.valid_to < event.at else event.at
            clean = clean.evolve(status="forgotten", closed_at=event.at, valid_to=valid_to)
        redacted.append(PutItem(_touch(clean, event), redact=True))
    erase = EraseContent(event.scope, tuple(event.payload["ids"]), tuple(sorted(prints)), event.seq)
    return [erase, *redacted]


def _superseded(event: ev.Event, view: ProjectionView) -> list[Change]:
    loser = _get(view, event)
    winner = _get(view, event, "by")
    scores = loser.scores.to_dict()
    scores["authority"] = min(scores["authority"], winner.scores.authority * 0.5)
    closed = _touch(loser, event, status="superseded", closed_at=event.at, scores=Scores.from_dict(scores))
    return [PutItem(closed, before=loser), _supersedes_edge(event, winner, loser)]


def _dismissed(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    changes: list[Change] = []
    if item.is_current:
        changes.append(PutItem(_touch(item, event, status="dismissed", closed_at=event.at), before=item))
    # A print the log wrote before format characters were dropped is stored in today's form
    # (``current_print``), as schema 8 rewrote the tombstones of such a file.
    for fp in dict.fromkeys(map(current_print, event.payload["fingerprints"])):
        changes.append(PutTombstone(event.scope, fp, item.id))
    return changes


def _undismissed(event: ev.Event, view: ProjectionView) -> list[Change]:
    return [DropTombstone(event.scope, fp) for fp in dict.fromkeys(map(current_print, event.payload["fingerprints"]))]


def _scores_set(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    merged = item.scores.to_dict()
    merged.update(event.payload["scores"])
    return [PutItem(_touch(item, event, scores=Scores.from_dict(merged)), before=item)]


def _tier_set(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    return [PutItem(_touch(item, event, tier=event.payload["tier"]), before=item)]


def _tiers_set(event: ev.Event, view: ProjectionView) -> list[Change]:
    moves = tuple((str(c["id"]), str(c["tier"])) for c in event.payload["changes"])
    return [PutTiers(event.scope, event.at, moves)] if moves else []


def _promoted(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    if event.payload["to"] == "manual":
        scores = item.scores.to_dict()
        scores["authority"] = 1.0
        return [PutItem(_touch(item, event, source="manual", scores=Scores.from_dict(scores)), before=item)]
    return [PutItem(_touch(item, event, tier="durable"), before=item)]


def _flags_set(event: ev.Event, view: ProjectionView) -> list[Change]:
    item = _get(view, event)
    flags = [f for f in item.flags if f not in event.payload["remove"]]
    flags += [f for f in event.payload["add"] if f not in flags]
    return [PutItem(_touch(item, event, flags=tuple(sorted(flags))), before=item)]


def _visibility_set(event: ev.Event, view: ProjectionView) -> list[Change]:
    visibility = tuple(event.payload["visibility"] or ())  # None (or [] in an older log): everyone
    changes: list[Change] = []
    for item_id in event.payload["ids"]:
        item = view.item(event.scope, item_id)
        if item is None:  # pragma: no cover - versions are never deleted
            continue
        # The named item's version moves (a reader holding it sees the change); older versions
        # only follow its audience, as a tier move leaves them alone.
        after = (
            _touch(item, event, visibility=visibility)
            if item_id == event.payload["id"]
            else item.evolve(visibility=visibility)
        )
        changes.append(PutItem(after, before=item))
    return changes


def _used(event: ev.Event, view: ProjectionView) -> list[Change]:
    changes: list[Change] = []
    for item_id, weight in event.payload["uses"]:
        item = view.item(event.scope, item_id)
        if item is None:
            continue
        scores = item.scores.to_dict()
        scores["value"] = round(scores["value"] + REINFORCE_RATE * float(weight) * (1.0 - scores["value"]), 9)
        uses = item.use_count + 1
        kind = "semantic" if item.kind == "episodic" and uses >= GRADUATE_AFTER_USES else item.kind
        tier = "active" if item.tier == "subconscious" else item.tier
        changes.append(
            PutItem(
                item.evolve(
                    last_used_at=event.at,
                    last_used_query=event.payload["query"],
                    use_count=uses,
                    scores=Scores.from_dict(scores),
                    kind=kind,
                    tier=tier,
                ),
                before=item,
            )
        )
    return changes


def _linked(event: ev.Event, view: ProjectionView) -> list[Change]:
    return [PutEdge(Edge.from_dict(event.payload["edge"]))]


def _unlinked(event: ev.Event, view: ProjectionView) -> list[Change]:
    edge = view.edge(event.scope, event.payload["edge_id"])
    if edge is None:  # pragma: no cover
        return []
    closed = Edge.from_dict({**edge.to_dict(), "closed_at": event.to_dict()["at"]})
    return [PutEdge(closed)]


def _paused(event: ev.Event, view: ProjectionView) -> list[Change]:
    return [SetPaused(event.scope, True)]


def _resumed(event: ev.Event, view: ProjectionView) -> list[Change]:
    return [SetPaused(event.scope, False)]


_HANDLERS: dict[str, Callable[[ev.Event, ProjectionView], list[Change]]] = {
    ev.REMEMBERED: _remembered,
    ev.CORROBORATED: _corroborated,
    ev.ECHOED: _echoed,
    ev.REVISED: _revised,
    ev.FORGOTTEN: _forgotten,
    ev.PURGED: _purged,
    ev.SUPERSEDED: _superseded,
    ev.DISMISSED: _dismissed,
    ev.UNDISMISSED: _undismissed,
    ev.SCORES_SET: _scores_set,
    ev.TIER_SET: _tier_set,
    ev.TIERS_SET: _tiers_set,
    ev.PROMOTED: _promoted,
    ev.FLAGS_SET: _flags_set,
    ev.VISIBILITY_SET: _visibility_set,
    ev.USED: _used,
    ev.LINKED: _linked,
    ev.UNLINKED: _unlinked,
    ev.LEARNING_PAUSED: _paused,
    ev.LEARNING_RESUMED: _resumed,
}

__all__ = ["Change", "ProjectionView", "from_iso", "project"]
