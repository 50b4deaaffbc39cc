"""The query algebra over items: filters combined with ``&``, ``|`` and ``~``, plus sorting.

A filter is a small immutable tree. ``matches`` evaluates it in Python (the reference store
and tests use it as the oracle); each backend compiles the same tree to its own query
language (``store.sqlite.sql`` for SQLite), and the conformance suite checks they agree.

    from reverie import Q
    f = Q.kind("assertion", "policy") & Q.score("authority", ge=0.7) & ~Q.tag("draft")
    mem.list(scope="user:alice", where=f, sort=["-importance", "recorded_at"], limit=20)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reverie.errors import InvalidQueryError
from reverie.model.agenda import INTENT_META, TASK_META
from reverie.model.clock import ensure_aware
from reverie.model.item import SOURCES, STATUSES, TIERS, Item
from reverie.model.textform import spellings
from reverie.model.validate import shown

SCORE_FIELDS = ("authority", "confidence", "importance", "durability", "value")
NUMBER_FIELDS = (*SCORE_FIELDS, "evidence_count", "use_count", "version")
EQ_FIELDS = ("id", "kind", "source", "tier", "status", "key", "value", "author", "scope")
TIME_FIELDS = (
    "recorded_at",
    "updated_at",
    "valid_from",
    "valid_to",
    "closed_at",
    "last_used_at",
    "last_seen_at",
)
SORT_FIELDS = (*NUMBER_FIELDS, *TIME_FIELDS, "id", "kind", "source", "tier", "key")
#: Crews: who wrote a claim, by the documented ``meta`` convention every face shares (a claim's
#: ``author`` names the person or agent; these keys say which agent process, which session and
#: which crew of agents). ``Q.agent`` / ``Q.session`` / ``Q.crew`` filter on them.
CREW_META: dict[str, str] = {"agent": "agent_id", "session": "session_id", "crew": "crew_id"}
_PATH_SEG = re.compile(r"[A-Za-z0-9_\-]{1,64}")  # used with fullmatch: "$" would accept a trailing newline
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class Filter:
    """Base of every filter node; combine with ``&`` (and), ``|`` (or), ``~`` (not)."""

    def matches(self, item: Item) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    # Chains stay one level deep: ``a | b | c`` is ``Or((a, b, c))``, not ``Or((Or((a, b)), c))``.
    # A filter built in a loop (one ``Q.meta`` per message) nested 100 deep otherwise, which
    # SQLite's parser refuses ("parser stack overflow"). Flattening changes no meaning.

    def __and__(self, other: Filter) -> Filter:
        return And((*_parts(self, And), *_parts(_as_filter(other), And)))

    def __or__(self, other: Filter) -> Filter:
        return Or((*_parts(self, Or), *_parts(_as_filter(other), Or)))

    def __invert__(self) -> Filter:
        return Not(self)


def _parts(f: Filter, kind: type[And] | type[Or]) -> tuple[Filter, ...]:
    """``f``'s operands if it is already a ``kind`` node, else ``f`` itself."""
    return f.parts if isinstance(f, kind) else (f,)


def _as_filter(value: object) -> Filter:
    if not isinstance(value, Filter):
        raise InvalidQueryError(f"cannot combine a filter with {type(value).__name__}; build both with Q.…")
    return value


@dataclass(frozen=True, slots=True)
class All(Filter):
    def matches(self, item: Item) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class And(Filter):
    parts: tuple[Filter, ...]

    def matches(self, item: Item) -> bool:
        return all(p.matches(item) for p in self.parts)


@dataclass(frozen=True, slots=True)
class Or(Filter):
    parts: tuple[Filter, ...]

    def matches(self, item: Item) -> bool:
        return any(p.matches(item) for p in self.parts)


@dataclass(frozen=True, slots=True)
class Not(Filter):
    part: Filter

    def matches(self, item: Item) -> bool:
        return not self.part.matches(item)


