"""The pure reducer: ``decide`` validates a command against current state and emits events.

It performs no I/O and changes nothing: it reads state through the narrow ``StateView`` the
store passes in (inside the store's write transaction) and returns events. Only after every
check has passed does it build an event, so a refused command emits nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from reverie.errors import (
    AlreadyClosedError,
    DismissedValueError,
    InvalidInputError,
    LearningPausedError,
    NotFoundError,
    VersionConflictError,
)
from reverie.model import events as ev
from reverie.model import evidence
from reverie.model.agenda import Intent, Task
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
from reverie.model.conversation import ConversationState, Entry
from reverie.model.conversation_rules import HANDLERS as _CONVERSATION_HANDLERS
from reverie.model.gists import orphaned_gists, retracted_by
from reverie.model.item import DEFAULT_AUTHORITY, EDGE_TYPES, SYMMETRIC_EDGES, TIERS, Edge, Item, Scores
from reverie.model.lineage import ACYCLIC_EDGES, path
from reverie.model.redact import PURGED_FLAG, REDACTED, dismissal_keys, purge_set
from reverie.model.validate import AMOUNT_PRINT, fingerprints
from reverie.model.values import Value, states
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
        out.append(_event(ctx, ev.FORGOTTEN, scope, _forgotten_payload(gist.id, why, retracted=True)))
        out.extend(_close_contradictions(view, ctx, scope, gist.id, why))
    return out


def _event(ctx: Context, type_: str, scope: str, payload: dict[str, Any]) -> ev.Event:
    return ev.Event(id=ctx.new_id(), type=type_, scope=scope, at=ctx.now, cause=ctx.cause, payload=payload)


def _require(view: StateView, scope: str, item_id: str) -> Item:
    item = view.item(scope, item_id)
    if item is None:
        # Same message whether the id is absent or lives in another scope: no existence oracle.
        raise NotFoundError(f"no item {item_id} in scope {scope!r}")
    return item


def _require_current(view: StateView, scope: str, item_id: str, action: str) -> Item:
    item = _require(view, scope, item_id)
    if not item.is_current:
        raise AlreadyClosedError(f"cannot {action} item {item_id}: it is already {item.status}")
    return item


def _check_version(item: Item, expected: int | None) -> None:
    _check_stale(item.id, item.version, expected)


def _check_stale(item_id: str, version: int, expected: int | None) -> None:
    if expected is not None and version != expected:
        raise VersionConflictError(
            f"item {item_id} is at version {version}, not {expected}: it changed since you read it; "
            "read it again and retry"
        )


def _check_learning(view: StateView, scope: str) -> None:
    if view.paused(scope):
        raise LearningPausedError(
            f"learning is paused in scope {scope!r}; call resume_learning({scope!r}) to allow writes"
        )


def _tombstone(view: StateView, scope: str, key: str, principal: str | None) -> str | None:
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


def _check_not_dismissed(view: StateView, scope: str, prints: tuple[str, ...], principal: str | None) -> None:
    # A purge seals the tombstones of its values (``redact.seal``): they refuse the value still.
    for key in (k for fp in prints for k in dismissal_keys(fp)):
        by = _tombstone(view, scope, key, principal)
        if by is not None:
            raise DismissedValueError(
                f"this value was dismissed in scope {scope!r} (tombstone from item {by}); "
                "call undismiss(...) first if it should be learned again"
            )


def _remember(cmd: Remember, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.learning:
        _check_learning(view, cmd.scope)
    prints = fingerprints(cmd.text, cmd.key, cmd.value)
    _check_not_dismissed(view, cmd.scope, prints, cmd.principal)
    for parent in cmd.parents:
        _require(view, cmd.scope, parent)
    if cmd.corroborate:
        existing = _live_match(view, cmd.scope, prints, cmd.valid_from, ctx.now, audience=cmd.visibility)
        if existing is not None:
            source = _once_source(cmd)
            if source is not None and _counted(view, cmd.scope, existing, source):
                return [_restated(ctx, cmd.scope, existing, source)]
            return [_corroborated(ctx, cmd.scope, existing, cmd.source, source)]
        echo = _echo(cmd, prints, view, ctx)
        if echo is not None:
            return [echo]
    scores = Scores(authority=DEFAULT_AUTHORITY.get(cmd.source, 0.5)).to_dict()
    scores.update(cmd.scores)
    item_id = ctx.new_id()
    event_id = ctx.new_id()
    provenance = cmd.provenance.to_dict()
    provenance["event_id"] = event_id
    item = Item(
        id=item_id,
        scope=cmd.scope,
        text=cmd.text,
        kind=cmd.kind,
        source=cmd.source,
        recorded_at=ctx.now,
        updated_at=ctx.now,
        key=cmd.key,
        value=cmd.value,
        author=cmd.author,
        tags=cmd.tags,
        meta=cmd.meta,
        parents=cmd.parents,
        scores=Scores.from_dict(scores),
        tier=cmd.tier,
        flags=cmd.flags,
        valid_from=cmd.valid_from,
        valid_to=cmd.valid_to,
        last_seen_at=ctx.now,
        visibility=cmd.visibility,
    ).to_dict()
    item["provenance"] = provenance
    return [
        ev.Event(
            id=event_id,
            type=ev.REMEMBERED,
            scope=cmd.scope,
            at=ctx.now,
            cause=ctx.cause,
            payload={"item": item, "fingerprints": list(prints)},
        )
    ]


def _corroborated(
    ctx: Context, scope: str, existing: Item, source: str, once: evidence.Source | None = None
) -> ev.Event:
    payload: dict[str, Any] = {"id": existing.id, "evidence_count": existing.evidence_count + 1, "by_source": source}
    if once is not None:  # only a ``count_once`` statement records its source: other payloads keep their shape
        payload["source_ref"] = evidence.source_ref(once)
    return _event(ctx, ev.CORROBORATED, scope, payload)


def _once_source(cmd: Remember) -> evidence.Source | None:
    """The source a ``count_once`` statement names (None: every statement counts, as before)."""
    return evidence.source_of(cmd.provenance) if cmd.count_once else None


def _counted(view: StateView, scope: str, item: Item, source: evidence.Source) -> bool:
    """Has ``source`` already counted as evidence for ``item`` (it made it, or corroborated it)?"""
    if evidence.source_of(item.provenance) == source:
        return True  # it made the claim: no log read (a note re-reading its own claim is the common case)
    return source in view.evidence_sources(scope, item.id)


def _restated(ctx: Context, scope: str, item: Item, source: evidence.Source) -> ev.Event:
    return _event(ctx, ev.RESTATED, scope, {"id": item.id, "source_ref": evidence.source_ref(source)})


def _live_match(
    view: StateView,
    scope: str,
    prints: Sequence[str],
    valid_from: datetime | None,
    now: datetime,
    skip: str | None = None,
    *,
    audience: tuple[str, ...] = (),
) -> Item | None:
    """The current claim equal to one of ``prints`` that a new statement would corroborate.

    A claim whose validity ended before the statement says it starts is a past period, not the
    same claim: "lives in Paris" from 2027 does not corroborate "lives in Paris" until 2026, and
    a statement without ``valid_from`` starts now: "works at Acme" said today must not vanish into
    "works at Acme" 2020-2021, which current truth leaves out (outside probe, finding 2).
    Likewise a claim not valid yet is a later period to a statement that starts before it:
    "Carol is the CEO" said now (from now) must not vanish into "Carol is the CEO" from 2099,
    which current truth leaves out until then.
    Only a claim with the same ``audience`` (visibility) counts: corroborating a claim the writer
    may not see would hand it back that claim, and a private note must not raise a public one.
    """
    start = valid_from if valid_from is not None else now
    for fp in prints:
        for existing in view.live_holders(scope, fp):
            if existing.id == skip or existing.audience != audience:
                continue
            if existing.valid_to is not None and start >= existing.valid_to:
                continue  # ended before the statement starts (a statement without valid_from starts now)
            if existing.valid_from is not None and existing.valid_from > now and start < existing.valid_from:
                continue
            return existing
    return None


#: A correction (revise, resolve) is a deliberate act: it counts as at least a user's statement,
#: so an extractor's ``observed`` or ``inferred`` echo never outranks it whatever the claim's source.
CORRECTION_FLOOR = "user_stated"


def _strength(source: str) -> float:
    """How much a source is trusted (a person's word outranks inference): ``DEFAULT_AUTHORITY``."""
    return DEFAULT_AUTHORITY.get(source, 0.5)


def _corrector(view: StateView, scope: str, old: Item) -> Item | None:
    """The item that superseded ``old`` (the newest, if several did)."""
    by = sorted(e.src for e in view.edges_of(scope, old.id) if e.type == "supersedes" and e.dst == old.id)
    return view.item(scope, by[-1]) if by else None


def _echo(cmd: Remember, prints: Sequence[str], view: StateView, ctx: Context) -> ev.Event | None:
    """``cmd`` restates a value a correction replaced: evidence on the superseded version, or None.

    Why: an extractor that re-reads an old message would otherwise bring a corrected claim back
    as current truth. Two things may reopen it (None: stored as a new claim): a source stronger
    than the correction (its superseder's source, and never less than ``CORRECTION_FLOOR``: a
    person's ``remember_manual``, or the system), or
    an explicit ``valid_from`` after the correction was recorded (the world changed since).
    """
    for fp in prints:
        old = view.superseded_by_fingerprint(cmd.scope, fp)
        if old is None or old.audience != cmd.visibility:  # another audience's claim: not an echo
            continue
        corrector = _corrector(view, cmd.scope, old)
        if corrector is None:
            continue
        once = _once_source(cmd)
        if once is not None and _counted(view, cmd.scope, old, once):
            return _restated(ctx, cmd.scope, old, once)  # this source's echo already counted
        correction = max((corrector.source, CORRECTION_FLOOR), key=_strength)
        if _strength(cmd.source) > _strength(correction):
            return None
        if cmd.valid_from is not None and old.closed_at is not None and cmd.valid_from > old.closed_at:
            return None
        reason = (
            f"echo of a corrected claim: {corrector.id} superseded it, and a {cmd.source!r} source does not "
            f"outrank the correction ({correction!r}); recorded as evidence on the superseded version"
        )
        payload = {
            "id": old.id,
            "evidence_count": old.evidence_count + 1,
            "by_source": cmd.source,
            "corrected_by": corrector.id,
            "reason": reason,
        }
        if once is not None:
            payload["source_ref"] = evidence.source_ref(once)
        return _event(ctx, ev.ECHOED, cmd.scope, payload)
    return None


def _close_contradictions(
    view: StateView, ctx: Context, scope: str, item_id: str, why: str, first: str | None = None
) -> list[ev.Event]:
    """``edge.unlinked`` for every current ``contradicts`` edge of an item leaving current truth.

    Why: a conflict with a claim nobody believes any more is not open, and recall must not mark
    the survivor contested by it (``contradictions()`` and ``Hit.contradicted_by`` agree). Edges
    to ``first`` (the winner of a resolution) come first, so an import can group the events.
    """
    edges = [e for e in view.edges_of(scope, item_id) if e.type == "contradicts"]
    edges.sort(key=lambda e: (first not in (e.src, e.dst), e.id))
    return [_event(ctx, ev.UNLINKED, scope, {"edge_id": e.id, "reason": why}) for e in edges]


def _revise(cmd: Revise, view: StateView, ctx: Context) -> list[ev.Event]:
    _check_learning(view, cmd.scope)
    old = _require_current(view, cmd.scope, cmd.id, "revise")
    _check_version(old, cmd.expected_version)
    key = cmd.key if cmd.key is not None else old.key
    value = _revised_value(cmd, old)
    prints = fingerprints(cmd.text, key, value)
    _check_not_dismissed(view, cmd.scope, prints, cmd.principal)
    valid_from, valid_to = _revised_validity(cmd, old)
    why = cmd.reason or f"{old.id} was revised"
    if cmd.valid_from is None:
        twin = _live_match(view, cmd.scope, prints, valid_from, ctx.now, skip=old.id, audience=old.audience)
        if twin is not None:  # the correction says what another current claim says: corroborate it
            return [
                _corroborated(ctx, cmd.scope, twin, old.source),
                _event(
                    ctx,
                    ev.SUPERSEDED,
                    cmd.scope,
                    {"id": old.id, "by": twin.id, "edge_id": ctx.new_id(), "reason": cmd.reason},
                ),
                *_close_contradictions(view, ctx, cmd.scope, old.id, why, twin.id),
            ]
    new = old.evolve(
        id=ctx.new_id(),
        text=cmd.text,
        key=key,
        value=value,
        author=cmd.author if cmd.author is not None else old.author,
        recorded_at=ctx.now,
        updated_at=ctx.now,
        last_seen_at=ctx.now,
        evidence_count=1,
        version=old.version + 1,
        parents=old.parents,
        flags=old.flags + tuple(f for f in cmd.flags if f not in old.flags),
        last_used_at=None,
        last_used_query=None,
        use_count=0,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    payload_item = new.to_dict()
    event_id = ctx.new_id()
    payload_item["provenance"] = {**old.provenance.to_dict(), "event_id": event_id}
    payload: dict[str, Any] = {
        "old_id": old.id,
        "item": payload_item,
        "fingerprints": list(prints),
        "edge_id": ctx.new_id(),
        "reason": cmd.reason,
    }
    if cmd.valid_from is not None:
        # A change in the world: the old version stays believed and is valid until then.
        payload["old_valid_to"] = payload_item["valid_from"]
    revised = ev.Event(id=event_id, type=ev.REVISED, scope=cmd.scope, at=ctx.now, cause=ctx.cause, payload=payload)
    if cmd.valid_from is not None:
        return [revised]
    return [revised, *_close_contradictions(view, ctx, cmd.scope, old.id, why)]


def _revised_value(cmd: Revise, old: Item) -> Value | None:
    """The new version's structured value: never one its text no longer states.

    Given: used. A new key without a value: none (nothing is known about the new slot). Else the
    old value is kept only if the new text still says it (its words, in order): "Alice lives in
    Madrid" must not keep the value ``Paris``, or a later ``key=alice.city, value=Paris`` would
    corroborate the Madrid claim.
    """
    if cmd.value is not None:
        return cmd.value
    if cmd.key is not None or old.value is None:
        return None
    return old.value if states(cmd.text, old.value) else None


def _revised_validity(cmd: Revise, old: Item) -> tuple[datetime | None, datetime | None]:
    """Valid time of the new version. A correction (no ``valid_from``) keeps the old interval:
    the claim was wrong over the same period. A change at ``valid_from`` starts there; it must
    fall inside the old version's validity, which it ends."""
    if cmd.valid_from is None:
        valid_to = cmd.valid_to if cmd.valid_to is not None else old.valid_to
        if valid_to is not None and old.valid_from is not None and valid_to <= old.valid_from:
            raise InvalidInputError(
                f"valid_to {valid_to.isoformat()} is not after the claim's valid_from {old.valid_from.isoformat()}"
            )
        return old.valid_from, valid_to
    at = cmd.valid_from
    if old.valid_from is not None and at <= old.valid_from:
        raise InvalidInputError(
            f"valid_from {at.isoformat()} is not after the old version's valid_from {old.valid_from.isoformat()}: "
            "a change in the world starts inside the old validity; to say it was wrong, revise without valid_from"
        )
    if old.valid_to is not None and at >= old.valid_to:
        raise InvalidInputError(
            f"valid_from {at.isoformat()} is not before the old version's valid_to {old.valid_to.isoformat()}: "
            "it had already stopped being true; remember the new claim instead"
        )
    if cmd.valid_to is not None and cmd.valid_to <= at:
        raise InvalidInputError("valid_to must be after valid_from")
    return at, cmd.valid_to


def _forgotten_payload(item_id: str, reason: str, *, retracted: bool) -> dict[str, Any]:
    """A ``memory.forgotten`` payload; ``retracted`` (only when set, so other events keep their
    form) says the claim was never true rather than true until now (``model.valid_reads``)."""
    return {"id": item_id, "reason": reason, **({"retracted": True} if retracted else {})}


def _forget(cmd: Forget, view: StateView, ctx: Context) -> list[ev.Event]:
    item = _require_current(view, cmd.scope, cmd.id, "forget")
    _check_version(item, cmd.expected_version)
    why = cmd.reason or f"{item.id} was forgotten"
    return [
        _event(ctx, ev.FORGOTTEN, cmd.scope, _forgotten_payload(item.id, cmd.reason, retracted=cmd.retracted)),
        *_close_contradictions(view, ctx, cmd.scope, item.id, why),
    ]


def _purge(cmd: Purge, view: StateView, ctx: Context) -> list[ev.Event]:
    # Any item, current or closed: purging an already forgotten claim must still erase it.
    # Learning pause does not apply: erasure is not learning.
    item = _require(view, cmd.scope, cmd.id)
    _check_version(item, cmd.expected_version)

    def claim(item_id: str) -> list[Item]:
        return [v for i in view.revisions(cmd.scope, item_id) if (v := view.item(cmd.scope, i)) is not None]

    found = purge_set(claim(item.id), lambda ids: _made_from(view, cmd.scope, ids), claim)
    payload = {"id": item.id, "ids": found.ids, "copies": found.copies, "kept": found.kept, "reason": cmd.reason}
    # A purged claim leaves current truth: its open conflicts close with it (no content in the reason).
    closing = [
        e
        for i in found.ids
        if (it := view.item(cmd.scope, i)) is not None and it.is_current
        for e in _close_contradictions(view, ctx, cmd.scope, i, "the claim was purged")
    ]
    return [*closing, _event(ctx, ev.PURGED, cmd.scope, payload)]


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
    loser = _require_current(view, cmd.scope, cmd.id, "supersede")
    winner = _require_current(view, cmd.scope, cmd.by, "supersede with")
    if loser.id == winner.id:
        raise InvalidInputError("an item cannot supersede itself")
    return [
        _event(
            ctx,
            ev.SUPERSEDED,
            cmd.scope,
            {"id": loser.id, "by": winner.id, "edge_id": ctx.new_id(), "reason": cmd.reason},
        ),
        *_close_contradictions(view, ctx, cmd.scope, loser.id, cmd.reason or f"{loser.id} was superseded", winner.id),
    ]


def _dismiss(cmd: Dismiss, view: StateView, ctx: Context) -> list[ev.Event]:
    item = _require(view, cmd.scope, cmd.id)
    prints = list(fingerprints(item.text, item.key, item.value))
    dismissed = _event(
        ctx,
        ev.DISMISSED,
        cmd.scope,
        {"id": item.id, "fingerprints": prints, "reason": cmd.reason, "was_current": item.is_current},
    )
    if not item.is_current:
        return [dismissed]
    return [dismissed, *_close_contradictions(view, ctx, cmd.scope, item.id, cmd.reason or f"{item.id} was dismissed")]


def _undismiss(cmd: Undismiss, view: StateView, ctx: Context) -> list[ev.Event]:
    # The keys actually held: a sealed one is lifted by its seal, so the event names no plain value.
    keys = dict.fromkeys(k for fp in cmd.fingerprints for k in dismissal_keys(fp))
    present = [k for k in keys if _tombstone(view, cmd.scope, k, cmd.principal) is not None]
    if not present:
        raise NotFoundError(f"no dismissed value matches in scope {cmd.scope!r}")
    present += [k for k in _spellings(view, cmd.scope, present, cmd.principal) if k not in keys]
    return [_event(ctx, ev.UNDISMISSED, cmd.scope, {"fingerprints": present, "reason": cmd.reason})]


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
        holder = _tombstone(view, scope, key, principal)
        item = view.item(scope, holder) if holder is not None else None
        if item is None or item.key is None or item.value is None:
            continue
        for fp in fingerprints(item.text, item.key, item.value)[1:]:  # the value's prints, not its text's
            out += [
                k for k in dismissal_keys(fp) if k not in present and _tombstone(view, scope, k, principal) is not None
            ]
    return list(dict.fromkeys(out))


def _link(cmd: Link, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.type not in EDGE_TYPES:
        raise InvalidInputError(f"edge type {cmd.type!r} is unknown; use one of {', '.join(EDGE_TYPES)}")
    if cmd.src == cmd.dst:
        raise InvalidInputError("an edge needs two different items (src == dst)")
    ends = (_require(view, cmd.scope, cmd.src), _require(view, cmd.scope, cmd.dst))
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
    return [_event(ctx, ev.LINKED, cmd.scope, {"edge": edge.to_dict()})]


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
        _event(ctx, ev.SUPERSEDED, cmd.scope, payload),
        *_close_contradictions(view, ctx, cmd.scope, dst.id, why, src.id),
    ]


def _unlink(cmd: Unlink, view: StateView, ctx: Context) -> list[ev.Event]:
    edge = view.edge(cmd.scope, cmd.edge_id)
    if edge is None:
        raise NotFoundError(f"no edge {cmd.edge_id} in scope {cmd.scope!r}")
    if not edge.is_current:
        raise AlreadyClosedError(f"edge {cmd.edge_id} is already unlinked")
    return [_event(ctx, ev.UNLINKED, cmd.scope, {"edge_id": edge.id, "reason": cmd.reason})]


def _set_scores(cmd: SetScores, view: StateView, ctx: Context) -> list[ev.Event]:
    item = _require(view, cmd.scope, cmd.id)
    _check_version(item, cmd.expected_version)
    return [_event(ctx, ev.SCORES_SET, cmd.scope, {"id": item.id, "scores": cmd.scores, "reason": cmd.reason})]


def _set_tier(cmd: SetTier, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.tier not in TIERS:
        raise InvalidInputError(f"tier {cmd.tier!r} is unknown; use one of {', '.join(TIERS)}")
    item = _require(view, cmd.scope, cmd.id)
    _check_version(item, cmd.expected_version)
    return [_event(ctx, ev.TIER_SET, cmd.scope, {"id": item.id, "tier": cmd.tier, "reason": cmd.reason})]


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
        _check_stale(c.id, version, c.expected_version)
    if not cmd.changes:
        return []
    changes = [{"id": c.id, "tier": c.tier, "reason": c.reason} for c in cmd.changes]
    return [_event(ctx, ev.TIERS_SET, cmd.scope, {"changes": changes})]


def _promote(cmd: Promote, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.to not in ("manual", "durable"):
        raise InvalidInputError(f"promote to {cmd.to!r}: use 'manual' (a person vouches) or 'durable' (tier)")
    item = _require_current(view, cmd.scope, cmd.id, "promote")
    return [_event(ctx, ev.PROMOTED, cmd.scope, {"id": item.id, "to": cmd.to, "reason": cmd.reason})]


def _set_flags(cmd: SetFlags, view: StateView, ctx: Context) -> list[ev.Event]:
    item = _require(view, cmd.scope, cmd.id)
    _check_version(item, cmd.expected_version)
    return [
        _event(
            ctx,
            ev.FLAGS_SET,
            cmd.scope,
            {"id": item.id, "add": list(cmd.add), "remove": list(cmd.remove), "reason": cmd.reason},
        )
    ]


def _set_visibility(cmd: SetVisibility, view: StateView, ctx: Context) -> list[ev.Event]:
    item = _require(view, cmd.scope, cmd.id)
    ids = sorted(set(view.revisions(cmd.scope, item.id)) | {item.id})
    if all((v := view.item(cmd.scope, i)) is None or v.audience == cmd.visibility for i in ids):
        return []  # nothing changes: no event (as pause/resume)
    # ``None`` for everyone, as every face says it (a log written before says ``[]``: the same).
    payload = {"id": item.id, "ids": ids, "visibility": list(cmd.visibility) or None, "reason": cmd.reason}
    return [_event(ctx, ev.VISIBILITY_SET, cmd.scope, payload), *_copies_follow(cmd, view, ctx, ids)]


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
        _event(
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
    return [_event(ctx, ev.USED, cmd.scope, {"uses": uses, "query": query})]


def _dismiss_alert(cmd: DismissAlert, view: StateView, ctx: Context) -> list[ev.Event]:
    """A record in the log only: alerts are recomputed each pass, and read this to stay dismissed."""
    payload = {"id": "alerts.dismissed", "alert": cmd.alert, "kind": cmd.kind, "evidence": cmd.evidence}
    return [_event(ctx, ev.ALERT_DISMISSED, cmd.scope, {**payload, "reason": cmd.reason})]


def _pause(cmd: PauseLearning, view: StateView, ctx: Context) -> list[ev.Event]:
    if view.paused(cmd.scope):
        return []
    return [_event(ctx, ev.LEARNING_PAUSED, cmd.scope, {"reason": cmd.reason})]


def _resume(cmd: ResumeLearning, view: StateView, ctx: Context) -> list[ev.Event]:
    if not view.paused(cmd.scope):
        return []
    return [_event(ctx, ev.LEARNING_RESUMED, cmd.scope, {"reason": cmd.reason})]


_HANDLERS: dict[type, Callable[[Any, StateView, Context], list[ev.Event]]] = {
    Remember: _remember,
    Revise: _revise,
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
