"""The pass's pattern step: temporal patterns found in the snapshot become pattern items.

Each pattern (``reverie.dream.patterns``) is one current item of kind ``pattern`` (source
``system``, ``meta.dream == "pattern"``, ``meta.pattern`` its rule, value, support, expected
and strength) with a ``derived_from`` edge to every member of its support set. Why an item:
recall, the review page and every face already read items, with provenance and history.

Patterns are found among the events of one audience (``visibility``) and carry it, as gists
merge only claims of equal visibility: an item is kept per (key, audience). Restricting an event
later narrows its patterns at once (``model.audience`` follows the ``derived_from`` edges); the
next pass then rebuilds each audience's patterns from its own events.

Idempotent: a pattern's ``key`` is stable for (kind of event, rule, value). A second pass over
an unchanged scope plans nothing; when the support set or the text changed, the new version
supersedes the old one in the same savepoint (one current pattern per key, the old one kept as
history); a pattern that no longer holds is forgotten with the reason.

A dismissed pattern stays dismissed while its kind of event, rule and value (its ``key``) and its
audience are the same: the pass does not plan it again, whatever its counts say now. Why not the
tombstone alone: the tombstone is on the dismissed text, and a pattern's text carries its counts
("14 of 14 events"), so one more matching event made a text no tombstone matched and the pattern
came back live (outside probe 4, finding 12). Lifting the dismissal (``undismiss`` of that text)
lets the next pass find it again.
"""

from __future__ import annotations

from reverie.dream.patterns import (
    EVENT_KINDS,
    Event,
    Pattern,
    content_free,
    event_time,
    find_patterns,
    template,
)
from reverie.dream.plan import Planner
from reverie.dream.salience import is_gist, is_pattern
from reverie.model.audience import narrowed
from reverie.model.item import Item
from reverie.model.query import Q, parse_sort
from reverie.store.protocol import Store

PATTERN_KIND = "pattern"
#: Highest authority a pattern gets: it is an inference over the events, never a witness.
MAX_AUTHORITY = 0.7


#: Dismissed patterns a pass reads at most (a scope whose user dismissed more is far outside any use).
MAX_DISMISSED = 10_000


def patterns(p: Planner, store: Store | None = None) -> None:
    """Plan the pattern items the snapshot's events support now (see the module docstring).

    ``store``: where the scope's dismissed patterns are read (None: none are known)."""
    snap = p.snap
    if not p.config.patterns:
        return
    dismissed = dismissed_patterns(store, snap.scope) if store is not None else set()
    members: dict[str, set[str]] = {}
    for e in snap.edges:
        if e.type == "derived_from" and e.src in snap.index:
            members.setdefault(e.src, set()).add(e.dst)
    existing: dict[tuple[str, tuple[str, ...]], Item] = {}
    for it in snap.items:
        if is_pattern(it) and it.id not in p.closing:  # one the keep budget forgets now is gone already
            key = str(it.meta.get("pattern", {}).get("key", ""))
            audience = _narrowed_to_members(p, it, members.get(it.id, set()))
            existing.setdefault((key, audience), it)  # one current item per key and audience; the oldest
    by_audience: dict[tuple[str, ...], list[Event]] = {}
    for it in snap.items:
        if it.kind in EVENT_KINDS and it.source != "system" and not is_gist(it) and it.id not in p.closing:
            event = _event(it)
            if event is not None:
                by_audience.setdefault(it.audience, []).append(event)
    # Patterns are found among the events of one audience and carry it, as gists do: a pattern
    # quotes an event, counts them and says when they happen, so one mixing audiences would show
    # a principal what it may not see (outside probe #13).
    found = [(audience, pat) for audience in sorted(by_audience) for pat in find_patterns(by_audience[audience])]
    p.stats["pattern_events"] = sum(len(v) for v in by_audience.values())
    p.stats["patterns"] = len(found)
    kept = refused = 0
    for audience, pat in found:
        old = existing.pop((pat.key, audience), None)
        if (pat.key, audience) in dismissed:
            refused += 1
            if old is not None:  # a copy of a dismissed pattern (an import, an older build's): it goes too
                p.closing.add(old.id)
                p.add("pattern", "forget", (old,), "this recurring pattern was dismissed")
            continue
        if old is not None and members.get(old.id, set()) == set(pat.members) and old.text == pat.text():
            kept += 1
            continue
        _plan_pattern(p, pat, old, audience)
    p.stats["patterns_unchanged"] = kept
    p.stats["patterns_dismissed"] = refused
    for old in sorted(existing.values(), key=lambda it: it.id):
        p.closing.add(old.id)
        p.add("pattern", "forget", (old,), "the recurring pattern no longer holds on the scope's current events")