@dataclass(frozen=True, slots=True)
class Eq(Filter):
    field: str
    values: tuple[str, ...]

    def matches(self, item: Item) -> bool:
        return getattr(item, self.field) in self.values


@dataclass(frozen=True, slots=True)
class Range(Filter):
    """A numeric field within bounds; ``None`` bounds are open."""

    field: str
    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    lt: float | None = None

    def matches(self, item: Item) -> bool:
        v = _number(item, self.field)
        return (
            (self.ge is None or v >= self.ge)
            and (self.le is None or v <= self.le)
            and (self.gt is None or v > self.gt)
            and (self.lt is None or v < self.lt)
        )


@dataclass(frozen=True, slots=True)
class TimeRange(Filter):
    """A time field within [since, until); an item whose field is unset never matches."""

    field: str
    since: datetime | None = None
    until: datetime | None = None

    def matches(self, item: Item) -> bool:
        v: datetime | None = getattr(item, self.field)
        if v is None:
            return False
        return (self.since is None or v >= self.since) and (self.until is None or v < self.until)


@dataclass(frozen=True, slots=True)
class ValidAt(Filter):
    """True in the world at ``at`` (valid time): ``valid_from`` unset or <= ``at``, and
    ``valid_to`` unset or > ``at`` (intervals are half-open).

    This is also current truth's test, at the Memory's clock's now: a claim that starts later
    ("moves to Berlin in March") is not true yet, so "what is true now" leaves it out until it
    starts (outside tester, finding 9). ``started=False`` checks only the end — not over by ``at``.
    """

    at: datetime
    started: bool = True

    def matches(self, item: Item) -> bool:
        if self.started and item.valid_from is not None and item.valid_from > self.at:
            return False
        return item.valid_to is None or item.valid_to > self.at


@dataclass(frozen=True, slots=True)
class HasTag(Filter):
    tag: str

    def matches(self, item: Item) -> bool:
        return self.tag in item.tags


@dataclass(frozen=True, slots=True)
class HasFlag(Filter):
    flag: str

    def matches(self, item: Item) -> bool:
        return self.flag in item.flags


@dataclass(frozen=True, slots=True)
class ParentIncludes(Filter):
    parent: str

    def matches(self, item: Item) -> bool:
        return self.parent in item.parents


@dataclass(frozen=True, slots=True)
class ParentsCount(Filter):
    """How many parents an item lists, not counting those in ``ignoring``.

    ``ignoring`` is set only by ``model.conceal`` for a principal's read: the parents it may not
    see are not counted, so the count matches the parents that principal is shown.
    """

    ge: int | None = None
    le: int | None = None
    ignoring: frozenset[str] = frozenset()

    def matches(self, item: Item) -> bool:
        n = sum(1 for p in item.parents if p not in self.ignoring)
        return (self.ge is None or n >= self.ge) and (self.le is None or n <= self.le)


@dataclass(frozen=True, slots=True)
class MetaEq(Filter):
    """``meta`` at a dot-path equals a scalar; types must match (``True`` never equals ``1``)."""

    path: tuple[str, ...]
    value: str | int | float | bool | None

    def matches(self, item: Item) -> bool:
        found, v = meta_lookup(item.meta, self.path)
        if not found:
            return False
        if self.value is None or isinstance(self.value, bool):
            return v is self.value
        if isinstance(self.value, str):
            return isinstance(v, str) and v == self.value
        return isinstance(v, int | float) and not isinstance(v, bool) and v == self.value


@dataclass(frozen=True, slots=True)
class MetaHas(Filter):
    """``meta`` has the dot-path, and its value there is not a string in ``ignoring``.

    ``ignoring`` is set only by ``model.conceal``: an entry whose value is the id of an item the
    reading principal may not see is not shown to it, so it must not match either.
    """

    path: tuple[str, ...]
    ignoring: frozenset[str] = frozenset()

    def matches(self, item: Item) -> bool:
        found, v = meta_lookup(item.meta, self.path)
        return found and not (isinstance(v, str) and v in self.ignoring)


