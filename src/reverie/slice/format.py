"""The slice format: a self-contained, versioned piece of a scope that another store can replay.

Why its own format and not the event log: a scope's log carries every store-local fact (event
ids, sequence numbers, uses, tier moves, tombstones), and replaying it forges nothing only
because the replayer re-derives each call. A slice carries *claims and their relations as they
stand*, in the shape the receiving store will keep them, so a reader can check it completely
before anything is written, and a sub-agent can be handed exactly what it needs.

Shape (``version`` 1, 2 with a ``conversations`` section, 3 with a restricted claim, 4 with a
restricted conversation or message)::

    {"format": "reverie.slice", "version": 1, "scope": "<exported from>", "exported_at": "<UTC>",
     "items": [SliceItem...], "edges": [SliceEdge...], "sections": {"intents": [...], ...}}

- An item arrives as the receiving store will keep it: ``source`` is always ``"imported"`` and
  the source it had where it was recorded is ``provenance.source``; ``authority`` is at most
  ``IMPORTED_AUTHORITY``. A slice that says otherwise (``"source": "manual"``) is refused, never
  downgraded silently: whoever made it was trying to forge a person's word.
- ``origin_id`` is the id the claim had where it was *first* recorded (a copy of a copy keeps it);
  an import uses it to recognise a claim that is already here (the sandbox pattern brings copies
  back home) and keeps it on the new item under ``meta[ORIGIN_META]``.
- ``recorded_at`` is informational: record time belongs to each store and is re-stamped.
- ``sections`` holds further record families by name: ``intents`` and ``tasks``
  (``reverie.slice.agenda`` gives their shape); a reader refuses a section it cannot import
  rather than drop it. Why no new version for them: a version-1 reader that predates them
  already refuses a slice carrying them, by name, and every slice it could read reads the same
  here; the version changes when a field it knows changes meaning — which the ``conversations``
  section does (``reverie.slice.conversations``: version 2). A slice is written in the lowest
  version that holds it, and this build reads versions 1 to 4.
- ``visibility`` (version 3) says who may read each claim: ``null`` for everyone in the scope, or
  a non-empty list of principals (``reverie.model.visibility``). Why a new version: a slice
  without it meant "everyone" because claims had no other audience; a reader that dropped the
  field would hand a restricted claim to every principal, so a reader that does not know it must
  refuse the slice (an older build does: "newer than this reverie reads"), not import it. A slice
  whose claims are all visible to everyone is still written as version 1 or 2, without the field,
  so older builds read it as before; a version-1 or 2 slice imports every claim as "everyone", as
  it always did, and one that carries the field anyway is refused (its version is wrong). An
  empty list is refused, as ``check_visibility`` refuses it on every face.
- a conversation's and an entry's ``visibility`` (version 4, ``reverie.slice.conversations``), for
  the same reason as version 3: a reader that dropped them would show a restricted message to all.
- ``value`` is a string or a finite JSON number, kept as its type (``reverie.model.values``). No new
  version for numbers: an older build refuses a slice holding one by name ("must be a non-empty
  string"), it never misreads it.

Everything here is pure (no store, no I/O): ``Slice.from_json`` is the one place a slice from
outside is checked, so every face (Python, CLI, MCP, HTTP) refuses the same bad slices the same way.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reverie.errors import InvalidInputError, InvalidSliceError
from reverie.model.clock import to_iso
from reverie.model.item import DEFAULT_AUTHORITY, EDGE_TYPES, SOURCES, STATUSES, TIERS
from reverie.model.validate import SCORE_NAMES, unique_keys
from reverie.model.values import Value
from reverie.model.visibility import check_visibility
from reverie.slice.agenda import INTENTS, TASKS, SliceIntent, SliceTask, check_sections
from reverie.slice.conversations import (
    CONVERSATIONS,
    CONVERSATIONS_VERSION,
    MESSAGE_VISIBILITY_VERSION,
    SliceConversation,
    check_conversations,
)
from reverie.slice.fields import as_list, as_object, no_unknown, record, reverie_id, shown, utc_time

FORMAT = "reverie.slice"
#: The format version that introduced each item's ``visibility`` (see the module docstring).
VISIBILITY_VERSION = 3
#: The newest format version this build reads and writes (a slice is written in the lowest that holds it).
VERSION = MESSAGE_VISIBILITY_VERSION
#: The most trust an imported claim or edge may carry (the same cap as ``remember_imported``).
IMPORTED_AUTHORITY = DEFAULT_AUTHORITY["imported"]
#: Where an imported item keeps the id its claim had where it was first recorded.
ORIGIN_META = "slice_origin"
#: Sections a slice may carry besides items and edges and this build imports (``slice.agenda``).
KNOWN_SECTIONS: frozenset[str] = frozenset({INTENTS, TASKS, CONVERSATIONS})

_ITEM_KEYS = frozenset(
    {
        "id",
        "origin_id",
        "text",
        "kind",
        "source",
        "key",
        "value",
        "author",
        "tags",
        "meta",
        "parents",
        "provenance",
        "scores",
        "tier",
        "status",
        "valid_from",
        "valid_to",
        "recorded_at",
        "visibility",
    }
)
_EDGE_KEYS = frozenset({"id", "type", "src", "dst", "author", "authority", "meta", "recorded_at"})
_TOP_KEYS = frozenset({"format", "version", "scope", "exported_at", "items", "edges", "sections"})
_PROVENANCE_KEYS = frozenset({"origin", "ref", "locator", "source"})


@dataclass(frozen=True, slots=True)
class SliceItem:
    """One claim as the receiving store will hold it (see the module docstring)."""

    id: str
    origin_id: str
    text: str
    kind: str
    provenance: dict[str, str | None]
    scores: dict[str, float]
    recorded_at: datetime
    key: str | None = None
    value: Value | None = None
    author: str | None = None
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    parents: tuple[str, ...] = ()
    tier: str = "active"
    status: str = "live"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    source: str = "imported"
    #: Who may read the claim: None for everyone in the scope, else the principals (sorted, distinct).
    visibility: tuple[str, ...] | None = None

    @property
    def original_source(self) -> str:
        """The source the claim had where it was recorded (kept as a record, never as trust)."""
        return self.provenance.get("source") or "imported"

    def to_dict(self, *, with_visibility: bool = True) -> dict[str, Any]:
        """The item as JSON; ``with_visibility=False`` leaves the field out (a version-1/2 slice,
        whose claims are all visible to everyone, has none)."""
        out = {
            "id": self.id,
            "origin_id": self.origin_id,
            "text": self.text,
            "kind": self.kind,
            "source": self.source,
            "key": self.key,
            "value": self.value,
            "author": self.author,
            "tags": list(self.tags),
            "meta": self.meta,
            "parents": list(self.parents),
            "provenance": dict(self.provenance),
            "scores": dict(self.scores),
            "tier": self.tier,
            "status": self.status,
            "valid_from": _iso(self.valid_from),
            "valid_to": _iso(self.valid_to),
            "recorded_at": to_iso(self.recorded_at),
        }
        if with_visibility:
            out["visibility"] = list(self.visibility) if self.visibility is not None else None
        return out


@dataclass(frozen=True, slots=True)
class SliceEdge:
    """A current relation between two items of the slice; ``authority`` capped like an item's."""

    id: str
    type: str
    src: str
    dst: str
    recorded_at: datetime
    author: str | None = None
    authority: float = 0.5
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "src": self.src,
            "dst": self.dst,
            "author": self.author,
            "authority": self.authority,
            "meta": self.meta,
            "recorded_at": to_iso(self.recorded_at),
        }


