"""List cursors: where the next page starts, as the last row's sort key (keyset), not a position.

Why keyset: an offset cursor ("skip 50") counts rows, so every item forgotten on an earlier page
shifted the rest forward and one live item per forgotten one was never returned, and every item
inserted ahead of the cursor was returned twice (probe 5 #4). A cursor that names the last row's
sort values and id instead says "the rows after this one in this order", which no insert or
forget elsewhere in the listing changes: an item live for the whole walk is returned exactly once.

The cursor is opaque to callers (base64 of a small JSON document) and untrusted when it comes
back: ``decode`` refuses anything malformed, and one made for another listing (another scope,
filter, sort, ``include_closed``, ``subscopes`` or ``valid_at``) with ``InvalidInputError``.
``After`` is the filter node the stores compile (SQLite, PostgreSQL) or evaluate (the reference
store); it follows the sort's rules exactly: NULLs last in either direction, then ``id``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reverie.errors import InvalidInputError
from reverie.model.clock import from_iso, to_iso
from reverie.model.item import Item
from reverie.model.query import NUMBER_FIELDS, SCORE_FIELDS, TIME_FIELDS, All, Filter, Sort
from reverie.model.validate import load_json

_VERSION = 2  # 1 was the offset cursor ``{"o": n}``
#: Far above any real cursor (a few sort values, an id, a hash), low enough that a forged
#: megabyte is refused before it is decoded.
MAX_CURSOR_CHARS = 8192
_MALFORMED = "cursor is not one this store issued ({why}); pass the previous page's next_cursor back unchanged"
_OTHER_LISTING = (
    "cursor belongs to another listing (a different scope, filter, sort, include_closed, subscopes or "
    "valid_at); page on with the same arguments that produced it, or start again without a cursor"
)


@dataclass(frozen=True, slots=True)
class After(Filter):
    """Rows strictly after ``key`` in ``sort`` order (``key`` holds one value per sort field).

    Same order as ``query.sort_items`` and the SQL ``compile_sort``: per field, NULLs come last
    whichever the direction, and rows equal on every earlier field are decided by the next one.
    ``sort`` always ends with ``id`` (``parse_sort``), which makes the order total.
    """

    sort: Sort
    key: tuple[Any, ...]

    def matches(self, item: Item) -> bool:
        for (name, desc), mark in zip(self.sort, self.key, strict=True):
            mine = sort_value(item, name)
            if mine == mark:
                continue
            if mark is None:
                return False  # NULLs are last: nothing non-NULL comes after one
            if mine is None:
                return True
            return bool(mine < mark if desc else mine > mark)
        return False  # the row itself


BY_ID: Sort = (("id", False),)


def after_id(page: Sequence[Item]) -> Filter:
    """For a walk by id (``BY_ID``): the rows after ``page``'s last one (every row when it is empty).

    Internal walks over a whole scope page with this rather than an offset, so a write from
    another process between two pages cannot shift a row out of the walk or into it twice.
    """
    return After(BY_ID, (page[-1].id,)) if page else All()


def sort_value(item: Item, name: str) -> Any:
    """The value ``name`` sorts ``item`` by (a score, a count, a time, a string or None)."""
    if name in SCORE_FIELDS:
        return getattr(item.scores, name)
    return getattr(item, name)


def listing_fingerprint(**listing: Any) -> str:
    """A short digest of what defines a listing (scope, filter, sort, flags), stable across processes.

    Filters are frozen dataclasses; sets inside them (a principal's hidden ids) are sorted and
    times spelled ``to_iso``, so the same arguments give the same digest in every process.
    """
    text = json.dumps(_canon(listing), sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _canon(x: Any) -> Any:
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return [type(x).__name__, *(_canon(getattr(x, f.name)) for f in dataclasses.fields(x))]
    if isinstance(x, dict):
        return {str(k): _canon(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_canon(v) for v in x]
    if isinstance(x, set | frozenset):
        return sorted((_canon(v) for v in x), key=lambda v: json.dumps(v, sort_keys=True, default=repr))
    if isinstance(x, datetime):
        return to_iso(x)
    if x is None or isinstance(x, str | int | float | bool):
        return x
    return repr(x)


def encode(sort: Sort, last: Item, listing: str) -> str:
    """The ``next_cursor`` after ``last``, the final row of a page of ``listing``."""
    key = [_to_json(name, sort_value(last, name)) for name, _ in sort]
    doc = {"v": _VERSION, "l": listing, "k": key}
    return base64.urlsafe_b64encode(json.dumps(doc, separators=(",", ":")).encode()).decode()


def decode(cursor: object, sort: Sort, listing: str) -> After | None:
    """The ``After`` filter a cursor stands for (None for no cursor: the first page).

    ``InvalidInputError`` for a cursor that is malformed, from an older reverie (an offset) or
    made for another listing: paging on from it would silently show the wrong rows.
    """
    if cursor is None:
        return None
    if not isinstance(cursor, str):
        raise InvalidInputError(_MALFORMED.format(why=f"a cursor is a string, got {type(cursor).__name__}"))
    if len(cursor) > MAX_CURSOR_CHARS:
        raise InvalidInputError(_MALFORMED.format(why=f"longer than {MAX_CURSOR_CHARS} characters"))
    try:
        doc = load_json(base64.urlsafe_b64decode(cursor.encode()).decode(), "cursor", InvalidInputError)
    except (ValueError, binascii.Error):  # UnicodeError and InvalidInputError are ValueErrors
        raise InvalidInputError(_MALFORMED.format(why="not base64 of JSON")) from None
    if not isinstance(doc, dict) or doc.get("v") != _VERSION or set(doc) != {"v", "l", "k"}:
        raise InvalidInputError(_MALFORMED.format(why="unknown form: an older reverie's cursor or an edited one"))
    if doc["l"] != listing:
        raise InvalidInputError(_OTHER_LISTING)
    key = doc["k"]
    if not isinstance(key, list) or len(key) != len(sort):
        raise InvalidInputError(_MALFORMED.format(why="its sort key does not fit the sort"))
    return After(sort, tuple(_from_json(name, v) for (name, _), v in zip(sort, key, strict=True)))


def _to_json(name: str, value: Any) -> Any:
    return to_iso(value) if isinstance(value, datetime) else value


def _from_json(name: str, value: Any) -> Any:
    """One sort value back from the cursor, checked against its field's type."""
    bad = InvalidInputError(_MALFORMED.format(why=f"bad value for sort field {name}"))
    if value is None:
        if name == "id":
            raise bad
        return None
    if name in TIME_FIELDS:
        if not isinstance(value, str):
            raise bad
        try:
            when = from_iso(value)
        except ValueError:
            raise bad from None
        if when.tzinfo is None or to_iso(when) != value:
            raise bad
        return when
    if name in NUMBER_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad
        if isinstance(value, float) and not math.isfinite(value):
            raise bad
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise bad
        return value
    if not isinstance(value, str):
        raise bad
    return value