def meta_lookup(meta: dict[str, Any], path: tuple[str, ...]) -> tuple[bool, Any]:
    node: Any = meta
    for seg in path:
        if not isinstance(node, dict) or seg not in node:
            return False, None
        node = node[seg]
    return True, node


def _number(item: Item, name: str) -> float:
    if name in SCORE_FIELDS:
        return float(getattr(item.scores, name))
    return float(getattr(item, name))


def _path(path: str) -> tuple[str, ...]:
    segs = tuple(path.split(".")) if isinstance(path, str) else ()
    if not segs or not all(_PATH_SEG.fullmatch(s) for s in segs):
        raise InvalidQueryError(
            f"meta path {shown(path)} is malformed: dot-separated names of letters, digits, _ or - (e.g. 'source.turn')"
        )
    return segs


def _strings(what: str, values: Sequence[object]) -> tuple[str, ...]:
    """Equality values must be strings: SQL ``col IN (NULL)`` never matches where Python's ``None in`` does."""
    out: list[str] = []
    for v in values:
        if not isinstance(v, str):
            raise InvalidQueryError(f"{what} values are strings, got {type(v).__name__}")
        out.append(v)
    return tuple(out)


def _known(what: str, values: tuple[str, ...], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Source, tier and status are closed sets: a value outside one is a typo (a filter on
    ``tier="subconcious"`` would silently match nothing), so it is refused with the choices."""
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise InvalidQueryError(f"unknown {what} {unknown[0]!r}; use one of {', '.join(allowed)}")
    return values


def _bound(what: str, v: object) -> float | int | None:
    """A finite-or-infinite number SQLite can bind exactly: NaN binds as NULL, huge ints overflow."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise InvalidQueryError(f"{what} must be a number, got {type(v).__name__}")
    if isinstance(v, float) and math.isnan(v):
        raise InvalidQueryError(f"{what} is NaN; compare with a number")
    if isinstance(v, int) and not _INT64_MIN <= v <= _INT64_MAX:
        raise InvalidQueryError(f"{what} is an integer outside 64 bits")
    return v


def _check_range(name: str, bounds: dict[str, float | int | None]) -> None:
    """Refuse a range no item can fall in, instead of answering it with silence.

    A score is in [0, 1], so a bound outside it (``--min-importance 2``) and a lower bound above
    the upper one (``--min-importance 0.8 --max-importance 0.2``) matched nothing, without a word.
    """
    given = {op: v for op, v in bounds.items() if v is not None}
    if name in SCORE_FIELDS:
        for op, v in given.items():
            if not 0.0 <= v <= 1.0:
                raise InvalidQueryError(
                    f"range bound on {name} ({op} {shown(v)}) is outside [0, 1]; scores are in [0, 1], "
                    "so give a bound between 0 and 1"
                )
    low = max((v for op, v in given.items() if op in ("ge", "gt")), default=None)
    high = min((v for op, v in given.items() if op in ("le", "lt")), default=None)
    if low is not None and high is not None and low > high:
        raise InvalidQueryError(
            f"range on {name} has its lower bound ({shown(low)}) above its upper bound ({shown(high)}), "
            "so nothing could match; swap them"
        )


class Q:
    """Builders for filters; each validates its arguments so a bad query fails before it runs."""

    @staticmethod
    def all() -> Filter:
        return All()

    @staticmethod
    def ids(*ids: str) -> Filter:
        return Eq("id", _strings("id", ids))

    @staticmethod
    def kind(*kinds: str) -> Filter:
        return Eq("kind", _strings("kind", kinds))

    @staticmethod
    def source(*sources: str) -> Filter:
        return Eq("source", _known("source", _strings("source", sources), SOURCES))

    @staticmethod
    def tier(*tiers: str) -> Filter:
        return Eq("tier", _known("tier", _strings("tier", tiers), TIERS))

    @staticmethod
    def status(*statuses: str) -> Filter:
        return Eq("status", _known("status", _strings("status", statuses), STATUSES))

    @staticmethod
    def key(*keys: str) -> Filter:
        return Eq("key", _strings("key", keys))

    @staticmethod
    def author(*authors: str) -> Filter:
        """Written by any of ``authors``, in any Unicode spelling of the name (``textform.spellings``)."""
        return Eq("author", tuple(dict.fromkeys(v for a in _strings("author", authors) for v in spellings(a))))

    @staticmethod
    def scope(*scopes: str) -> Filter:
        return Eq("scope", _strings("scope", scopes))

    @staticmethod
    def tag(tag: str) -> Filter:
        """Tagged ``tag`` in any Unicode spelling: "café" composed or decomposed is one tag."""
        found = spellings(_strings("tag", (tag,))[0])
        return HasTag(found[0]) if len(found) == 1 else Or(tuple(HasTag(t) for t in found))

    @staticmethod
    def tags_any(*tags: str) -> Filter:
        found = [v for t in _strings("tag", tags) for v in spellings(t)]
        return Or(tuple(HasTag(t) for t in found)) if tags else Not(All())

    @staticmethod
    def flag(flag: str) -> Filter:
        return HasFlag(_strings("flag", (flag,))[0])

    @staticmethod
    def score(
        name: str,
        *,
        ge: float | None = None,
        le: float | None = None,
        gt: float | None = None,
        lt: float | None = None,
    ) -> Filter:
        if name not in NUMBER_FIELDS:
            raise InvalidQueryError(f"cannot range over {shown(name)}; use one of {', '.join(NUMBER_FIELDS)}")
        what = f"range bound on {name}"
        bounds = {op: _bound(what, v) for op, v in (("ge", ge), ("le", le), ("gt", gt), ("lt", lt))}
        _check_range(name, bounds)
        return Range(name, bounds["ge"], bounds["le"], bounds["gt"], bounds["lt"])

    @staticmethod
    def evidence(*, ge: int | None = None, le: int | None = None) -> Filter:
        return Q.score("evidence_count", ge=ge, le=le)

    @staticmethod
    def parent(parent_id: str) -> Filter:
        return ParentIncludes(_strings("parent", (parent_id,))[0])

    @staticmethod
    def parents_count(*, ge: int | None = None, le: int | None = None) -> Filter:
        for bound in (ge, le):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)):
                raise InvalidQueryError("parents_count bounds must be ints")
            _bound("parents_count bound", bound)
        return ParentsCount(ge, le)

    @staticmethod
    def meta(path: str, value: str | int | float | bool | None) -> Filter:
        if not isinstance(value, str | int | float | bool) and value is not None:
            raise InvalidQueryError("Q.meta compares with a scalar (str, number, bool or None)")
        if isinstance(value, int | float) and not isinstance(value, bool):
            _bound("Q.meta value", value)
        return MetaEq(_path(path), value)

    @staticmethod
    def intent(intent_id: str) -> Filter:
        """Claims written inside a task serving intent ``intent_id`` (``mem.tasks.running``)."""
        return MetaEq((INTENT_META,), _strings("intent", (intent_id,))[0])

    @staticmethod
    def task(task_id: str) -> Filter:
        """Claims written inside task ``task_id`` (``mem.tasks.running``)."""
        return MetaEq((TASK_META,), _strings("task", (task_id,))[0])

    @staticmethod
    def meta_has(path: str) -> Filter:
        return MetaHas(_path(path))

    @staticmethod
    def agent(*agent_ids: str) -> Filter:
        """Claims written by any of these agents (``meta.agent_id``; see ``CREW_META``)."""
        return _crew("agent", agent_ids)

    @staticmethod
    def session(*session_ids: str) -> Filter:
        """Claims written in any of these sessions (``meta.session_id``)."""
        return _crew("session", session_ids)

    @staticmethod
    def crew(*crew_ids: str) -> Filter:
        """Claims written by any of these crews of agents (``meta.crew_id``)."""
        return _crew("crew", crew_ids)

    @staticmethod
    def time(field: str, *, since: datetime | None = None, until: datetime | None = None) -> Filter:
        if field not in TIME_FIELDS:
            raise InvalidQueryError(f"cannot range over time field {shown(field)}; use one of {', '.join(TIME_FIELDS)}")
        start = ensure_aware(since, "since") if since is not None else None
        end = ensure_aware(until, "until") if until is not None else None
        if start is not None and end is not None and start > end:  # matched nothing, silently (issue: tester p11)
            raise InvalidQueryError(
                f"{field} since ({start.isoformat()}) is later than until ({end.isoformat()}), so nothing "
                "could match; swap them, or leave one out for an open end"
            )
        return TimeRange(field, start, end)

    @staticmethod
    def recorded(*, since: datetime | None = None, until: datetime | None = None) -> Filter:
        return Q.time("recorded_at", since=since, until=until)

    @staticmethod
    def valid(*, since: datetime | None = None, until: datetime | None = None) -> Filter:
        return Q.time("valid_from", since=since, until=until)

    @staticmethod
    def valid_at(when: datetime) -> Filter:
        """Claims true in the world at ``when`` (valid time), whatever was recorded when."""
        return ValidAt(ensure_aware(when, "valid_at"))

    @staticmethod
    def ongoing(when: datetime) -> Filter:
        """Claims whose validity has not ended by ``when``, started or not (current truth is ``valid_at``)."""
        return ValidAt(ensure_aware(when, "when"), started=False)


