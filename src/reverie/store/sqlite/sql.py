"""Row mapping and the query-algebra compiler for SQLite.

Every value reaches SQL as a bound parameter; only column names chosen from fixed tables are
spliced into the text, so no filter can inject SQL.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from reverie.model.clock import from_iso, to_iso
from reverie.model.item import Edge, Item, Provenance, Scores
from reverie.model.query import (
    All,
    And,
    Eq,
    Filter,
    HasFlag,
    HasTag,
    MetaEq,
    MetaHas,
    Not,
    Or,
    ParentIncludes,
    ParentsCount,
    Range,
    Sort,
    TimeRange,
)

ITEM_COLUMNS = [
    "id",
    "scope",
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
    "authority",
    "confidence",
    "importance",
    "durability",
    "value_score",
    "evidence_count",
    "tier",
    "status",
    "flags",
    "valid_from",
    "valid_to",
    "closed_at",
    "recorded_at",
    "updated_at",
    "last_seen_at",
    "last_used_at",
    "last_used_query",
    "use_count",
    "version",
]
SELECT_ITEM = "SELECT " + ", ".join(ITEM_COLUMNS) + " FROM items"  # nosec B608 # constant column names
_COL = {"value": "value_score"}  # score name → column, where they differ
_EQ_COL = {"value": "value"}  # Eq on "value" means the structured value column


def _t(v: Any) -> str | None:
    return to_iso(v) if v is not None else None


def item_to_row(item: Item) -> tuple[Any, ...]:
    s = item.scores
    return (
        item.id,
        item.scope,
        item.text,
        item.kind,
        item.source,
        item.key,
        item.value,
        item.author,
        json.dumps(list(item.tags), ensure_ascii=False),
        json.dumps(item.meta, ensure_ascii=False, sort_keys=True),
        json.dumps(list(item.parents)),
        json.dumps(item.provenance.to_dict(), ensure_ascii=False, sort_keys=True),
        s.authority,
        s.confidence,
        s.importance,
        s.durability,
        s.value,
        item.evidence_count,
        item.tier,
        item.status,
        json.dumps(list(item.flags)),
        _t(item.valid_from),
        _t(item.valid_to),
        _t(item.closed_at),
        _t(item.recorded_at),
        _t(item.updated_at),
        _t(item.last_seen_at),
        _t(item.last_used_at),
        item.last_used_query,
        item.use_count,
        item.version,
    )


def _dt(v: str | None) -> Any:
    return from_iso(v) if v is not None else None


def _list(text: str) -> tuple[Any, ...]:
    # Most items have no tags / parents / flags: skipping json.loads for "[]" saves ~30% of
    # decoding a 100k-item scope (the dream pass reads whole scopes).
    return () if text == "[]" else tuple(json.loads(text))


def row_to_item(r: sqlite3.Row | tuple[Any, ...]) -> Item:
    return Item(
        id=r[0],
        scope=r[1],
        text=r[2],
        kind=r[3],
        source=r[4],
        key=r[5],
        value=r[6],
        author=r[7],
        tags=_list(r[8]),
        meta={} if r[9] == "{}" else json.loads(r[9]),
        parents=_list(r[10]),
        provenance=Provenance.from_dict(json.loads(r[11])),
        scores=Scores(authority=r[12], confidence=r[13], importance=r[14], durability=r[15], value=r[16]),
        evidence_count=r[17],
        tier=r[18],
        status=r[19],
        flags=_list(r[20]),
        valid_from=_dt(r[21]),
        valid_to=_dt(r[22]),
        closed_at=_dt(r[23]),
        recorded_at=from_iso(r[24]),
        updated_at=from_iso(r[25]),
        last_seen_at=_dt(r[26]),
        last_used_at=_dt(r[27]),
        last_used_query=r[28],
        use_count=r[29],
        version=r[30],
    )


def edge_to_row(e: Edge) -> tuple[Any, ...]:
    return (
        e.id,
        e.scope,
        e.type,
        e.src,
        e.dst,
        to_iso(e.recorded_at),
        e.author,
        e.authority,
        json.dumps(e.meta, ensure_ascii=False, sort_keys=True),
        _t(e.closed_at),
    )


def row_to_edge(r: tuple[Any, ...]) -> Edge:
    return Edge(
        id=r[0],
        scope=r[1],
        type=r[2],
        src=r[3],
        dst=r[4],
        recorded_at=from_iso(r[5]),
        author=r[6],
        authority=r[7],
        meta=json.loads(r[8]),
        closed_at=_dt(r[9]),
    )


def _json_path(path: tuple[str, ...]) -> str:
    return "$" + "".join('."' + seg + '"' for seg in path)


def compile_filter(f: Filter, params: list[Any]) -> str:
    """SQL boolean expression for ``f``, appending its parameters to ``params``."""
    if isinstance(f, All):
        return "1"
    if isinstance(f, And):
        return "(" + " AND ".join(compile_filter(p, params) for p in f.parts) + ")" if f.parts else "1"
    if isinstance(f, Or):
        return "(" + " OR ".join(compile_filter(p, params) for p in f.parts) + ")" if f.parts else "0"
    if isinstance(f, Not):
        # SQL is three-valued: a leaf over a NULL column (``key IN (?)`` on an unkeyed item, a
        # missing meta path) is NULL, and NOT NULL is NULL again, so the row would vanish where
        # the Python oracle says True. Collapsing NULL to false first keeps the two in step.
        return "(NOT COALESCE(" + compile_filter(f.part, params) + ", 0))"
    if isinstance(f, Eq):
        if not f.values:
            return "0"
        params.extend(f.values)
        return f"{_EQ_COL.get(f.field, f.field)} IN ({', '.join('?' * len(f.values))})"
    if isinstance(f, Range):
        col = _COL.get(f.field, f.field)
        parts = []
        for op, bound in ((">=", f.ge), ("<=", f.le), (">", f.gt), ("<", f.lt)):
            if bound is not None:
                parts.append(f"{col} {op} ?")
                params.append(bound)
        return "(" + " AND ".join(parts) + ")" if parts else "1"
    if isinstance(f, TimeRange):
        parts = [f"{f.field} IS NOT NULL"]
        if f.since is not None:
            parts.append(f"{f.field} >= ?")
            params.append(to_iso(f.since))
        if f.until is not None:
            parts.append(f"{f.field} < ?")
            params.append(to_iso(f.until))
        return "(" + " AND ".join(parts) + ")"
    if isinstance(f, HasTag | HasFlag):
        col = "tags" if isinstance(f, HasTag) else "flags"
        params.append(f.tag if isinstance(f, HasTag) else f.flag)
        return f"EXISTS (SELECT 1 FROM json_each(items.{col}) WHERE json_each.value = ?)"  # nosec B608 # col is tags or flags
    if isinstance(f, ParentIncludes):
        params.append(f.parent)
        return "EXISTS (SELECT 1 FROM json_each(items.parents) WHERE json_each.value = ?)"
    if isinstance(f, ParentsCount):
        parts = []
        for op, bound in ((">=", f.ge), ("<=", f.le)):
            if bound is not None:
                parts.append(f"json_array_length(parents) {op} ?")
                params.append(bound)
        return "(" + " AND ".join(parts) + ")" if parts else "1"
    if isinstance(f, MetaHas):
        params.append(_json_path(f.path))
        return "(json_type(meta, ?) IS NOT NULL)"
    if isinstance(f, MetaEq):
        return _meta_eq(f, params)
    raise TypeError(f"cannot compile filter node {type(f).__name__}")  # pragma: no cover


def _meta_eq(f: MetaEq, params: list[Any]) -> str:
    path = _json_path(f.path)
    v = f.value
    if v is None:
        params.append(path)
        return "(json_type(meta, ?) = 'null')"
    if isinstance(v, bool):
        params.append(path)
        return f"(json_type(meta, ?) = '{'true' if v else 'false'}')"
    if isinstance(v, str):
        params.extend([path, path, v])
        return "(json_type(meta, ?) = 'text' AND json_extract(meta, ?) = ?)"
    params.extend([path, path, v])
    return "(json_type(meta, ?) IN ('integer', 'real') AND json_extract(meta, ?) = ?)"


def compile_sort(sort: Sort) -> str:
    parts = []
    for name, desc in sort:
        col = _COL.get(name, name)
        parts.append(f"({col} IS NULL), {col} {'DESC' if desc else 'ASC'}")
    return ", ".join(parts)