#: What a message memory's text puts after the message itself: the turns before it
#: (``conversation.window``; the dream layer does not import the conversation wing).
_CONTEXT = " || context: "


def _event(it: Item) -> Event | None:
    """``it`` as an event, or None when it is none of the user's: a message memory whose role is
    not ``user`` (the assistant's "Noted.", a system prompt), or an acknowledgement with no
    content ("Ok thanks.") from anyone.

    A message memory's text is its window ("[date] Alice: text || context: Bot: Noted. | …"):
    its kind of event is the speaker and the message's own words (``_said``), not the turns
    quoted as context, which made a user's question another kind of event each time the
    assistant's ack before it changed.
    """
    text = it.text
    if "message" in it.meta and "conversation" in it.meta:  # a message memory (``conversation.writer``)
        role = it.meta.get("role")
        if role != "user":
            return None
        label = str(it.meta.get("speaker") or role)
        said = _said(text, label)
        if content_free(said):
            return None
        kind = template(f"{label}: {said}")
    elif content_free(text):
        return None
    else:
        kind = template(text)
    return Event(it.id, event_time(it.valid_from, it.recorded_at), kind, text)


def _said(window: str, label: str) -> str:
    """The message's own words in its memory's window text (the whole text if it is not one)."""
    head = f"] {label}: "
    start = window.find(head) if window.startswith("[") else -1
    if start < 0:
        return window
    body = window[start + len(head) :]
    end = body.find(_CONTEXT)
    return body if end < 0 else body[:end]


def dismissed_patterns(store: Store, scope: str) -> set[tuple[str, tuple[str, ...]]]:
    """(key, audience) of every pattern dismissed in ``scope`` whose dismissal still stands (a
    tombstone it holds: ``undismiss`` lifts it)."""
    where = Q.kind(PATTERN_KIND) & Q.status("dismissed")
    gone = [it for it in store.query(scope, where, parse_sort(["id"]), limit=MAX_DISMISSED) if is_pattern(it)]
    if not gone:
        return set()
    standing = {holder for _, holder in store.tombstones(scope)}
    return {(str(it.meta["pattern"].get("key", "")), it.audience) for it in gone if it.id in standing}


def _narrowed_to_members(p: Planner, pattern: Item, members: set[str]) -> tuple[str, ...]:
    """The audience ``pattern`` may have given its current events; narrowed now if it is wider.

    A pattern written before patterns carried their events' audience (or one whose event was
    restricted in a way no copy rule reached) may be shown to principals who may not see its
    events: it is narrowed to them, as ``set_visibility`` on an event narrows its copies
    (``model.audience.narrowed``: never a principal more), before anything else the pass plans.
    """
    audience = pattern.audience
    for member in sorted(members):
        event = p.snap.item(member)
        if event is not None:
            audience = narrowed(audience, event.audience)
    if audience != pattern.audience:
        why = "a pattern is shown only to whom may see its events: narrowed to their audience"
        p.add("pattern", "set_visibility", (pattern,), why, visibility=list(audience))
    return audience


def _plan_pattern(p: Planner, pat: Pattern, old: Item | None, audience: tuple[str, ...]) -> None:
    snap = p.snap
    group = [it for i in pat.members if (it := snap.item(i)) is not None]
    authority = min(MAX_AUTHORITY, min(it.scores.authority for it in group))
    why = (
        f"{pat.support} of {pat.total} events of one kind fit the {pat.rule} rule ({pat.detail}); "
        f"strength = support / expected = {pat.support} / {pat.expected:.2f} = {pat.strength:g}"
    )
    if old is not None:
        why += f"; supersedes pattern {old.id} (its support set or text changed)"
    p.add(
        "pattern",
        "remember_pattern",
        [*group, *([old] if old is not None else [])],
        why,
        text=pat.text(),
        kind=PATTERN_KIND,
        authority=authority,
        confidence=round(min(0.95, pat.support / pat.total), 4),
        importance=0.5,
        tags=["pattern"],
        meta={"dream": "pattern", "pattern": pat.to_meta()},
        members=list(pat.members),
        replaces=old.id if old is not None else None,
        visibility=list(audience),
    )


__all__ = ["PATTERN_KIND", "dismissed_patterns", "is_pattern", "patterns"]