def _crew(what: str, values: Sequence[object]) -> Filter:
    """Any of ``values`` at the crew key ``what`` names: one ``MetaEq`` each, OR-ed."""
    ids = _strings(what, values)
    if not ids:
        raise InvalidQueryError(f"Q.{what} needs at least one id")
    path = (CREW_META[what],)
    parts = tuple(MetaEq(path, v) for v in ids)
    return parts[0] if len(parts) == 1 else Or(parts)


Sort = tuple[tuple[str, bool], ...]  # (field, descending)


def parse_sort(spec: Sequence[str] | str | None) -> Sort:
    """``["-importance", "recorded_at"]`` → ((importance, desc), (recorded_at, asc)), then id asc."""
    if spec is None:
        spec = ["recorded_at"]
    if isinstance(spec, str):
        spec = [spec]
    out: list[tuple[str, bool]] = []
    for raw in spec:
        if not isinstance(raw, str) or not raw:
            raise InvalidQueryError("sort fields are strings such as '-importance' or 'recorded_at'")
        desc = raw.startswith("-")
        name = raw.lstrip("-+")
        if name not in SORT_FIELDS:
            raise InvalidQueryError(f"cannot sort by {name!r}; use one of {', '.join(SORT_FIELDS)}")
        out.append((name, desc))
    if not any(name == "id" for name, _ in out):
        out.append(("id", False))  # stable tie-break: ids are unique
    return tuple(out)


def sort_items(items: list[Item], sort: Sort) -> list[Item]:
    """Sort in Python with the same semantics the SQL backends use (NULLs last either way)."""
    result = list(items)
    for name, desc in reversed(sort):
        present = [i for i in result if _sort_value(i, name) is not None]
        missing = [i for i in result if _sort_value(i, name) is None]
        present.sort(key=lambda i, n=name: _sort_value(i, n), reverse=desc)  # type: ignore[misc]
        result = present + missing
    return result


def _sort_value(item: Item, name: str) -> Any:
    if name in SCORE_FIELDS:
        return getattr(item.scores, name)
    return getattr(item, name)
