"""Row mapping and the query-algebra compiler for SQLite.

Every value reaches SQL as a bound parameter; only column names chosen from fixed tables are
spliced into the text, so no filter can inject SQL.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any

from reverie.model.clock import from_iso, to_iso
from reverie.model.cursor import After
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
    ValidAt,
)
from reverie.model.values import Value, value_text
from reverie.model.visibility import Restricted, VisibleTo
from reverie.store.keyset import after_condition

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
    "visibility",
    "value_type",
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
        stored_value(item.value),
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
        json.dumps(list(item.audience), ensure_ascii=False),
        value_type(item.value),
    )


def stored_value(value: Value | None) -> str | None:
    """The ``value`` column: the value's text (``model.values.value_text``), as every version wrote it."""
    return None if value is None else value_text(value)


def value_type(value: Value | None) -> str | None:
    """The ``value_type`` column: ``int`` or ``float`` for a number, NULL for text (and for rows
    written before schema 6, when every value was stored as text and is read back as text)."""
    if value is None or isinstance(value, str):
        return None
    return "int" if isinstance(value, int) else "float"


def _typed_value(text: str | None, kind: str | None) -> Value | None:
    """``stored_value`` and ``value_type`` inverted: ``str(1024.0)`` reads back as the float 1024.0."""
    if text is None or kind is None:
        return text
    return int(text) if kind == "int" else float(text)


#: How each ``Item`` field is stored: its columns and their values, as ``item_to_row`` writes
#: them (``tests/test_store_rows.py`` holds the two in step, field by field).
_FIELD_COLUMNS: dict[str, Callable[[Item], tuple[tuple[str, Any], ...]]] = {
    "text": lambda it: (("text", it.text),),
    "kind": lambda it: (("kind", it.kind),),
    "source": lambda it: (("source", it.source),),
    "key": lambda it: (("key", it.key),),
    "value": lambda it: (("value", stored_value(it.value)), ("value_type", value_type(it.value))),
    "author": lambda it: (("author", it.author),),
    "tags": lambda it: (("tags", json.dumps(list(it.tags), ensure_ascii=False)),),
    "meta": lambda it: (("meta", json.dumps(it.meta, ensure_ascii=False, sort_keys=True)),),
    "parents": lambda it: (("parents", json.dumps(list(it.parents))),),
    "provenance": lambda it: (("provenance", json.dumps(it.provenance.to_dict(), ensure_ascii=False, sort_keys=True)),),
    "scores": lambda it: (
        ("authority", it.scores.authority),
        ("confidence", it.scores.confidence),
        ("importance", it.scores.importance),
        ("durability", it.scores.durability),
        ("value_score", it.scores.value),
    ),
    "evidence_count": lambda it: (("evidence_count", it.evidence_count),),
    "tier": lambda it: (("tier", it.tier),),
    "status": lambda it: (("status", it.status),),
    "flags": lambda it: (("flags", json.dumps(list(it.flags))),),
    "valid_from": lambda it: (("valid_from", _t(it.valid_from)),),
    "valid_to": lambda it: (("valid_to", _t(it.valid_to)),),
    "closed_at": lambda it: (("closed_at", _t(it.closed_at)),),
    "recorded_at": lambda it: (("recorded_at", _t(it.recorded_at)),),
    "updated_at": lambda it: (("updated_at", _t(it.updated_at)),),
    "last_seen_at": lambda it: (("last_seen_at", _t(it.last_seen_at)),),
    "last_used_at": lambda it: (("last_used_at", _t(it.last_used_at)),),
    "last_used_query": lambda it: (("last_used_query", it.last_used_query),),
    "use_count": lambda it: (("use_count", it.use_count),),
    "version": lambda it: (("version", it.version),),
    "visibility": lambda it: (("visibility", json.dumps(list(it.audience), ensure_ascii=False)),),
}
_ITEM_FIELDS = tuple(f.name for f in fields(Item))
_ITEM_VALUES = attrgetter(*_ITEM_FIELDS)  # every field in one C call: the diff runs per tier change


