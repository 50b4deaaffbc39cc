"""The belief graph's nouns: ``Item`` (a claim), ``Edge`` (a typed relation), their parts.

Everything here is an immutable value. State changes happen only by events (see
``model.projection``), so an ``Item`` you hold never changes under you.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Literal, get_args

from reverie.model.clock import from_iso, to_iso
from reverie.model.values import Value

Source = Literal["user_stated", "observed", "inferred", "imported", "manual", "system"]
CandidateSource = Literal["user_stated", "observed", "inferred"]
Tier = Literal["active", "durable", "subconscious"]
Status = Literal["live", "superseded", "forgotten", "dismissed"]
EdgeType = Literal["supports", "contradicts", "supersedes", "alias", "derived_from", "about"]

SOURCES: tuple[str, ...] = get_args(Source)
CANDIDATE_SOURCES: tuple[str, ...] = get_args(CandidateSource)
TIERS: tuple[str, ...] = get_args(Tier)
STATUSES: tuple[str, ...] = get_args(Status)
EDGE_TYPES: tuple[str, ...] = get_args(EdgeType)
#: Relations that read the same both ways: A contradicts B is B contradicts A.
SYMMETRIC_EDGES = frozenset({"contradicts", "alias"})
KNOWN_KINDS = (
    "observation",
    "assertion",
    "assumption",
    "hypothesis",
    "derivation",
    "simulation",
    "policy",
    "trait",
    "episodic",
    "semantic",
    "procedural",
)

#: Trust a claim starts with, by where it came from (a human's explicit word outranks inference).
DEFAULT_AUTHORITY: dict[str, float] = {
    "manual": 1.0,
    "system": 0.9,
    "user_stated": 0.8,
    "observed": 0.7,
    "imported": 0.5,
    "inferred": 0.4,
}


@dataclass(frozen=True, slots=True)
class Scores:
    """Five independent grades in [0, 1]; none is derived from another."""

    authority: float = 0.5  # trust in the claim (decays with the age of its evidence)
    confidence: float = 0.7  # the author's conviction when stating it
    importance: float = 0.5  # salience: how much it matters (does not decay by itself)
    durability: float = 0.5  # how long it stays true; stretches decay half-lives
    value: float = 0.5  # usefulness to the agent, learned from use

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scores:
        return cls(**{k: float(v) for k, v in data.items()})


@dataclass(frozen=True, slots=True)
class Provenance:
    """A structured pointer to where a claim came from, never free text.

    ``origin`` names the kind of source (conversation, document, tool, api, import, dream);
    ``ref`` identifies it (a conversation id, a URL, a file name), ``locator`` a place inside
    it (a turn id, a line), ``event_id`` is reverie's own event that recorded the claim.
    ``source`` is set only on a claim replayed from a file or another store (its own source is
    ``imported``): the source the claim had there, kept as a record, never as authority.
    """

    origin: str = "api"
    ref: str | None = None
    locator: str | None = None
    event_id: str | None = None
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"origin": self.origin, "ref": self.ref, "locator": self.locator}
        out["event_id"] = self.event_id
        if self.source is not None:  # only imported claims carry it: every other payload keeps its shape
            out["source"] = self.source
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Provenance:
        return cls(
            origin=str(data.get("origin") or "api"),
            ref=data.get("ref"),
            locator=data.get("locator"),
            event_id=data.get("event_id"),
            source=data.get("source"),
        )


@dataclass(frozen=True, slots=True)
class Item:
    """One claim in the belief graph, as currently projected from the event log."""

    id: str
    scope: str
    text: str
    kind: str
    source: str
    recorded_at: datetime
    updated_at: datetime
    key: str | None = None
    value: Value | None = None  # a string or a finite number, as given (``model.values``)
    author: str | None = None
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    parents: tuple[str, ...] = ()
    provenance: Provenance = field(default_factory=Provenance)
    scores: Scores = field(default_factory=Scores)
    evidence_count: int = 1
    tier: str = "active"
    status: str = "live"
    flags: tuple[str, ...] = ()
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    closed_at: datetime | None = None
    last_seen_at: datetime | None = None
    last_used_at: datetime | None = None
    last_used_query: str | None = None
    use_count: int = 0
    version: int = 1
    #: Who may see it: None = everyone in the scope; else only these principals, sorted
    #: (``model.visibility``). None, not ``()``: what a read returns must be what a write takes,
    #: and every write refuses an empty list (it reads as "nobody"). An empty value given here is
    #: stored as None. Last, so positional construction by older code still fits.
    visibility: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.visibility is not None and not self.visibility:
            object.__setattr__(self, "visibility", None)  # frozen: the one normalisation, at construction

    @property
    def audience(self) -> tuple[str, ...]:
        """``visibility`` as the model compares it: ``()`` for everyone, as commands, conversation
        entries and ``model.visibility.EVERYONE`` say it (two claims have the same audience when
        their ``audience`` is equal)."""
        return self.visibility or ()

    @property
    def is_current(self) -> bool:
        """Believed now: not forgotten, superseded or dismissed (record time still open)."""
        return self.closed_at is None

    def believed_at(self, when: datetime) -> bool:
        """Was this claim part of what we believed at ``when`` (record time) and valid then?"""
        if self.recorded_at > when:
            return False
        if self.closed_at is not None and self.closed_at <= when:
            return False
        if self.valid_from is not None and self.valid_from > when:
            return False
        return not (self.valid_to is not None and self.valid_to <= when)

    def evolve(self, **changes: Any) -> Item:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (times as ISO-8601 UTC strings); ``from_dict`` inverts it exactly."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, datetime):
                v = to_iso(v)
            elif isinstance(v, Scores | Provenance):
                v = v.to_dict()
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out  # "visibility": None for everyone, as every face shows it and every write takes it

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        kwargs: dict[str, Any] = dict(data)
        for name in _TIME_FIELDS:
            if kwargs.get(name) is not None:
                kwargs[name] = from_iso(kwargs[name])
        for name in ("tags", "parents", "flags"):
            kwargs[name] = tuple(kwargs.get(name) or ())
        kwargs["visibility"] = tuple(kwargs.get("visibility") or ()) or None  # [] in older payloads: everyone
        kwargs["scores"] = Scores.from_dict(kwargs.get("scores") or {})
        kwargs["provenance"] = Provenance.from_dict(kwargs.get("provenance") or {})
        kwargs["meta"] = dict(kwargs.get("meta") or {})
        return cls(**kwargs)


_TIME_FIELDS = (
    "recorded_at",
    "updated_at",
    "valid_from",
    "valid_to",
    "closed_at",
    "last_seen_at",
    "last_used_at",
)


@dataclass(frozen=True, slots=True)
class Edge:
    """A typed relation between two items of one scope, with its own author, trust and time."""

    id: str
    scope: str
    type: str
    src: str
    dst: str
    recorded_at: datetime
    author: str | None = None
    authority: float = 0.5
    meta: dict[str, Any] = field(default_factory=dict)
    closed_at: datetime | None = None

    @property
    def is_current(self) -> bool:
        return self.closed_at is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scope": self.scope,
            "type": self.type,
            "src": self.src,
            "dst": self.dst,
            "recorded_at": to_iso(self.recorded_at),
            "author": self.author,
            "authority": self.authority,
            "meta": self.meta,
            "closed_at": to_iso(self.closed_at) if self.closed_at else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Edge:
        return cls(
            id=data["id"],
            scope=data["scope"],
            type=data["type"],
            src=data["src"],
            dst=data["dst"],
            recorded_at=from_iso(data["recorded_at"]),
            author=data.get("author"),
            authority=float(data.get("authority", 0.5)),
            meta=dict(data.get("meta") or {}),
            closed_at=from_iso(data["closed_at"]) if data.get("closed_at") else None,
        )


@dataclass(frozen=True, slots=True)
class Candidate:
    """What an extractor or agent *proposes*: it can never claim ``manual`` or ``system`` source.

    ``source`` is typed as ``CandidateSource`` and re-checked at run time in ``__post_init__``,
    so neither a type-checked caller nor a dynamic one (an LLM extraction, JSON from a tool)
    can forge human or system authority through the learning path.
    """

    text: str
    kind: str = "observation"
    source: CandidateSource = "observed"
    key: str | None = None
    value: Value | None = None  # a string or a finite number, as given (``model.values``)
    author: str | None = None
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] | None = None
    parents: tuple[str, ...] = ()
    provenance: Provenance | None = None
    scores: dict[str, float] | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    #: Only these principals may see the claim (None: everyone in the scope; empty is refused).
    visibility: tuple[str, ...] | None = None
    #: ``provenance`` (origin + ref) names one source, counted at most once as evidence for a
    #: claim (``model.evidence``): a note read again restates its claims, it does not corroborate.
    count_once: bool = False

    def __post_init__(self) -> None:
        from reverie.errors import InvalidInputError

        if self.source not in CANDIDATE_SOURCES:
            raise InvalidInputError(
                f"source {self.source!r} cannot be proposed: candidates carry only "
                f"{', '.join(CANDIDATE_SOURCES)}; 'manual' and 'system' have their own API "
                "(Memory.remember_manual / Memory.remember_system)"
            )
