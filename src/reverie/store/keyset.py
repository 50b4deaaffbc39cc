"""The SQL condition "rows after a cursor's key", written once for both SQL backends.

Why one place: a keyset cursor (``model.cursor.After``) is only correct if every backend orders
and compares the same way (NULLs last in either direction, ties broken by id); SQLite and
PostgreSQL differ only in the parameter mark and the false literal.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from reverie.model.clock import to_iso
from reverie.model.cursor import After


def after_condition(f: After, params: list[Any], column: Callable[[str], str], mark: str, false: str) -> str:
    """Rows after ``f.key`` in ``f.sort`` order; appends its parameters to ``params``.

    For sort (a, b, id) and key (x, y, i): a after x, or a = x and b after y, or a = x, b = y and
    id > i; "after" a non-NULL value includes NULL (NULLs last), nothing is after a NULL.
    """
    ors: list[str] = []
    same: list[tuple[str, list[Any]]] = []
    for (name, desc), key in zip(f.sort, f.key, strict=True):
        col = column(name)
        if key is None:
            same.append((f"{col} IS NULL", []))
            continue
        value = to_iso(key) if isinstance(key, datetime) else key
        tests = [*same, (f"({col} IS NULL OR {col} {'<' if desc else '>'} {mark})", [value])]
        ors.append("(" + " AND ".join(t for t, _ in tests) + ")")
        params.extend(p for _, ps in tests for p in ps)
        same.append((f"{col} = {mark}", [value]))
    return "(" + " OR ".join(ors) + ")" if ors else false
