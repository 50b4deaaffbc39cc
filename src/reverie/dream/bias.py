"""Bias alerts: checks of how the scope's beliefs were formed, run by every dream pass.

Every check reads beliefs only (``beliefs``): never the pass's own gists and patterns, nor records
— a conversation message's memory (a transcript) or a person record.

Four kinds, each per scope and subject (a claim's subject: its ``key`` up to the first dot,
else its first content word — "Rosa lives in Seattle" is about ``rosa``):

- ``single_source`` — one author (or provenance ref) supplies at least ``SOURCE_SHARE`` of the
  evidence (``evidence_count``) behind a subject's established beliefs (authority >=
  ``ESTABLISHED``), with at least ``SOURCE_MIN_BELIEFS`` attributed beliefs: the subject rests on
  one witness. Unattributed claims (no author, no ref) are not counted: nothing says who.
- ``never_tested`` — a high-authority belief (>= ``TESTED_AUTHORITY``) corroborated at least
  ``TESTED_EVIDENCE`` times that no ``contradicts`` edge ever touched (open or resolved):
  corroboration that only ever agreed.
- ``recency_bias`` — from the usage log as recall projects it on items (``last_used_query``,
  ``last_used_at``: the ``memory.used`` events): for a question, most items recall used were
  recent when used (within ``RECENT_DAYS``) while older items answer it at least as well by
  their words and were not used.
- ``overconfident`` — confidence exceeds the evidence (authority × (1 − ½^evidence_count)) by
  ``CONFIDENCE_GAP`` or more.

Each alert has a stable ``id`` (kind, subject and what it is anchored on — never the evidence),
and an ``evidence`` fingerprint (the items behind it and their evidence). A dismissal is an
``alert.dismissed`` event carrying both; the alert stays dismissed on later passes while its
fingerprint is the same, and comes back when its evidence changes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from reverie.dream.patterns import STOP, template
from reverie.dream.salience import is_gist, is_pattern
from reverie.model.events import CORROBORATED
from reverie.model.item import Edge, Item
from reverie.model.records import is_record
from reverie.recall.normalize import fts_query
from reverie.store.protocol import Store

if TYPE_CHECKING:
    from reverie.dream.plan import Planner

KINDS = ("single_source", "never_tested", "recency_bias", "overconfident")
ESTABLISHED = 0.6
SOURCE_SHARE = 0.8
SOURCE_MIN_BELIEFS = 3
TESTED_AUTHORITY = 0.8
TESTED_EVIDENCE = 3
RECENT_DAYS = 7.0
RECENT_SHARE = 0.8
CONFIDENCE_GAP = 0.6
#: Alerts a pass keeps (ranked); the rest are counted in ``stats["alerts_total"]``.
MAX_ALERTS = 200
#: Questions of the usage log a pass checks for recency bias (most recently used first).
MAX_QUERIES = 200
#: ``payload.id`` of every ``alert.dismissed`` event: one indexed read finds a scope's dismissals.
DISMISSALS = "alerts.dismissed"
ALERT_ID = re.compile(r"al_[0-9a-f]{16}")
_WORD = re.compile(r"[^\W_]+")
_QUESTION = frozenset(
    ["what", "when", "where", "who", "whom", "whose", "which", "why", "how", "does", "do", "did", "is", "are", "was"]
)


@dataclass(frozen=True, slots=True)
class BiasAlert:
    """One standing alert: what kind, about which subject, why, and the items behind it."""

    id: str
    kind: str
    subject: str
    reason: str
    items: tuple[str, ...]
    evidence: str
    severity: float
    dismissed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "subject": self.subject,
            "reason": self.reason,
            "items": list(self.items),
            "evidence": self.evidence,
            "severity": round(self.severity, 4),
            "dismissed": self.dismissed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BiasAlert:
        return cls(
            id=str(data["id"]),
            kind=str(data["kind"]),
            subject=str(data["subject"]),
            reason=str(data["reason"]),
            items=tuple(str(i) for i in data.get("items", ())),
            evidence=str(data["evidence"]),
            severity=float(data.get("severity", 0.0)),
            dismissed=bool(data.get("dismissed", False)),
        )


def subject(item: Item) -> str:
    """What a claim is about (see the module docstring)."""
    if item.key:
        return item.key.split(".", 1)[0].casefold()
    for word in _WORD.findall(item.text.casefold()):
        if word not in STOP and not word.isdigit():
            return str(word)
    return "?"


def _digest(*parts: object) -> str:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:16]


def _evidence(items: Iterable[Item], *extra: object) -> str:
    rows = sorted(
        (it.id, it.evidence_count, round(it.scores.authority, 2), round(it.scores.confidence, 2)) for it in items
    )
    return _digest(rows, *extra)


def _alert(
    kind: str, subj: str, anchor: str, reason: str, items: list[Item], severity: float, *extra: object
) -> BiasAlert:
    ids = tuple(sorted(it.id for it in items))
    return BiasAlert(f"al_{_digest(kind, subj, anchor)}", kind, subj, reason, ids, _evidence(items, *extra), severity)


def beliefs(items: Iterable[Item]) -> list[Item]:
    """Claims a check reads: current, not the pass's own products (gists, patterns), and not
    records (a message's memory is a transcript, a person record an entry: ``model.records``)."""
    return [
        it
        for it in items
        if it.is_current and not is_gist(it) and not is_pattern(it) and it.source != "system" and not is_record(it)
    ]


#: Who said a claim again, one entry per corroboration (None: not recorded — an unattributed
#: statement, or one logged before corroborations named their author).
Corroborators = Callable[[Item], list[str | None]]


def single_source(items: list[Item], corroborators: Corroborators | None = None) -> list[BiasAlert]:
    """Each subject whose established beliefs rest on one witness. A corroboration counts for
    the author who said it again (outside probe 7, finding 6: three authors stating each belief
    read as "100 % from one source"); one whose author was never recorded counts, as before,
    for the claim's own author."""
    by_subject: dict[str, list[Item]] = {}
    for it in items:
        if it.scores.authority >= ESTABLISHED and (it.author or it.provenance.ref):
            by_subject.setdefault(subject(it), []).append(it)
    out = []
    for subj, group in sorted(by_subject.items()):
        if len(group) < SOURCE_MIN_BELIEFS:
            continue
        weight: dict[str, int] = {}
        for it in group:
            origin = str(it.author or it.provenance.ref)
            again = corroborators(it) if corroborators is not None and it.evidence_count > 1 else []
            named = [who for who in again[: it.evidence_count - 1] if who is not None]
            for who in named:
                weight[who] = weight.get(who, 0) + 1
            weight[origin] = weight.get(origin, 0) + it.evidence_count - len(named)
        total = sum(weight.values())
        origin = min(weight, key=lambda o: (-weight[o], o))
        share = weight[origin] / total
        if share < SOURCE_SHARE:
            continue
        reason = (
            f"{share:.0%} of the evidence behind {len(group)} established belief(s) about {subj!r} comes from one "
            f"source ({origin}): corroborate it from another source before relying on it"
        )
        out.append(_alert("single_source", subj, origin, reason, group, share, round(share, 2)))
    return out


def never_tested(items: list[Item], contradicted: set[str]) -> list[BiasAlert]:
    out = []
    for it in items:
        if it.scores.authority < TESTED_AUTHORITY or it.evidence_count < TESTED_EVIDENCE or it.id in contradicted:
            continue
        reason = (
            f"authority {it.scores.authority:.2f}, corroborated {it.evidence_count} times, and no contradicting "
            "evidence was ever considered: corroboration that only ever agrees; look for a test that could refute it"
        )
        out.append(_alert("never_tested", subject(it), it.id, reason, [it], it.scores.authority * it.evidence_count))
    return out


def overconfident(items: list[Item]) -> list[BiasAlert]:
    out = []
    for it in items:
        if it.source == "manual":
            continue  # a person's word: their confidence is theirs to state
        support = it.scores.authority * (1.0 - 0.5**it.evidence_count)
        gap = it.scores.confidence - support
        if gap < CONFIDENCE_GAP:
            continue
        reason = (
            f"confidence {it.scores.confidence:.2f} far exceeds its evidence {support:.2f} (authority "
            f"{it.scores.authority:.2f}, {it.evidence_count} piece(s) of evidence): lower it or find support"
        )
        out.append(_alert("overconfident", subject(it), it.id, reason, [it], gap))
    return out


#: Candidates per question the full-text index offers as "older items that match it".
LEXICAL_CANDIDATES = 100
Candidates = Callable[[str], list[str]]


def recency_bias(items: list[Item], candidates: Candidates | None = None) -> list[BiasAlert]:
    """Per question of the usage log (see the module docstring).

    ``candidates(question)``: ids of the items best matching it (the pass asks the full-text
    index for ``LEXICAL_CANDIDATES``); without it every item is a candidate. Why: comparing every
    question with every item was questions × items templates — 20M at 100k items.
    """
    asked: dict[str, list[Item]] = {}
    for it in items:
        if it.last_used_query and it.last_used_at is not None:
            asked.setdefault(it.last_used_query.strip().casefold(), []).append(it)
    latest = sorted(asked, key=lambda q: (-max(_used_at(u) for u in asked[q]).timestamp(), q))[:MAX_QUERIES]
    by_id = {it.id: it for it in items}
    kinds: dict[str, frozenset[str]] = {}

    def kind(it: Item) -> frozenset[str]:
        if it.id not in kinds:
            kinds[it.id] = template(it.text)
        return kinds[it.id]

    out = []
    for q in sorted(latest):
        qw, used = template(q) - _QUESTION, asked[q]
        if not qw:
            continue
        at = min(_used_at(u) for u in used)
        recent = [u for u in used if _used_at(u) - _when(u) <= timedelta(days=RECENT_DAYS)]
        if len(recent) / len(used) < RECENT_SHARE:
            continue
        bar = max(max(len(kind(u) & qw) for u in used), (len(qw) + 1) // 2)
        used_ids = {u.id for u in used}
        pool = items if candidates is None else [by_id[i] for i in candidates(q) if i in by_id]
        old = [
            it
            for it in pool
            if it.id not in used_ids and len(kind(it) & qw) >= bar and at - _when(it) > timedelta(days=RECENT_DAYS)
        ]
        if not old:
            continue
        share = len(recent) / len(used)
        reason = (
            f"recall for {q!r} used {len(recent)} recent item(s) ({share:.0%} recorded within {RECENT_DAYS:g} days of "
            f"the question) while {len(old)} older item(s) match it as well and were not used: recency bias"
        )
        group = sorted(used, key=lambda it: it.id) + sorted(old, key=lambda it: it.id)[:20]
        out.append(_alert("recency_bias", q[:80], q, reason, group, share))
    return out


def _used_at(it: Item) -> datetime:
    assert it.last_used_at is not None
    return it.last_used_at


def _when(it: Item) -> datetime:
    return it.valid_from if it.valid_from is not None and it.valid_from <= it.recorded_at else it.recorded_at


def find_alerts(
    items: Iterable[Item],
    edges: Iterable[Edge],
    candidates: Candidates | None = None,
    corroborators: Corroborators | None = None,
) -> list[BiasAlert]:
    """Every alert for these items, ranked: by kind (``KINDS`` order), severity, then id."""
    live = beliefs(items)
    contradicted = {x for e in edges if e.type == "contradicts" for x in (e.src, e.dst)}
    recency = recency_bias(live, candidates)
    sourced = single_source(live, corroborators)
    found = [*sourced, *never_tested(live, contradicted), *recency, *overconfident(live)]
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(found, key=lambda a: (order[a.kind], -a.severity, a.id))


def _lexical(store: Store, scope: str) -> Candidates:
    def candidates(question: str) -> list[str]:
        match = fts_query(question)
        return [] if match is None else [i for i, _ in store.lexical(scope, match, limit=LEXICAL_CANDIDATES)]

    return candidates


def _corroborators(store: Store, scope: str) -> Corroborators:
    """Who corroborated an item, read from its own events (only for an item said more than once
    in a subject with enough established beliefs: few reads per pass)."""

    def read(item: Item) -> list[str | None]:
        out: list[str | None] = []
        after = 0
        while True:
            batch = store.events(scope, item_id=item.id, after_seq=after, limit=1000)
            for event in batch:
                if event.type == CORROBORATED and event.payload.get("id") == item.id:
                    who = event.payload.get("by_author")
                    out.append(who if isinstance(who, str) else None)
            if len(batch) < 1000:
                return out
            after = batch[-1].seq

    return read


def dismissals(store: Store, scope: str) -> dict[str, str]:
    """Alert id → the evidence fingerprint it was last dismissed with (``alert.dismissed`` events)."""
    out: dict[str, str] = {}
    after = 0
    while True:
        batch = store.events(scope, item_id=DISMISSALS, after_seq=after, limit=1000)
        for event in batch:
            if event.type == "alert.dismissed":
                out[str(event.payload.get("alert"))] = str(event.payload.get("evidence"))
        if len(batch) < 1000:
            return out
        after = batch[-1].seq


def overlay(alerts: Iterable[BiasAlert], dismissed: dict[str, str]) -> list[BiasAlert]:
    """Each alert marked dismissed while its evidence is what it was dismissed with."""
    return [replace(a, dismissed=dismissed.get(a.id) == a.evidence) for a in alerts]


def bias_step(p: Planner, store: Store | None) -> None:
    """The pass's alerts (no actions): computed from the snapshot and every ``contradicts`` edge
    the store ever held (a resolved conflict was a test too), ranked and capped."""
    if not p.config.alerts:
        return
    snap = p.snap
    edges = store.edges(snap.scope, include_closed=True) if store is not None else snap.edges
    lexical = None if store is None else _lexical(store, snap.scope)
    found = find_alerts(snap.items, edges, lexical, None if store is None else _corroborators(store, snap.scope))
    if store is not None and found:
        found = overlay(found, dismissals(store, snap.scope))
    p.stats["alerts_total"] = len(found)
    p.stats["alerts_open"] = sum(1 for a in found if not a.dismissed)
    by_kind: dict[str, int] = {}
    for a in found:
        by_kind[a.kind] = by_kind.get(a.kind, 0) + 1
    p.stats["alerts_by_kind"] = by_kind
    p.alerts = [a.to_dict() for a in found[:MAX_ALERTS]]


__all__ = [
    "ALERT_ID",
    "DISMISSALS",
    "KINDS",
    "MAX_ALERTS",
    "BiasAlert",
    "bias_step",
    "dismissals",
    "find_alerts",
    "overlay",
    "subject",
]