@dataclass(frozen=True, slots=True)
class Slice:
    """A versioned, JSON-serialisable piece of a scope: items, the edges between them, sections.

    ``intents`` / ``tasks`` / ``conversations`` are the checked sections (None: not carried);
    ``sections`` holds any other section as it came (an import refuses a non-empty one).
    ``version`` is the lowest format version that holds it: 4 with a restricted conversation or
    message, 3 with a restricted claim, 2 with conversations, else 1.
    """

    scope: str
    exported_at: datetime
    items: tuple[SliceItem, ...] = ()
    edges: tuple[SliceEdge, ...] = ()
    sections: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    intents: tuple[SliceIntent, ...] | None = None
    tasks: tuple[SliceTask, ...] | None = None
    conversations: tuple[SliceConversation, ...] | None = None
    format: str = FORMAT

    @property
    def version(self) -> int:
        if any(c.restricted for c in self.conversations or ()):
            return MESSAGE_VISIBILITY_VERSION
        if any(i.visibility is not None for i in self.items):
            return VISIBILITY_VERSION
        return CONVERSATIONS_VERSION if self.conversations is not None else 1

    def to_dict(self) -> dict[str, Any]:
        version = self.version
        return {
            "format": self.format,
            "version": version,
            "scope": self.scope,
            "exported_at": to_iso(self.exported_at),
            "items": [i.to_dict(with_visibility=version >= VISIBILITY_VERSION) for i in self.items],
            "edges": [e.to_dict() for e in self.edges],
            "sections": {k: list(v) for k, v in sorted(self._all_sections().items())},
        }

    def _all_sections(self) -> dict[str, tuple[dict[str, Any], ...]]:
        out = {k: v for k, v in self.sections.items() if k not in KNOWN_SECTIONS}
        if self.intents is not None:
            out[INTENTS] = tuple(i.to_dict() for i in self.intents)
        if self.tasks is not None:
            out[TASKS] = tuple(t.to_dict() for t in self.tasks)
        if self.conversations is not None:
            out[CONVERSATIONS] = tuple(c.to_dict() for c in self.conversations)
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        """Strict JSON (no NaN), keys in a stable order, so equal slices give equal text."""
        return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False, indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Slice:
        """Parse and check a whole slice; ``InvalidSliceError`` says what is wrong and where."""
        try:
            data = json.loads(text, object_pairs_hook=unique_keys("the slice"))  # the rule of every face
        except InvalidInputError as exc:  # a repeated key, named
            raise InvalidSliceError(str(exc)) from None
        except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
            raise InvalidSliceError(f"a slice is a JSON object; this is not JSON ({type(exc).__name__})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> Slice:
        """Check ``data`` (a parsed slice) completely before building anything from it."""
        if not isinstance(data, dict):
            raise InvalidSliceError(f"a slice is a JSON object, got a {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise InvalidSliceError(f"format must be {FORMAT!r}, got {shown(data.get('format'))}: not a reverie slice")
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidSliceError(f"version must be a positive integer, got {shown(version)}")
        if version > VERSION:
            raise InvalidSliceError(
                f"this slice is format version {version}, newer than this reverie reads ({VERSION}); "
                "upgrade reverie to import it"
            )
        no_unknown(data, _TOP_KEYS, "the slice")
        items = tuple(_item(d, f"items[{n}]", version) for n, d in enumerate(as_list(data.get("items", []), "items")))
        edges = tuple(_edge(d, f"edges[{n}]") for n, d in enumerate(as_list(data.get("edges", []), "edges")))
        sections = _sections(data.get("sections", {}))
        _check_references(items, edges)
        intents, tasks = check_sections(sections)
        conversations = check_conversations(sections, version, [i.id for i in items])
        return cls(
            scope=_str(data.get("scope"), "scope"),
            exported_at=_time(data.get("exported_at"), "exported_at", required=True),  # type: ignore[arg-type]
            items=items,
            edges=edges,
            sections={k: v for k, v in sections.items() if k not in KNOWN_SECTIONS},
            intents=intents,
            tasks=tasks,
            conversations=conversations,
        )


# -- checking one part ---------------------------------------------------------------------------
def _item(d: object, where: str, version: int) -> SliceItem:
    d = record(d, _ITEM_KEYS, where)
    source = d.get("source")
    if source != "imported":
        raise InvalidSliceError(
            f"{where} claims source {shown(source)}: a slice delivers claims as source 'imported' "
            "(the source they had is provenance.source); it can never forge 'manual' or 'system'"
        )
    status, tier = d.get("status", "live"), d.get("tier", "active")
    if status not in STATUSES:
        raise InvalidSliceError(f"{where}.status must be one of {', '.join(STATUSES)}")
    if tier not in TIERS:
        raise InvalidSliceError(f"{where}.tier must be one of {', '.join(TIERS)}")
    return SliceItem(
        id=reverie_id(d.get("id"), f"{where}.id"),
        origin_id=reverie_id(d.get("origin_id", d.get("id")), f"{where}.origin_id"),
        text=_str(d.get("text"), f"{where}.text"),
        kind=_str(d.get("kind"), f"{where}.kind"),
        key=_opt_str(d.get("key"), f"{where}.key"),
        value=_opt_value(d.get("value"), f"{where}.value"),
        author=_opt_str(d.get("author"), f"{where}.author"),
        tags=tuple(_str(t, f"{where}.tags") for t in as_list(d.get("tags", []), f"{where}.tags")),
        meta=as_object(d.get("meta", {}), f"{where}.meta"),
        parents=tuple(reverie_id(p, f"{where}.parents") for p in as_list(d.get("parents", []), f"{where}.parents")),
        provenance=_provenance(d.get("provenance", {}), f"{where}.provenance"),
        scores=_scores(d.get("scores", {}), f"{where}.scores"),
        tier=tier,
        status=status,
        valid_from=_time(d.get("valid_from"), f"{where}.valid_from"),
        valid_to=_time(d.get("valid_to"), f"{where}.valid_to"),
        recorded_at=_time(d.get("recorded_at"), f"{where}.recorded_at", required=True),  # type: ignore[arg-type]
        visibility=_visibility(d, where, version),
    )


def _visibility(d: dict[str, Any], where: str, version: int) -> tuple[str, ...] | None:
    """An item's audience: None (everyone) when absent or null, else the checked principals.

    A version-1/2 slice predates the field: its claims are everyone's, as they always were; one
    carrying the field is refused rather than trusted to mean what version 3 means by it.
    """
    if "visibility" not in d:
        return None
    if version < VISIBILITY_VERSION:
        raise InvalidSliceError(
            f"{where}.visibility came in format version {VISIBILITY_VERSION}; this slice says version "
            f"{version}: write it as version {VISIBILITY_VERSION}"
        )
    if d["visibility"] is None:
        return None
    try:  # the one rule every face applies: sorted, distinct, well-formed, never an empty list
        return check_visibility(d["visibility"])
    except InvalidInputError as exc:
        raise InvalidSliceError(f"{where}.visibility: {exc.message}") from None


def _edge(d: object, where: str) -> SliceEdge:
    d = record(d, _EDGE_KEYS, where)
    if d.get("type") not in EDGE_TYPES:
        raise InvalidSliceError(f"{where}.type must be one of {', '.join(EDGE_TYPES)}, got {shown(d.get('type'))}")
    authority = _score(d.get("authority", 0.5), f"{where}.authority")
    if authority > IMPORTED_AUTHORITY:
        raise InvalidSliceError(
            f"{where}.authority {authority} is above what an import may carry ({IMPORTED_AUTHORITY})"
        )
    return SliceEdge(
        id=reverie_id(d.get("id"), f"{where}.id"),
        type=str(d["type"]),
        src=reverie_id(d.get("src"), f"{where}.src"),
        dst=reverie_id(d.get("dst"), f"{where}.dst"),
        author=_opt_str(d.get("author"), f"{where}.author"),
        authority=authority,
        meta=as_object(d.get("meta", {}), f"{where}.meta"),
        recorded_at=_time(d.get("recorded_at"), f"{where}.recorded_at", required=True),  # type: ignore[arg-type]
    )


def _sections(value: object) -> dict[str, tuple[dict[str, Any], ...]]:
    if not isinstance(value, dict):
        raise InvalidSliceError("sections must be an object of name -> list of records")
    out: dict[str, tuple[dict[str, Any], ...]] = {}
    for name, records in value.items():
        rows = as_list(records, f"sections.{name}")
        if not all(isinstance(r, dict) for r in rows):
            raise InvalidSliceError(f"sections.{name} must be a list of objects")
        out[str(name)] = tuple(rows)
    return out


def _check_references(items: tuple[SliceItem, ...], edges: tuple[SliceEdge, ...]) -> None:
    """Ids unique; every edge end is an item of the slice (a parent may lie outside it)."""
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InvalidSliceError(f"item id {dup} appears twice in the slice; each item once")
    known = set(ids)
    edge_ids = [e.id for e in edges]
    if len(set(edge_ids)) != len(edge_ids):
        raise InvalidSliceError("an edge id appears twice in the slice; each edge once")
    for n, e in enumerate(edges):
        for end in (e.src, e.dst):
            if end not in known:
                raise InvalidSliceError(f"edges[{n}] names item {end}, which is not in the slice")
        if e.src == e.dst:
            raise InvalidSliceError(f"edges[{n}] links item {e.src} to itself")
    for n, it in enumerate(items):
        # A closed claim may end before it starts (forgotten before its validity began: forget
        # ends validity at the time it forgets); a current one may not.
        if it.status == "live" and it.valid_from and it.valid_to and it.valid_to <= it.valid_from:
            raise InvalidSliceError(f"items[{n}].valid_to must be after its valid_from")


# -- scalars -------------------------------------------------------------------------------------
def _str(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidSliceError(f"{where} must be a non-empty string, got {shown(value)}")
    return value


def _opt_str(value: object, where: str) -> str | None:
    return None if value is None else _str(value, where)


def _opt_value(value: object, where: str) -> Value | None:
    """A slot value: a non-empty string or a finite number (not a bool), as ``check_value`` takes."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidSliceError(f"{where} must be a finite number or a string, got {value}")
        return value
    return _opt_str(value, where)


def _score(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidSliceError(f"{where} must be a number in [0, 1], got {shown(value)}")
    if not 0.0 <= value <= 1.0:
        raise InvalidSliceError(f"{where} must be in [0, 1], got {value}")
    return float(value)


def _scores(value: object, where: str) -> dict[str, float]:
    scores = as_object(value, where)
    no_unknown(scores, frozenset(SCORE_NAMES), where)
    out = {k: _score(v, f"{where}.{k}") for k, v in scores.items()}
    if out.get("authority", 0.0) > IMPORTED_AUTHORITY:
        raise InvalidSliceError(
            f"{where}.authority {out['authority']} is above what an import may carry ({IMPORTED_AUTHORITY}): "
            "trust does not travel in a slice; a person may promote the claim after the import"
        )
    return out


def _provenance(value: object, where: str) -> dict[str, str | None]:
    prov = as_object(value, where)
    no_unknown(prov, _PROVENANCE_KEYS, where)
    out = {k: _opt_str(prov.get(k), f"{where}.{k}") for k in ("origin", "ref", "locator", "source")}
    if out["source"] is not None and out["source"] not in SOURCES:
        raise InvalidSliceError(f"{where}.source must be one of {', '.join(SOURCES)}")
    return out


def _time(value: object, where: str, *, required: bool = False) -> datetime | None:
    return None if value is None and not required else utc_time(value, where)


def _iso(when: datetime | None) -> str | None:
    return to_iso(when) if when is not None else None
