"""The pass's pattern step: temporal patterns found in the snapshot become pattern items.

Each pattern (``reverie.dream.patterns``) is one current item of kind ``pattern`` (source
``system``, ``meta.dream == "pattern"``, ``meta.pattern`` its rule, value, support, expected
and strength) with a ``derived_from`` edge to every member of its support set. Why an item:
recall, the review page and every face already read items, with provenance and history.

Idempotent: a pattern's ``key`` is stable for (kind of event, rule, value). A second pass over
an unchanged scope plans nothing; when the support set or the text changed, the new version
supersedes the old one in the same savepoint (one current pattern per key, the old one kept as
history); a pattern that no longer holds is forgotten with the reason.
"""

from __future__ import annotations

from reverie.dream.patterns import EVENT_KINDS, Event, Pattern, event_time, find_patterns, template
from reverie.dream.plan import Planner
from reverie.dream.salience import is_gist, is_pattern
from reverie.model.item import Item

PATTERN_KIND = "pattern"
#: Highest authority a pattern gets: it is an inference over the events, never a witness.
MAX_AUTHORITY = 0.7


def patterns(p: Planner) -> None:
    """Plan the pattern items the snapshot's events support now (see the module docstring)."""
    snap = p.snap
    if not p.config.patterns:
        return
    existing: dict[str, Item] = {}
    for it in snap.items:
        if is_pattern(it) and it.id not in p.closing:  # one the keep budget forgets now is gone already
            key = str(it.meta.get("pattern", {}).get("key", ""))
            existing.setdefault(key, it)  # two current items for one key cannot arise; keep the oldest
    members: dict[str, set[str]] = {}
    for e in snap.edges:
        if e.type == "derived_from" and e.src in snap.index:
            members.setdefault(e.src, set()).add(e.dst)
    events = [
        Event(it.id, event_time(it.valid_from, it.recorded_at), template(it.text), it.text)
        for it in snap.items
        if it.kind in EVENT_KINDS and it.source != "system" and not is_gist(it) and it.id not in p.closing
    ]
    found = find_patterns(events)
    p.stats["pattern_events"] = len(events)
    p.stats["patterns"] = len(found)
    kept = 0
    for pat in found:
        old = existing.pop(pat.key, None)
        if old is not None and members.get(old.id, set()) == set(pat.members) and old.text == pat.text():
            kept += 1
            continue
        _plan_pattern(p, pat, old)
    p.stats["patterns_unchanged"] = kept
    for old in sorted(existing.values(), key=lambda it: it.id):
        p.closing.add(old.id)
        p.add("pattern", "forget", (old,), "the recurring pattern no longer holds on the scope's current events")


def _plan_pattern(p: Planner, pat: Pattern, old: Item | None) -> None:
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
    )


__all__ = ["PATTERN_KIND", "is_pattern", "patterns"]
