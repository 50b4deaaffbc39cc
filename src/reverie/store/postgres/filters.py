"""The query algebra compiled to PostgreSQL (the SQLite compiler's twin, ``store/sqlite/sql.py``).

Values reach SQL only as ``%s`` parameters; column names come from fixed tables. JSON columns
are kept as exact text (key order, number spelling) and read through ``::jsonb`` here, which
is why a filter on ``meta`` costs a parse per row (as ``json_extract`` does on SQLite).
"""

from __future__ import annotations

from typing import Any

from reverie.model.clock import to_iso
from reverie.model.cursor import After
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
    ValidAt,
)
from reverie.model.visibility import Restricted, VisibleTo
from reverie.store.keyset import after_condition

_COL = {"value": "value_score"}  # score name → column, where they differ
_EQ_COL = {"value": "value"}  # Eq on "value" means the structured value column


def compile_filter(f: Filter, params: list[Any]) -> str:
    """SQL boolean expression for ``f``, appending its parameters to ``params``."""
    if isinstance(f, All):
        return "true"
    if isinstance(f, And):
        return "(" + " AND ".join(compile_filter(p, params) for p in f.parts) + ")" if f.parts else "true"
    if isinstance(f, Or):
        return "(" + " OR ".join(compile_filter(p, params) for p in f.parts) + ")" if f.parts else "false"
    if isinstance(f, Not):
        # Three-valued logic, as on SQLite: NULL must count as false before NOT.
        return "(NOT COALESCE(" + compile_filter(f.part, params) + ", false))"
    if isinstance(f, Eq):
        if not f.values:
            return "false"
        params.extend(f.values)
        return f"{_EQ_COL.get(f.field, f.field)} IN ({', '.join(['%s'] * len(f.values))})"
    if isinstance(f, Range):
        col = _COL.get(f.field, f.field)
        parts = []
        for op, bound in ((">=", f.ge), ("<=", f.le), (">", f.gt), ("<", f.lt)):
            if bound is not None:
                parts.append(f"{col} {op} %s")
                params.append(bound)
        return "(" + " AND ".join(parts) + ")" if parts else "true"
    if isinstance(f, TimeRange):
        parts = [f"{f.field} IS NOT NULL"]
        if f.since is not None:
            parts.append(f"{f.field} >= %s")
            params.append(to_iso(f.since))
        if f.until is not None:
            parts.append(f"{f.field} < %s")
            params.append(to_iso(f.until))
        return "(" + " AND ".join(parts) + ")"
    if isinstance(f, ValidAt):
        at = to_iso(f.at)
        params.append(at)
        ended = "(valid_to IS NULL OR valid_to > %s)"
        if not f.started:
            return ended
        params.append(at)
        return f"({ended} AND (valid_from IS NULL OR valid_from <= %s))"
    if isinstance(f, HasTag | HasFlag):
        col = "tags" if isinstance(f, HasTag) else "flags"
        params.append(f.tag if isinstance(f, HasTag) else f.flag)
        return f"(items.{col}::jsonb ? %s)"
    if isinstance(f, ParentIncludes):
        params.append(f.parent)
        return "(items.parents::jsonb ? %s)"
    if isinstance(f, ParentsCount):
        return _parents_count(f, params)
    if isinstance(f, MetaHas):
        params.append(list(f.path))
        if not f.ignoring:
            return "((meta::jsonb #> %s::text[]) IS NOT NULL)"
        params.extend([list(f.path), list(f.path), sorted(f.ignoring)])
        return (
            "((meta::jsonb #> %s::text[]) IS NOT NULL AND NOT COALESCE(jsonb_typeof(meta::jsonb #> %s::text[]) = "
            "'string' AND (meta::jsonb #>> %s::text[]) = ANY(%s::text[]), false))"
        )
    if isinstance(f, MetaEq):
        return _meta_eq(f, params)
    if isinstance(f, Restricted):
        # Spelled exactly as the partial index ``items_restricted`` is, so the planner uses it.
        return "visibility <> '[]'"
    if isinstance(f, After):
        return _after(f, params)
    if isinstance(f, VisibleTo):
        params.append(f.principal)
        return "(visibility = '[]' OR (items.visibility::jsonb ? %s))"
    raise TypeError(f"cannot compile filter node {type(f).__name__}")  # pragma: no cover


def _parents_count(f: ParentsCount, params: list[Any]) -> str:
    """The parents' count against the bounds; ``ignoring`` (a principal's hidden ids) not counted."""
    if f.ignoring:
        n = (
            "(SELECT count(*) FROM jsonb_array_elements_text(items.parents::jsonb) AS p(v) "
            "WHERE NOT (p.v = ANY(%s::text[])))"
        )
    else:
        n = "jsonb_array_length(parents::jsonb)"
    parts = []
    for op, bound in ((">=", f.ge), ("<=", f.le)):
        if bound is not None:
            parts.append(f"{n} {op} %s")
            params.extend([sorted(f.ignoring), bound] if f.ignoring else [bound])
    return "(" + " AND ".join(parts) + ")" if parts else "true"


def _meta_eq(f: MetaEq, params: list[Any]) -> str:
    path = list(f.path)
    v = f.value
    at = "(meta::jsonb #> %s::text[])"
    if v is None:
        params.append(path)
        return f"(jsonb_typeof{at} = 'null')"
    if isinstance(v, bool):
        params.append(path)
        return f"({at} = '{'true' if v else 'false'}'::jsonb)"
    if isinstance(v, str):
        params.extend([path, path, v])
        return f"(jsonb_typeof{at} = 'string' AND (meta::jsonb #>> %s::text[]) = %s)"
    params.extend([path, path, v])
    # A JSON number compares as a number (1 == 1.0), as json_extract does on SQLite.
    return f"(jsonb_typeof{at} = 'number' AND {at}::numeric = %s::numeric)"


def _after(f: After, params: list[Any]) -> str:
    """Rows after a cursor's key in ``compile_sort`` order (``store.keyset``)."""
    return after_condition(f, params, lambda name: _COL.get(name, name), "%s", "false")


def compile_sort(sort: Sort) -> str:
    parts = []
    for name, desc in sort:
        col = _COL.get(name, name)
        parts.append(f"({col} IS NULL), {col} {'DESC' if desc else 'ASC'}")
    return ", ".join(parts)
