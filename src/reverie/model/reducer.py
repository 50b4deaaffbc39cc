"""The pure reducer: ``decide`` validates a command against current state and emits events.

It performs no I/O and changes nothing: it reads state through the narrow ``StateView`` the
store passes in (inside the store's write transaction) and returns events. Only after every
check has passed does it build an event, so a refused command emits nothing.

The rules live by subject: claims (``reduce_claims``: remember, revise), conversations
(``conversation_rules``), intents and tasks (``agenda_rules``), and the rest here (forget, purge,
links, scores, tiers, visibility); what they share is ``reduce_kit``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from reverie.errors import (
    AlreadyClosedError,
    InvalidInputError,
    NotFoundError,
)
from reverie.model import events as ev
from reverie.model.agenda_rules import HANDLERS as _AGENDA_HANDLERS
from reverie.model.audience import copy_audiences
from reverie.model.commands import (
    Command,
    Dismiss,
    DismissAlert,
    Forget,
    Link,
    PauseLearning,
    Promote,
    Purge,
    RecordUse,
    Remember,
    ResumeLearning,
    Revise,
    SetFlags,
    SetScores,
    SetTier,
    SetTiers,
    SetVisibility,
    Supersede,
    Undismiss,
    Unlink,
)
from reverie.model.conversation_rules import HANDLERS as _CONVERSATION_HANDLERS
from reverie.model.gists import orphaned_gists, retracted_by
from reverie.model.item import EDGE_TYPES, SYMMETRIC_EDGES, TIERS, Edge, Item
from reverie.model.lineage import ACYCLIC_EDGES, path
from reverie.model.redact import PURGED_FLAG, REDACTED, dismissal_keys, purge_set
from reverie.model.reduce_claims import remember, revise
from reverie.model.reduce_kit import (
    Context,
    StateView,
    check_stale,
    check_version,
    close_contradictions,
    event,
    require,
    require_current,
    tombstone,
)
from reverie.model.validate import AMOUNT_PRINT, fingerprints


def decide(cmd: Command, view: StateView, ctx: Context) -> list[ev.Event]:
    """Validate ``cmd`` against ``view`` and return the events it produces (raises on refusal)."""
    handler = _HANDLERS.get(type(cmd))
    if handler is None:  # pragma: no cover - a programming error, not user input
        raise TypeError(f"no handler for command {type(cmd).__name__}")
    events = handler(cmd, view, ctx)
    events = [*events, *_close_orphaned_gists(events, view, ctx)]
    unseen = getattr(cmd, "unseen", ())
    if not unseen or type(cmd) in _AGENDA_HANDLERS:  # an intent or task keeps them in its record
        return events
    # A principal's words quoting ids it may not see: its own words, so a principal's read of the
    # log does not take them for a mention of the hidden claim (``store.visible``), and never
    # shows this list to a principal. The owner's log keeps it, a replay ignores it.
    return [replace(e, payload={**e.payload, "unseen": list(unseen)}) for e in events]


def _close_orphaned_gists(events: Sequence[ev.Event], view: StateView, ctx: Context) -> list[ev.Event]:
    """Forget each gist whose last standing source these events retract (``model.gists``)."""
    retracted = retracted_by(events)
    if not retracted:
        return []
    scope = events[0].scope
    out: list[ev.Event] = []
    for gist in orphaned_gists(view, scope, retracted):
        why = f"every claim this gist consolidated was corrected or dismissed (last: {', '.join(retracted)})"
        out.append(event(ctx, ev.FORGOTTEN, scope, _forgotten_payload(gist.id, why, retracted=True)))
        out.extend(close_contradictions(view, ctx, scope, gist.id, why))
    return out


def _forgotten_payload(item_id: str, reason: str, *, retracted: bool) -> dict[str, Any]:
    """A ``memory.forgotten`` payload; ``retracted`` (only when set, so other events keep their
    form) says the claim was never true rather than true until now (``model.valid_reads``)."""
    return {"id": item_id, "reason": reason, **({"retracted": True} if retracted else {})}


def _forget(cmd: Forget, view: StateView, ctx: Context) -> list[ev.Event]:
    item = require_current(view, cmd.scope, cmd.id, "forget")
    check_version(item, cmd.expected_version)
    why = cmd.reason or f"{item.id} was forgotten"
    return [
        event(ctx, ev.FORGOTTEN, cmd.scope, _forgotten_payload(item.id, cmd.reason, retracted=cmd.retracted)),
        *close_contradictions(view, ctx, cmd.scope, item.id, why),
    ]


def _purge(cmd: Purge, view: StateView, ctx: Context) -> list[ev.Event]:
    # Any item, current or closed: purging an already forgotten claim must still erase it.
    # Learning pause does not apply: erasure is not learning.
    item = require(view, cmd.scope, cmd.id)
    check_version(item, cmd.expected_version)

    def claim(item_id: str) -> list[Item]:
        return [v for i in view.revisions(cmd.scope, item_id) if (v := view.item(cmd.scope, i)) is not None]

    found = purge_set(claim(item.id), lambda ids: _made_from(view, cmd.scope, ids), claim)
    payload = {"id": item.id, "ids": found.ids, "copies": found.copies, "kept": found.kept, "reason": cmd.reason}
    # A purged claim leaves current truth: its open conflicts close with it (no content in the reason).
    closing = [
        e
        for i in found.ids
        if (it := view.item(cmd.scope, i)) is not None and it.is_current
        for e in close_contradictions(view, ctx, cmd.scope, i, "the claim was purged")
    ]
    return [*closing, event(ctx, ev.PURGED, cmd.scope, payload)]


def _made_from(view: StateView, scope: str, ids: Sequence[str]) -> list[Item]:
    """The items made from any of ``ids`` (open or closed), by id: those listing one as a parent,
    and the system's own items linked to one by a ``derived_from`` edge.

    Why both: a dream-pass pattern names its events by ``derived_from`` edges only (it may have
    hundreds), and a gist lists at most ``Limits.max_parents`` members as parents (the rest by
    edges). Read by a purge (the system's copies go with their claim) and by a restricting
    ``set_visibility`` (they narrow with it); reading parents alone left a pattern quoting its
    events in front of everyone, and on disk after they were purged (outside probe #13, #14).
    A caller's own ``derived_from`` link is its claim, not a copy: it is not followed.
    """
    found = {i.id: i for i in view.derived(scope, ids)}
    for source in ids:
        for e in view.edges_of(scope, source):
            if e.type != "derived_from" or e.dst != source or e.src in found:
                continue
            child = view.item(scope, e.src)
            if child is not None and child.source == "system":
                found[child.id] = child
    return [found[k] for k in sorted(found)]


def _supersede(cmd: Supersede, view: StateView, ctx: Context) -> list[ev.Event]:
    loser = require_current(view, cmd.scope, cmd.id, "supersede")
    winner = require_current(view, cmd.scope, cmd.by, "supersede with")
    if loser.id == winner.id:
        raise InvalidInputError("an item cannot supersede itself")
    return [
        event(
            ctx,
            ev.SUPERSEDED,
            cmd.scope,
            {"id": loser.id, "by": winner.id, "edge_id": ctx.new_id(), "reason": cmd.reason},
        ),
        *close_contradictions(view, ctx, cmd.scope, loser.id, cmd.reason or f"{loser.id} was superseded", winner.id),
    ]


def _dismiss(cmd: Dismiss, view: StateView, ctx: Context) -> list[ev.Event]:
    item = require(view, cmd.scope, cmd.id)
    prints = list(fingerprints(item.text, item.key, item.value))
    dismissed = event(
        ctx,
        ev.DISMISSED,
        cmd.scope,
        {"id": item.id, "fingerprints": prints, "reason": cmd.reason, "was_current": item.is_current},
    )
    if not item.is_current:
        return [dismissed]
    return [dismissed, *close_contradictions(view, ctx, cmd.scope, item.id, cmd.reason or f"{item.id} was dismissed")]


def _undismiss(cmd: Undismiss, view: StateView, ctx: Context) -> list[ev.Event]:
    # The keys actually held: a sealed one is lifted by its seal, so the event names no plain value.
    keys = dict.fromkeys(k for fp in cmd.fingerprints for k in dismissal_keys(fp))
    present = [k for k in keys if tombstone(view, cmd.scope, k, cmd.principal) is not None]
    if not present:
        raise NotFoundError(f"no dismissed value matches in scope {cmd.scope!r}")
    present += [k for k in _spellings(view, cmd.scope, present, cmd.principal) if k not in keys]
    return [event(ctx, ev.UNDISMISSED, cmd.scope, {"fingerprints": present, "reason": cmd.reason})]


def _spellings(view: StateView, scope: str, present: Sequence[str], principal: str | None) -> list[str]:
    """The value tombstones of the claims whose number ``present`` lifts, in their own spelling.

    Lifting ``1024`` by ``1024.0`` matches the dismissed claim's amount print (``kn:``) only; its
    ``kv:`` print, written as "1024", must go too, or ``1024`` would stay refused while ``1024.0``
    is not. (A number dismissed earlier through another claim keeps that claim's spelling.)
    """
    out: list[str] = []
    for key in present:
        if not key.startswith(AMOUNT_PRINT):
            continue
        holder = tombstone(view, scope, key, principal)
        item = view.item(scope, holder) if holder is not None else None
        if item is None or item.key is None or item.value is None:
            continue
        for fp in fingerprints(item.text, item.key, item.value)[1:]:  # the value's prints, not its text's
            out += [
                k for k in dismissal_keys(fp) if k not in present and tombstone(view, scope, k, principal) is not None
            ]
    return list(dict.fromkeys(out))


def _link(cmd: Link, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.type not in EDGE_TYPES:
        raise InvalidInputError(f"edge type {cmd.type!r} is unknown; use one of {', '.join(EDGE_TYPES)}")
    if cmd.src == cmd.dst:
        raise InvalidInputError("an edge needs two different items (src == dst)")
    ends = (require(view, cmd.scope, cmd.src), require(view, cmd.scope, cmd.dst))
    if cmd.type == "contradicts":
        for end in ends:
            if not end.is_current:
                # A conflict needs two current claims: closing an item closes its contradictions,
                # and an edge to a closed one would mark the other contested with nothing open.
                raise AlreadyClosedError(f"cannot link a contradiction to item {end.id}: it is already {end.status}")
    for existing in view.edges_between(cmd.scope, cmd.src, cmd.dst):
        same_way = (existing.src, existing.dst) == (cmd.src, cmd.dst)
        if existing.is_current and existing.type == cmd.type and (same_way or cmd.type in SYMMETRIC_EDGES):
            return []  # idempotent: the relation is already recorded
    if cmd.type in ACYCLIC_EDGES:
        _refuse_cycle(cmd, view)
    if cmd.type == "supersedes" and ends[1].is_current:
        return _supersede_by_link(cmd, ends[0], ends[1], view, ctx)
    edge = Edge(
        id=ctx.new_id(),
        scope=cmd.scope,
        type=cmd.type,
        src=cmd.src,
        dst=cmd.dst,
        recorded_at=ctx.now,
        author=cmd.author,
        authority=cmd.authority,
        meta=cmd.meta,
    )
    return [event(ctx, ev.LINKED, cmd.scope, {"edge": edge.to_dict()})]


def _refuse_cycle(cmd: Link, view: StateView) -> None:
    """``InvalidInputError`` when ``dst`` already reaches ``src`` by this edge type (``model.lineage``).

    The message names only the two ends the caller gave: the path may run through claims a
    principal may not see, whose ids (or number) must not reach it.
    """
    loop = path(
        cmd.dst, cmd.src, cmd.type, lambda i: view.edges_from(cmd.scope, i, cmd.type), lambda i: view.item(cmd.scope, i)
    )
    if loop is None:
        return
    verb = "supersedes" if cmd.type == "supersedes" else "derives from"
    raise InvalidInputError(
        f"{cmd.src} {cmd.type} {cmd.dst} would make a cycle: {cmd.dst} already {verb} {cmd.src}, directly or "
        f"through other claims; a claim cannot be its own {'predecessor' if cmd.type == 'supersedes' else 'source'}"
    )


def _supersede_by_link(cmd: Link, src: Item, dst: Item, view: StateView, ctx: Context) -> list[ev.Event]:
    """``link(a, b, "supersedes")`` with b current: b is replaced by a, as ``resolve`` keeping a would.

    Why not only an edge: "a supersedes b" with both still current said one thing and did another
    (b stayed in current truth, and ``history()`` merged two live claims). The edge keeps the
    link's author, authority and meta (``edge`` in the payload, read by the projection).
    """
    if not src.is_current:
        raise AlreadyClosedError(
            f"{src.id} cannot supersede {dst.id}: {src.id} is already {src.status}, and a closed claim cannot "
            f"replace a current one; revise {dst.id} instead, or link a current claim"
        )
    why = f"superseded by {src.id} (a supersedes link)"
    edge = {"author": cmd.author, "authority": cmd.authority, "meta": cmd.meta}
    payload = {"id": dst.id, "by": src.id, "edge_id": ctx.new_id(), "reason": why, "edge": edge}
    return [
        event(ctx, ev.SUPERSEDED, cmd.scope, payload),
        *close_contradictions(view, ctx, cmd.scope, dst.id, why, src.id),
    ]


def _unlink(cmd: Unlink, view: StateView, ctx: Context) -> list[ev.Event]:
    edge = view.edge(cmd.scope, cmd.edge_id)
    if edge is None:
        raise NotFoundError(f"no edge {cmd.edge_id} in scope {cmd.scope!r}")
    if not edge.is_current:
        raise AlreadyClosedError(f"edge {cmd.edge_id} is already unlinked")
    return [event(ctx, ev.UNLINKED, cmd.scope, {"edge_id": edge.id, "reason": cmd.reason})]


def _set_scores(cmd: SetScores, view: StateView, ctx: Context) -> list[ev.Event]:
    item = require(view, cmd.scope, cmd.id)
    check_version(item, cmd.expected_version)
    return [event(ctx, ev.SCORES_SET, cmd.scope, {"id": item.id, "scores": cmd.scores, "reason": cmd.reason})]


def _set_tier(cmd: SetTier, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.tier not in TIERS:
        raise InvalidInputError(f"tier {cmd.tier!r} is unknown; use one of {', '.join(TIERS)}")
    item = require(view, cmd.scope, cmd.id)
    check_version(item, cmd.expected_version)
    return [event(ctx, ev.TIER_SET, cmd.scope, {"id": item.id, "tier": cmd.tier, "reason": cmd.reason})]


def _set_tiers(cmd: SetTiers, view: StateView, ctx: Context) -> list[ev.Event]:
    """All or nothing: any unknown tier, missing item or stale version refuses the whole command."""
    ids = [c.id for c in cmd.changes]
    if len(set(ids)) != len(ids):
        raise InvalidInputError("set_tiers names an item more than once; give each item one change")
    for c in cmd.changes:
        if c.tier not in TIERS:
            raise InvalidInputError(f"tier {c.tier!r} is unknown; use one of {', '.join(TIERS)}")
    found = view.versions(cmd.scope, ids)
    for c in cmd.changes:
        version = found.get(c.id)
        if version is None:
            raise NotFoundError(f"no item {c.id} in scope {cmd.scope!r}")
        check_stale(c.id, version, c.expected_version)
    if not cmd.changes:
        return []
    changes = [{"id": c.id, "tier": c.tier, "reason": c.reason} for c in cmd.changes]
    return [event(ctx, ev.TIERS_SET, cmd.scope, {"changes": changes})]


def _promote(cmd: Promote, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.to not in ("manual", "durable"):
        raise InvalidInputError(f"promote to {cmd.to!r}: use 'manual' (a person vouches) or 'durable' (tier)")
    item = require_current(view, cmd.scope, cmd.id, "promote")
    return [event(ctx, ev.PROMOTED, cmd.scope, {"id": item.id, "to": cmd.to, "reason": cmd.reason})]


def _set_flags(cmd: SetFlags, view: StateView, ctx: Context) -> list[ev.Event]:
    item = require(view, cmd.scope, cmd.id)
    check_version(item, cmd.expected_version)
    return [
        event(
            ctx,
            ev.FLAGS_SET,
            cmd.scope,
            {"id": item.id, "add": list(cmd.add), "remove": list(cmd.remove), "reason": cmd.reason},
        )
    ]


def _set_visibility(cmd: SetVisibility, view: StateView, ctx: Context) -> list[ev.Event]:
    item = require(view, cmd.scope, cmd.id)
    ids = sorted(set(view.revisions(cmd.scope, item.id)) | {item.id})
    if all((v := view.item(cmd.scope, i)) is None or v.audience == cmd.visibility for i in ids):
        return []  # nothing changes: no event (as pause/resume)
    # ``None`` for everyone, as every face says it (a log written before says ``[]``: the same).
    payload = {"id": item.id, "ids": ids, "visibility": list(cmd.visibility) or None, "reason": cmd.reason}
    return [event(ctx, ev.VISIBILITY_SET, cmd.scope, payload), *_copies_follow(cmd, view, ctx, ids)]


def _copies_follow(cmd: SetVisibility, view: StateView, ctx: Context, ids: Sequence[str]) -> list[ev.Event]:
    """The system's copies of a claim being restricted are restricted with it (``model.audience``):
    one more ``memory.visibility_set`` per copy whose audience narrows, in the same transaction."""
    if not cmd.visibility:
        return []  # widening widens no copy

    def claim(item_id: str) -> list[Item]:
        return [v for i in view.revisions(cmd.scope, item_id) if (v := view.item(cmd.scope, i)) is not None]

    versions = [v for i in ids if (v := view.item(cmd.scope, i)) is not None]
    found = copy_audiences(versions, cmd.visibility, lambda parents: _made_from(view, cmd.scope, parents), claim)
    reason = f"made from {cmd.id}, whose audience was narrowed"
    return [
        event(
            ctx,
            ev.VISIBILITY_SET,
            cmd.scope,
            {"id": c.id, "ids": list(c.ids), "visibility": list(c.visibility), "reason": reason},
        )
        for c in found
    ]


def _record_use(cmd: RecordUse, view: StateView, ctx: Context) -> list[ev.Event]:
    """Uses of items that exist. A purged item's use is dropped and the query erased: a purge erases
    every query that retrieved it, and a recall's use written after the purge (it waited for another
    writer's lock: ``reverie.memory.pending_uses``) must not bring the query back."""
    found = [(i, w, item) for i, w in cmd.uses if (item := view.item(cmd.scope, i)) is not None]
    uses = [[i, w] for i, w, item in found if PURGED_FLAG not in item.flags]
    if not uses:
        return []
    query = REDACTED if len(uses) < len(found) else cmd.query
    return [event(ctx, ev.USED, cmd.scope, {"uses": uses, "query": query})]


def _dismiss_alert(cmd: DismissAlert, view: StateView, ctx: Context) -> list[ev.Event]:
    """A record in the log only: alerts are recomputed each pass, and read this to stay dismissed."""
    payload = {"id": "alerts.dismissed", "alert": cmd.alert, "kind": cmd.kind, "evidence": cmd.evidence}
    return [event(ctx, ev.ALERT_DISMISSED, cmd.scope, {**payload, "reason": cmd.reason})]


def _pause(cmd: PauseLearning, view: StateView, ctx: Context) -> list[ev.Event]:
    if view.paused(cmd.scope):
        return []
    return [event(ctx, ev.LEARNING_PAUSED, cmd.scope, {"reason": cmd.reason})]


def _resume(cmd: ResumeLearning, view: StateView, ctx: Context) -> list[ev.Event]:
    if not view.paused(cmd.scope):
        return []
    return [event(ctx, ev.LEARNING_RESUMED, cmd.scope, {"reason": cmd.reason})]


_HANDLERS: dict[type, Callable[[Any, StateView, Context], list[ev.Event]]] = {
    Remember: remember,
    Revise: revise,
    Forget: _forget,
    Purge: _purge,
    Supersede: _supersede,
    Dismiss: _dismiss,
    Undismiss: _undismiss,
    Link: _link,
    Unlink: _unlink,
    SetScores: _set_scores,
    SetTier: _set_tier,
    SetTiers: _set_tiers,
    Promote: _promote,
    SetFlags: _set_flags,
    SetVisibility: _set_visibility,
    RecordUse: _record_use,
    DismissAlert: _dismiss_alert,
    PauseLearning: _pause,
    ResumeLearning: _resume,
    **_CONVERSATION_HANDLERS,
    **_AGENDA_HANDLERS,
}