def item_changes(before: Item, after: Item) -> list[tuple[str, Any]] | None:
    """The (column, value) pairs that differ between two versions of one item's row.

    Why: rewriting all 31 columns encodes five JSON columns and six times and updates every
    index on ``items``; a tier change touches 3 unindexed columns. None when the rows cannot be
    diffed (another item, or a field with no known column): the caller writes the whole row.
    """
    if before.id != after.id or before.scope != after.scope:
        return None
    out: list[tuple[str, Any]] = []
    for name, old, new in zip(_ITEM_FIELDS, _ITEM_VALUES(before), _ITEM_VALUES(after), strict=True):
        if old == new and type(old) is type(new):  # 1024 == 1024.0, but a value keeps its type
            continue
        encode = _FIELD_COLUMNS.get(name)
        if encode is None:
            return None
        pairs = encode(after)
        if len(pairs) > 1:  # a field of several columns (scores, a value and its type): only those that moved
            was = dict(encode(before))
            pairs = tuple((column, v) for column, v in pairs if was[column] != v)
        out.extend(pairs)
    return out


def _dt(v: str | None) -> Any:
    return from_iso(v) if v is not None else None


#: Decoded tag / flag lists by their stored text: a scope has few distinct ones (most items
#: carry the same one or two flags), and a tuple of strings is immutable, so one is shared.
_LISTS: dict[str, tuple[Any, ...]] = {}
_LISTS_MAX = 4096
#: A JSON string as ``json.dumps`` writes one that needs no escape: no quote, no backslash, and
#: no control character (JSON forbids those raw, so ``json.loads`` would refuse the text).
_PLAIN = r'"([^"\\\x00-\x1f]*)"'
#: ``Provenance`` as ``item_to_row`` writes it (sorted keys, plain strings): read without
#: json.loads, which was a third of decoding a row (every row has a distinct event id, so no
#: memo helps). A ``null`` leaves its group unmatched, so ``groups()`` already says None.
_PROVENANCE = re.compile(
    r'\{"event_id": (?:null|' + _PLAIN + r'), "locator": (?:null|' + _PLAIN + r"), "
    r'"origin": ' + _PLAIN + r', "ref": (?:null|' + _PLAIN + r")\}"
)


def _list(text: str) -> tuple[Any, ...]:
    hit = _LISTS.get(text)
    if hit is None:
        hit = tuple(json.loads(text))
        if len(text) <= 256 and len(_LISTS) < _LISTS_MAX:
            _LISTS[text] = hit
    return hit


def _provenance(text: str) -> Provenance:
    m = _PROVENANCE.fullmatch(text)
    if m is None:  # escapes, other keys or spacing: the general path
        return Provenance.from_dict(json.loads(text))
    event_id, locator, origin, ref = m.groups()
    return Provenance(origin or "api", ref, locator, event_id)  # from_dict's "or": "" is "api" too


