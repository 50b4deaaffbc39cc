"""One source counts at most once as evidence for a claim (``Remember.count_once``).

Why: a reader that re-reads the same document (a vault note read again) restates every claim in
it. ``evidence_count`` counts statements, so each re-read of a note that corroborated another
note's claim raised it again. With ``count_once`` the writer says that its provenance's
``origin`` and ``ref`` name one source (a note, a file): a claim that source already stated
(it made the claim) or corroborated (a ``memory.corroborated`` or ``memory.echoed`` event that
names it as ``source_ref``) is not corroborated again; the statement is recorded as
``memory.restated`` instead, and the evidence stays as it was.

Event-sourced and replayable: the record is the ``source_ref`` the reducer writes into those
events' payloads (only for a ``count_once`` statement: every other payload keeps its shape).
The projection never reads it, so an old log replays exactly as before; a corroboration written
before this record existed names no source, and counts once more the first time its source is
read again with ``count_once``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reverie.model import events as ev
from reverie.model.item import Provenance

#: Events whose ``source_ref`` names a source already counted for the claim they are about.
COUNTED = (ev.CORROBORATED, ev.ECHOED, ev.RESTATED)

Source = tuple[str, str]


def source_of(provenance: Provenance) -> Source | None:
    """The source ``provenance`` names, (origin, ref); None without a ref (no source to count once)."""
    return None if provenance.ref is None else (provenance.origin, provenance.ref)


def source_ref(source: Source) -> dict[str, str]:
    """The payload form of a source (``source_ref``)."""
    return {"origin": source[0], "ref": source[1]}


def _from_payload(payload: Mapping[str, Any]) -> Source | None:
    found = payload.get("source_ref")
    if not isinstance(found, Mapping):
        return None
    origin, ref = found.get("origin"), found.get("ref")
    return (origin, ref) if isinstance(origin, str) and isinstance(ref, str) else None


def recorded_sources(events: Iterable[ev.Event]) -> frozenset[Source]:
    """The sources ``events`` (one claim's) record as counted evidence for it."""
    out = {_from_payload(e.payload) for e in events if e.type in COUNTED}
    return frozenset(s for s in out if s is not None)
