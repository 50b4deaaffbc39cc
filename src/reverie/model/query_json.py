"""The query algebra (``reverie.Q``) as JSON, for the faces whose callers cannot build ``Q`` objects.

The MCP tools and the HTTP API take a filter as a JSON object and turn it into the very same
``Filter`` tree ``Q`` builds, through ``Q`` itself, so every face shares one vocabulary and one
set of checks. A malformed filter raises ``InvalidQueryError`` (code ``invalid_query``) naming
the exact place that is wrong (``where.and[1].score.name``), before anything runs.

The form — an object whose keys are AND-ed (``{}`` matches everything)::

    {"kind": "assertion"}                       one value, or a list of values (any of them)
    {"ids" | "kind" | "source" | "tier" | "status" | "key" | "author": "x" | ["x", "y"]}
    {"agent" | "session" | "crew": "x" | ["x", "y"]}  meta.agent_id / session_id / crew_id (crews)
    {"tag": "health"}                           has this tag     {"tag" | "tags_any": ["a", "b"]}  any of them
    {"flag": "hub"}                             has this flag    {"parent": ID}  derived from ID
    {"score": {"name": "importance", "ge": 0.8}}    also le / gt / lt; any of NUMBER_FIELDS
    {"evidence": {"ge": 2}}    {"parents_count": {"ge": 1, "le": 3}}
    {"time": {"field": "recorded_at", "since": ISO-8601, "until": ISO-8601}}   [since, until)
    {"meta": {"path": "source.turn", "value": 3}}    {"meta_has": "source.turn"}
    {"intent": ID}    {"task": ID}                 written inside a task of this intent / this task
    {"and": [F, ...]}    {"or": [F, ...]}    {"not": F}

``scope`` is deliberately not a key: the scope is the caller's isolation boundary, given
separately, and never something a filter can widen or name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, tzinfo
from typing import Any

from reverie.errors import InvalidInputError, InvalidQueryError
from reverie.model.query import NUMBER_FIELDS, TIME_FIELDS, Filter, Q
from reverie.model.validate import shown

MAX_DEPTH = 16
"""Deepest nesting of ``and`` / ``or`` / ``not`` accepted (a real filter is a few levels)."""
MAX_NODES = 256
"""Most filter nodes in one JSON filter: bounds the SQL a caller can make the store compile."""

EQUALITY_KEYS: Mapping[str, Callable[..., Filter]] = {
    "ids": Q.ids,
    "kind": Q.kind,
    "source": Q.source,
    "tier": Q.tier,
    "status": Q.status,
    "key": Q.key,
    "author": Q.author,
    # crews (meta.agent_id / session_id / crew_id: ``query.CREW_META``)
    "agent": Q.agent,
    "session": Q.session,
    "crew": Q.crew,
}
_BOUNDS = ("ge", "le", "gt", "lt")
_OTHER_KEYS = (
    "tag",
    "tags_any",
    "flag",
    "parent",
    "score",
    "evidence",
    "parents_count",
    "time",
    "meta",
    "meta_has",
    "intent",
    "task",
    "and",
    "or",
    "not",
)
KEYS: tuple[str, ...] = (*EQUALITY_KEYS, *_OTHER_KEYS)

FILTER_DESCRIPTION = (
    "A filter in reverie's query algebra, as JSON; the keys of one object are AND-ed and {} matches "
    'everything. Examples: {"kind": ["assertion", "policy"]}, {"tag": "health"}, '
    '{"score": {"name": "importance", "ge": 0.8}}, {"meta": {"path": "turn", "value": 3}}, '
    '{"time": {"field": "recorded_at", "since": "2025-01-01T00:00:00Z"}}, '
    '{"or": [{"kind": "trait"}, {"not": {"source": "inferred"}}]}. '
    f"Keys: {', '.join(KEYS)}; score names: {', '.join(NUMBER_FIELDS)}; time fields: {', '.join(TIME_FIELDS)}."
)
FILTER_SCHEMA: dict[str, Any] = {"type": "object", "description": FILTER_DESCRIPTION}
"""Its JSON Schema: an object. The structure is checked by ``parse_filter``, so every mistake in a
filter gets the one code ``invalid_query`` and a message naming its place."""


def parse_filter(doc: object, where: str = "where", naive: tzinfo | None = None) -> Filter:
    """The ``Filter`` a JSON filter describes; ``InvalidQueryError`` naming the faulty path if malformed.

    ``naive``: the zone a time without an offset is read in — the CLI passes UTC, its documented
    rule for every time it takes (probe 6, finding 5); None (HTTP, MCP) refuses such a time.
    """
    counter = [0]
    return _node(doc, where, 0, counter, naive)


class _Located(InvalidQueryError):
    """A refusal that already names its place in the filter (not re-wrapped by outer clauses)."""


def _fail(path: str, message: str) -> InvalidQueryError:
    return _Located(f"{path} {message}")


def _node(doc: object, path: str, depth: int, counter: list[int], naive: tzinfo | None) -> Filter:
    if not isinstance(doc, dict):
        raise _fail(path, f"must be a JSON object (a filter), got {_kind(doc)}")
    if depth > MAX_DEPTH:
        raise _fail(path, f"nests deeper than {MAX_DEPTH} levels")
    unknown = sorted(str(k) for k in doc if k not in KEYS)
    if unknown:
        raise _fail(path, f"has unknown key(s) {', '.join(unknown)}; the keys are {', '.join(KEYS)}")
    parts: list[Filter] = []
    for key, value in doc.items():
        counter[0] += 1
        if counter[0] > MAX_NODES:
            raise _fail(path, f"has more than {MAX_NODES} conditions")
        parts.append(_clause(key, value, f"{path}.{key}", depth, counter, naive))
    if not parts:
        return Q.all()
    out = parts[0]
    for part in parts[1:]:
        out = out & part
    return out


def _clause(key: str, value: object, path: str, depth: int, counter: list[int], naive: tzinfo | None) -> Filter:
    try:
        return _build(key, value, path, depth, counter, naive)
    except _Located:
        raise
    except InvalidInputError as exc:  # Q's own checks (InvalidQueryError), or a naive time from Q.time
        raise _fail(path, f"is invalid: {exc.message}") from None


def _build(key: str, value: object, path: str, depth: int, counter: list[int], naive: tzinfo | None) -> Filter:
    if key in EQUALITY_KEYS:
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            raise _fail(path, f"must be a string or a non-empty list of strings, got {_kind(value)}")
        return EQUALITY_KEYS[key](*values)
    if key in ("and", "or"):
        if not isinstance(value, list) or not value:
            raise _fail(path, f"must be a non-empty list of filters, got {_kind(value)}")
        subs = [_node(v, f"{path}[{i}]", depth + 1, counter, naive) for i, v in enumerate(value)]
        out = subs[0]
        for sub in subs[1:]:
            out = (out & sub) if key == "and" else (out | sub)
        return out
    if key == "not":
        return ~_node(value, path, depth + 1, counter, naive)
    if key == "tag" and isinstance(value, list):  # a list is any of them, as for kind (the recall shortcut too)
        if not value or not all(isinstance(v, str) for v in value):
            raise _fail(path, f"must be a string or a non-empty list of strings, got {_kind(value)}")
        return Q.tags_any(*value)
    if key in ("tag", "flag", "parent", "meta_has", "intent", "task"):
        text = _string(value, path)
        builders: dict[str, Callable[[str], Filter]] = {
            "tag": Q.tag,
            "flag": Q.flag,
            "parent": Q.parent,
            "meta_has": Q.meta_has,
            "intent": Q.intent,
            "task": Q.task,
        }
        return builders[key](text)
    if key == "tags_any":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _fail(path, f"must be a list of strings, got {_kind(value)}")
        return Q.tags_any(*value)
    if key == "score":
        fields = _object(value, path, ("name", *_BOUNDS), required=("name",))
        name = fields.pop("name")
        if name not in NUMBER_FIELDS:
            raise _fail(f"{path}.name", f"must be one of {', '.join(NUMBER_FIELDS)}, got {shown(name)}")
        return Q.score(name, **fields)
    if key in ("evidence", "parents_count"):
        fields = _object(value, path, ("ge", "le"))
        return Q.evidence(**fields) if key == "evidence" else Q.parents_count(**fields)
    if key == "time":
        fields = _object(value, path, ("field", "since", "until"), required=("field",))
        name = fields["field"]
        if name not in TIME_FIELDS:
            raise _fail(f"{path}.field", f"must be one of {', '.join(TIME_FIELDS)}, got {shown(name)}")
        since, until = (_time(fields.get(b), f"{path}.{b}", naive) for b in ("since", "until"))
        return Q.time(name, since=since, until=until)
    # key == "meta" (KEYS is closed, checked in _node)
    fields = _object(value, path, ("path", "value"), required=("path", "value"))
    return Q.meta(_string(fields["path"], f"{path}.path"), fields["value"])


def _object(value: object, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, f"must be an object with {', '.join(allowed)}, got {_kind(value)}")
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise _fail(path, f"has unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")
    missing = [k for k in required if k not in value]
    if missing:
        raise _fail(path, f"needs {', '.join(missing)}")
    if not required and not value:
        raise _fail(path, f"needs at least one of {', '.join(allowed)}")
    return dict(value)


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise _fail(path, f"must be a string, got {_kind(value)}")
    return value


def _time(value: object, path: str, naive: tzinfo | None) -> datetime | None:
    if value is None:
        return None
    text = _string(value, path)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise _fail(path, f"{text[:60]!r} is not an ISO-8601 time, e.g. 2025-01-31T12:00:00Z") from None
    return when.replace(tzinfo=naive) if when.tzinfo is None and naive is not None else when


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
