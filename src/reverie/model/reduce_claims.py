"""The reducer's rules for what is claimed: ``remember`` and ``revise``.

A new claim may corroborate a current one (same fingerprint: its evidence grows instead of a
twin), echo a claim it restates (a weaker source reinforcing a stronger one), be refused because
its value was dismissed, or correct an older claim. ``revise`` writes a new version after the
same checks. Split from ``reducer`` for size; pure like it (``reduce_kit`` holds what they share).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from reverie.errors import (
    InvalidInputError,
)
from reverie.model import events as ev
from reverie.model import evidence
from reverie.model.commands import (
    Remember,
    Revise,
)
from reverie.model.item import DEFAULT_AUTHORITY, Item, Scores
from reverie.model.reduce_kit import (
    Context,
    StateView,
    check_learning,
    check_not_dismissed,
    check_version,
    close_contradictions,
    event,
    require,
    require_current,
)
from reverie.model.validate import fingerprints
from reverie.model.values import Value, states


def remember(cmd: Remember, view: StateView, ctx: Context) -> list[ev.Event]:
    if cmd.learning:
        check_learning(view, cmd.scope)
    prints = fingerprints(cmd.text, cmd.key, cmd.value)
    check_not_dismissed(view, cmd.scope, prints, cmd.principal)
    for parent in cmd.parents:
        require(view, cmd.scope, parent)
    if cmd.corroborate:
        existing = _live_match(view, cmd.scope, prints, cmd.valid_from, ctx.now, audience=cmd.visibility)
        if existing is not None:
            source = _once_source(cmd)
            if source is not None and _counted(view, cmd.scope, existing, source):
                return [_restated(ctx, cmd.scope, existing, source)]
            return [_corroborated(ctx, cmd.scope, existing, cmd.source, source, author=cmd.author)]
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
    ctx: Context,
    scope: str,
    existing: Item,
    source: str,
    once: evidence.Source | None = None,
    *,
    author: str | None = None,
) -> ev.Event:
    payload: dict[str, Any] = {"id": existing.id, "evidence_count": existing.evidence_count + 1, "by_source": source}
    if once is not None:  # only a ``count_once`` statement records its source: other payloads keep their shape
        payload["source_ref"] = evidence.source_ref(once)
    if author is not None:  # who said it again: the bias checks count each author's share of the evidence
        payload["by_author"] = author
    return event(ctx, ev.CORROBORATED, scope, payload)


def _once_source(cmd: Remember) -> evidence.Source | None:
    """The source a ``count_once`` statement names (None: every statement counts, as before)."""
    return evidence.source_of(cmd.provenance) if cmd.count_once else None


def _counted(view: StateView, scope: str, item: Item, source: evidence.Source) -> bool:
    """Has ``source`` already counted as evidence for ``item`` (it made it, or corroborated it)?"""
    if evidence.source_of(item.provenance) == source:
        return True  # it made the claim: no log read (a note re-reading its own claim is the common case)
    return source in view.evidence_sources(scope, item.id)


def _restated(ctx: Context, scope: str, item: Item, source: evidence.Source) -> ev.Event:
    return event(ctx, ev.RESTATED, scope, {"id": item.id, "source_ref": evidence.source_ref(source)})


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
        return event(ctx, ev.ECHOED, cmd.scope, payload)
    return None


def revise(cmd: Revise, view: StateView, ctx: Context) -> list[ev.Event]:
    check_learning(view, cmd.scope)
    old = require_current(view, cmd.scope, cmd.id, "revise")
    check_version(old, cmd.expected_version)
    key = cmd.key if cmd.key is not None else old.key
    value = _revised_value(cmd, old)
    prints = fingerprints(cmd.text, key, value)
    check_not_dismissed(view, cmd.scope, prints, cmd.principal)
    valid_from, valid_to = _revised_validity(cmd, old)
    why = cmd.reason or f"{old.id} was revised"
    if cmd.valid_from is None:
        twin = _live_match(view, cmd.scope, prints, valid_from, ctx.now, skip=old.id, audience=old.audience)
        if twin is not None:  # the correction says what another current claim says: corroborate it
            return [
                _corroborated(ctx, cmd.scope, twin, old.source),
                event(
                    ctx,
                    ev.SUPERSEDED,
                    cmd.scope,
                    {"id": old.id, "by": twin.id, "edge_id": ctx.new_id(), "reason": cmd.reason},
                ),
                *close_contradictions(view, ctx, cmd.scope, old.id, why, twin.id),
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
    return [revised, *close_contradictions(view, ctx, cmd.scope, old.id, why)]


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
