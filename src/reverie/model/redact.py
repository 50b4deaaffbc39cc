"""Purge: what a claim looks like once its content is erased, and how the log is rewritten.

Purging is the one exception to "never delete" (a GDPR erasure, a leaked secret). The log
keeps its shape — every event, id, type, time and cause stays, so provenance survives and a
rebuild still works — but every field that carried the purged claim's content is replaced.
What is erased is decided once, by the reducer, with ``purge_set``: every version of the
claim, plus the system's own copies of it (a dream gist quoting it), with their versions.

- an item (each erased version): ``text`` becomes ``REDACTED``; ``key``, ``value``,
  ``tags`` and ``meta`` are emptied; a recorded ``last_used_query`` becomes ``REDACTED``.
  Id, scope, kind, source, author, provenance, scores and times stay.
- events *about* a purged version: the embedded item is redacted as above, its fingerprints
  (normalised text) dropped, and any free-text ``reason`` becomes ``REDACTED``. "About"
  includes the unlink of any edge touching it (the event names only the edge) and both sides
  of a conflict resolution: a reason given on an operation about the claim is its content;
- edges touching a purged version: their ``meta`` (a link's annotations, a revise's reason)
  is redacted in the event that created them, so the edge row follows on replay;
- bulk tier events: the ``reason`` of each change naming a purged version becomes ``REDACTED``;
- usage events: a query that retrieved a purged version may quote it, so that query is
  erased from *every* usage event and every item's ``last_used_query`` in the scope;
- tombstones, dismiss and undismiss events: a fingerprint is the claim's normalised text, so
  each purged version's fingerprint is replaced by its *seal* (a SHA-256 digest, ``seal``) in
  every one of them. A purge never changes which values are dismissed: the sealed tombstone
  still refuses the value (``dismissal_keys``), and an undismiss that lifted it still lifts it.
  An undismiss of a purged value is about the purged claim, so its reason is erased too.

Everything here is pure: the stores fetch the events, call ``plan_erasure`` and write back
what it returns, so the in-memory reference store and SQLite erase exactly the same things,
and replaying the rewritten log gives exactly the live state.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reverie.model import events as ev
from reverie.model.item import Item
from reverie.model.validate import current_print

#: What replaces erased text. Searchable as "purged" in history, and obviously not a claim.
REDACTED = "[purged]"
#: Flag set on every purged version, so lists and the review page can say what happened.
PURGED_FLAG = "purged"


#: Prefix of a sealed fingerprint; plain ones start with ``t:`` or ``kv:`` (``validate.fingerprints``).
SEALED_PREFIX = "sealed:"


def seal(fingerprint: str) -> str:
    """The tombstone key that stands for ``fingerprint`` once its claim is purged.

    A digest, not the text: the file no longer holds the value, yet remembering it again
    still finds the tombstone. What it cannot hide is a guess: whoever can write to the scope
    (or hash a candidate) can test whether a given value was dismissed, which is what keeping
    the dismissal means. Unsalted, so both backends and a rebuild compute the same key.
    """
    if fingerprint.startswith(SEALED_PREFIX):
        return fingerprint
    return SEALED_PREFIX + hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()


def dismissal_keys(fingerprint: str) -> tuple[str, str]:
    """Both keys a tombstone of ``fingerprint`` may be stored under: as written, and sealed."""
    return fingerprint, seal(fingerprint)


def _purged_print(fp: object, fps: frozenset[str]) -> bool:
    """Is ``fp`` one of the purged prints, also as the log wrote it before format characters were
    dropped (``current_print``: that spelling quotes the claim's words too)?"""
    return isinstance(fp, str) and (fp in fps or current_print(fp) in fps)


def _sealed(prints: Iterable[object], fps: frozenset[str]) -> list[object]:
    """``prints`` with each purged fingerprint replaced by its seal, duplicates dropped, order kept."""
    out: list[object] = []
    for fp in prints:
        key = seal(current_print(fp)) if isinstance(fp, str) and _purged_print(fp, fps) else fp
        if key not in out:
            out.append(key)
    return out


def redact_item(item: Item) -> Item:
    """``item`` with its content erased and the ``purged`` flag set (times and ids kept)."""
    return item.evolve(
        text=REDACTED,
        key=None,
        value=None,
        tags=(),
        meta={},
        last_used_query=None if item.last_used_query is None else REDACTED,
        flags=tuple(sorted({*item.flags, PURGED_FLAG})),
    )


def _redact_item_dict(data: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(data)
    out.update(text=REDACTED, key=None, value=None, tags=[], meta={})
    if out.get("last_used_query") is not None:
        out["last_used_query"] = REDACTED
    return out


def _reason(text: object) -> object:
    return REDACTED if isinstance(text, str) and text else text


def created_edge_meta(event: ev.Event) -> tuple[str, dict[str, Any]] | None:
    """The (edge id, meta) of the edge ``event`` creates, if it creates one.

    The projection builds edge rows from exactly this, so a redacted event and the edge row
    a live purge rewrites can never disagree.
    """
    p = event.payload
    if event.type == ev.LINKED:
        return str(p["edge"]["id"]), dict(p["edge"].get("meta") or {})
    if event.type == ev.SUPERSEDED and isinstance(p.get("edge"), dict):  # a supersedes link: the caller's meta
        return str(p["edge_id"]), dict(p["edge"].get("meta") or {})
    if event.type in (ev.REVISED, ev.SUPERSEDED):
        return str(p["edge_id"]), {"reason": p.get("reason", "")}
    return None


def _about(event: ev.Event, ids: frozenset[str], edge_ids: set[str]) -> bool:
    p = event.payload
    if any(p.get(k) in ids for k in ("id", "old_id", "by")):
        return True
    if isinstance(p.get("item"), dict) and p["item"].get("id") in ids:
        return True
    edge = p.get("edge")
    if isinstance(edge, dict) and (edge.get("src") in ids or edge.get("dst") in ids):
        return True
    return event.type == ev.UNLINKED and p.get("edge_id") in edge_ids


def used_queries(events: Iterable[ev.Event], ids: frozenset[str]) -> set[str]:
    """Queries of usage events that retrieved a purged version (already erased ones excluded)."""
    found: set[str] = set()
    for e in events:
        if e.type == ev.USED and any(u[0] in ids for u in e.payload.get("uses", [])):
            query = e.payload.get("query")
            if isinstance(query, str) and query != REDACTED:
                found.add(query)
    return found


def _redact_payload(
    event: ev.Event, ids: frozenset[str], edge_ids: set[str], fps: frozenset[str], queries: set[str]
) -> dict[str, Any]:
    p = dict(event.payload)
    if event.type == ev.USED:
        if p.get("query") in queries:
            p["query"] = REDACTED
        return p
    if event.type == ev.UNDISMISSED:  # about a value: about the purged claim if it lifts its value
        prints = list(p.get("fingerprints", []))
        p["fingerprints"] = _sealed(prints, fps)
        if any(_purged_print(fp, fps) for fp in prints):
            p["reason"] = _reason(p.get("reason"))
        return p
    if event.type == ev.DISMISSED:  # sealed even if another claim's: the key must be the same everywhere
        p["fingerprints"] = _sealed(p.get("fingerprints", []), fps)
    if event.type == ev.TIERS_SET:  # many items: only the purged ones' reasons are erased
        p["changes"] = [
            {**c, "reason": _reason(c.get("reason"))} if c.get("id") in ids else c for c in p.get("changes", [])
        ]
        return p
    if event.type == ev.PURGED or not _about(event, ids, edge_ids):
        return p  # a purge's own reason is what the log must keep saying
    if isinstance(p.get("item"), dict) and p["item"].get("id") in ids:
        p["item"] = _redact_item_dict(p["item"])
    if "fingerprints" in p and event.type != ev.DISMISSED:
        p["fingerprints"] = []  # remember / revise: the item's own prints, rebuilt from its text
    if "reason" in p:
        p["reason"] = _reason(p["reason"])
    if event.type in (ev.LINKED, ev.SUPERSEDED) and isinstance(p.get("edge"), dict):
        p["edge"] = {**p["edge"], "meta": {}}
    return p


@dataclass(slots=True)
class ErasurePlan:
    """What a store writes back: rewritten events, edge metas, erased queries, tombstone states."""

    events: list[ev.Event] = field(default_factory=list)
    edge_meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    queries: set[str] = field(default_factory=set)
    #: Tombstone key -> the item holding it after the rewrite, or None (no row): every purged
    #: fingerprint as written (always None: no rewritten event names it) and sealed.
    tombstones: dict[str, str | None] = field(default_factory=dict)


def plan_erasure(events: Sequence[ev.Event], ids: Iterable[str], fps: Iterable[str]) -> ErasurePlan:
    """Plan the rewrite of ``events`` (the scope's log before the purge, in ``seq`` order).

    ``events`` may be a superset (a store prefilters cheaply); only events that change are
    returned. ``fps`` are the purged versions' fingerprints, computed before redaction.
    """
    id_set, fp_set = frozenset(ids), frozenset(fps)
    keys = sorted({k for fp in fp_set for k in dismissal_keys(fp)})
    plan = ErasurePlan(queries=used_queries(events, id_set), tombstones=dict.fromkeys(keys))
    edge_ids: set[str] = set()
    for event in sorted(events, key=lambda e: e.seq):
        made = created_edge_meta(event)
        if made is not None and _about(event, id_set, edge_ids):
            edge_ids.add(made[0])
        payload = _redact_payload(event, id_set, edge_ids, fp_set, plan.queries)
        redacted = event if payload == event.payload else _with_payload(event, payload)
        if redacted is not event:
            plan.events.append(redacted)
            if made is not None:
                plan.edge_meta[made[0]] = (created_edge_meta(redacted) or made)[1]
        _replay_tombstones(redacted, plan.tombstones)
    return plan


def _replay_tombstones(event: ev.Event, state: dict[str, str | None]) -> None:
    """Track what the tombstones of the purged fingerprints become when the rewritten log replays."""
    if event.type == ev.DISMISSED:
        for fp in event.payload.get("fingerprints", []):
            if fp in state:
                state[fp] = str(event.payload["id"])
    elif event.type == ev.UNDISMISSED:
        for fp in event.payload.get("fingerprints", []):
            if fp in state:
                state[fp] = None


def _with_payload(event: ev.Event, payload: dict[str, Any]) -> ev.Event:
    return ev.Event(
        id=event.id,
        type=event.type,
        scope=event.scope,
        at=event.at,
        cause=event.cause,
        payload=payload,
        seq=event.seq,
    )


def revision_chain(pairs: Iterable[tuple[str, str]], item_id: str) -> list[str]:
    """Every version linked to ``item_id`` by revise (``(old_id, new_id)`` pairs), sorted by id.

    Only revise links count: ``supersede`` (conflict resolution) joins two *different*
    claims, and purging one must not erase the other.
    """
    links: dict[str, set[str]] = {}
    for old, new in pairs:
        links.setdefault(old, set()).add(new)
        links.setdefault(new, set()).add(old)
    seen = {item_id}
    frontier = [item_id]
    while frontier:
        for other in links.get(frontier.pop(), ()):
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return sorted(seen)


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


#: A slot: any run of non-space characters holding a digit (a number, a time, a date, an id).
_SLOT = re.compile(r"\S*\d\S*")
#: What a slot-free form must keep to count as words (not just "…" and punctuation).
_WORDS = re.compile(r"[^\W\d_]{3,}")


def unslotted(text: str) -> str:
    """``text`` with every slot cut to "…" and no final full stop: "the deploy failed on build …".

    How a dream-pass pattern quotes its example event (``dream.patterns``): the numbers are left
    out so the pattern does not contradict its next member on the numeric axis. Kept here, in the
    model, because a purge must recognise that quote as a copy of every event it reads as.
    """
    return " ".join(_SLOT.sub("…", text.strip().rstrip(".")).split())


def quotes(text: str, sources: Iterable[str]) -> bool:
    """Whether ``text`` copies one of ``sources`` (case and spacing aside), or is copied by it.

    Both directions, because a dream gist is its representative's text cut to the length limit:
    the gist is then a prefix of the source, not the other way round. A source is also quoted by
    its slot-free form (``unslotted``), as a pattern quotes its example — when that form still
    holds words.
    """
    mine = _norm(text)
    if not mine or mine == _norm(REDACTED):
        return False
    for raw in sources:
        src = _norm(raw)
        if src and (src in mine or mine in src):
            return True
        free = _norm(unslotted(raw))
        if free != src and _WORDS.search(free) and free in mine:
            return True
    return False


@dataclass(frozen=True, slots=True)
class PurgeSet:
    """What one purge erases (``ids``: the claim's versions and the system's copies of them) and
    the derived items it leaves alone (``kept``), all sorted."""

    ids: list[str]
    copies: list[str]
    kept: list[str]


def _is_content(item: Item) -> bool:
    return item.text != REDACTED and PURGED_FLAG not in item.flags


def purge_set(
    versions: Sequence[Item],
    derived: Callable[[Sequence[str]], Sequence[Item]],
    claim: Callable[[str], Sequence[Item]],
) -> PurgeSet:
    """The claim's ``versions`` plus every system copy of their content, transitively.

    A copy is an item reverie itself wrote (``source == "system"``: a dream gist, a system
    fact) that lists an erased item among its parents and quotes its text: the system made it
    from the purged content, so it is that content, and so is every version of the copy
    (``claim(id)``: its revisions), whatever their text. An item a caller wrote (any other
    source), or a system item in its own words, is the caller's or its own claim: it stays and
    is listed in ``kept``, so the caller can decide (one already purged is not listed: there is
    nothing left to decide). ``derived(ids)`` returns the items made from any of ``ids``: those
    listing one as a parent, and the system's items linked to one by ``derived_from`` (a
    pattern names its events only so).
    """
    erased = {v.id for v in versions}
    texts = [v.text for v in versions if _is_content(v)]
    copies: set[str] = set()
    seen: set[str] = set()
    frontier = sorted(erased)
    while frontier:
        found = sorted((c for c in derived(frontier) if c.id not in erased), key=lambda c: c.id)
        frontier = []
        for child in found:
            if child.id in erased or not _is_content(child):
                continue  # erased already (by this purge or an earlier one): nothing left to name
            seen.add(child.id)
            if child.source != "system":
                continue
            if quotes(child.text, texts):
                for version in claim(child.id):
                    if version.id not in erased:
                        erased.add(version.id)
                        copies.add(version.id)
                        texts += [version.text] if _is_content(version) else []
                        frontier.append(version.id)
    return PurgeSet(ids=sorted(erased), copies=sorted(copies), kept=sorted(seen - erased))