def row_to_item(r: sqlite3.Row | tuple[Any, ...]) -> Item:
    """The ``Item`` a row of ``SELECT_ITEM`` stores (``item_to_row`` inverted).

    Why it is spelled this way: the dream pass decodes whole scopes (100k rows), where keyword
    arguments, a helper call per nullable column and per provenance group were ~1/5 of the
    decoding. So the row is unpacked once, the three value objects are built positionally (a
    field order that drifted from theirs fails the round trips in ``tests/test_store_rows.py``),
    and the common cases are tested inline: most items have no tags or parents ("[]", no
    json.loads) and leave most times NULL.
    """
    (
        id_,
        scope,
        text,
        kind,
        source,
        key,
        value,
        author,
        tags,
        meta,
        parents,
        provenance,
        authority,
        confidence,
        importance,
        durability,
        value_score,
        evidence_count,
        tier,
        status,
        flags,
        valid_from,
        valid_to,
        closed_at,
        recorded_at,
        updated_at,
        last_seen_at,
        last_used_at,
        last_used_query,
        use_count,
        version,
        visibility,
        value_kind,
    ) = r
    return Item(
        id_,
        scope,
        text,
        kind,
        source,
        from_iso(recorded_at),
        from_iso(updated_at),
        key,
        value if value_kind is None else _typed_value(value, value_kind),
        author,
        () if tags == "[]" else _list(tags),
        {} if meta == "{}" else json.loads(meta),
        () if parents == "[]" else _list(parents),
        _provenance(provenance),
        Scores(authority, confidence, importance, durability, value_score),
        evidence_count,
        tier,
        status,
        () if flags == "[]" else _list(flags),
        None if valid_from is None else from_iso(valid_from),
        None if valid_to is None else from_iso(valid_to),
        None if closed_at is None else from_iso(closed_at),
        None if last_seen_at is None else from_iso(last_seen_at),
        None if last_used_at is None else from_iso(last_used_at),
        last_used_query,
        use_count,
        version,
        () if visibility == "[]" else _list(visibility),
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
    if isinstance(f, ValidAt):
        at = to_iso(f.at)
        params.append(at)
        ended = "(valid_to IS NULL OR valid_to > ?)"
        if not f.started:
            return ended
        params.append(at)
        return f"({ended} AND (valid_from IS NULL OR valid_from <= ?))"
    if isinstance(f, HasTag | HasFlag):
        col = "tags" if isinstance(f, HasTag) else "flags"
        params.append(f.tag if isinstance(f, HasTag) else f.flag)
        return f"EXISTS (SELECT 1 FROM json_each(items.{col}) WHERE json_each.value = ?)"  # nosec B608 # col is tags or flags
    if isinstance(f, ParentIncludes):
        params.append(f.parent)
        return "EXISTS (SELECT 1 FROM json_each(items.parents) WHERE json_each.value = ?)"
    if isinstance(f, ParentsCount):
        return _parents_count(f, params)
    if isinstance(f, MetaHas):
        params.append(_json_path(f.path))
        if not f.ignoring:
            return "(json_type(meta, ?) IS NOT NULL)"
        # One JSON array parameter for the ignored ids, however many: no bound-parameter limit.
        params.extend([_json_path(f.path), _json_path(f.path), json.dumps(sorted(f.ignoring))])
        return (
            "(json_type(meta, ?) IS NOT NULL AND NOT COALESCE(json_type(meta, ?) = 'text' AND "
            "json_extract(meta, ?) IN (SELECT h.value FROM json_each(?) AS h), 0))"
        )
    if isinstance(f, MetaEq):
        return _meta_eq(f, params)
    if isinstance(f, Restricted):
        # Spelled exactly as the partial index ``items_restricted`` is, so SQLite uses it.
        return "visibility != '[]'"
    if isinstance(f, After):
        return _after(f, params)
    if isinstance(f, VisibleTo):
        params.append(f.principal)
        return "(visibility = '[]' OR EXISTS (SELECT 1 FROM json_each(items.visibility) WHERE json_each.value = ?))"
    raise TypeError(f"cannot compile filter node {type(f).__name__}")  # pragma: no cover


def _parents_count(f: ParentsCount, params: list[Any]) -> str:
    """The parents' count against the bounds; ``ignoring`` (a principal's hidden ids) not counted."""
    if f.ignoring:
        n = (
            "(SELECT count(*) FROM json_each(items.parents) AS p "
            "WHERE p.value NOT IN (SELECT h.value FROM json_each(?) AS h))"
        )
    else:
        n = "json_array_length(parents)"
    parts = []
    for op, bound in ((">=", f.ge), ("<=", f.le)):
        if bound is not None:
            parts.append(f"{n} {op} ?")
            params.extend([json.dumps(sorted(f.ignoring)), bound] if f.ignoring else [bound])
    return "(" + " AND ".join(parts) + ")" if parts else "1"


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


def _after(f: After, params: list[Any]) -> str:
    """Rows after a cursor's key in ``compile_sort`` order (``store.keyset``)."""
    return after_condition(f, params, lambda name: _COL.get(name, name), "?", "0")


def compile_sort(sort: Sort) -> str:
    parts = []
    for name, desc in sort:
        col = _COL.get(name, name)
        parts.append(f"({col} IS NULL), {col} {'DESC' if desc else 'ASC'}")
    return ", ".join(parts)
