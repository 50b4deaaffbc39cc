"""The field checks every slice section shares: one wording of each refusal, in one place.

Why here: the items, agenda and conversations sections each grew their own copy of "an id",
"an ISO time", "an object with no unknown field"; the copies drifted (one accepted a naive time
with a vaguer message, one cut long values differently). A slice is refused the same way
whichever section is wrong.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reverie.errors import InvalidSliceError
from reverie.model.clock import from_iso
from reverie.model.ids import is_id


def shown(value: object) -> str:
    """A value as a refusal quotes it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidSliceError(f"{where} must be an object")
    return value


def as_list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidSliceError(f"{where} must be a list")
    return value


def no_unknown(d: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(str(k) for k in set(d) - allowed)
    if unknown:
        raise InvalidSliceError(
            f"{where} has unknown field(s) {', '.join(unknown)}; it has {', '.join(sorted(allowed))}"
        )


def record(value: object, allowed: frozenset[str], where: str) -> dict[str, Any]:
    """An object whose fields are all among ``allowed``."""
    d = as_object(value, where)
    no_unknown(d, allowed, where)
    return d


def reverie_id(value: object, where: str) -> str:
    if not is_id(value):
        raise InvalidSliceError(f"{where} must be a reverie id (a lower-case UUID), got {shown(value)}")
    return str(value)


def utc_time(value: object, where: str) -> datetime:
    """An ISO-8601 time with a time zone."""
    if not isinstance(value, str):
        raise InvalidSliceError(f"{where} must be an ISO-8601 UTC time, got {shown(value)}")
    try:
        when = from_iso(value)
    except ValueError:
        raise InvalidSliceError(f"{where} must be an ISO-8601 UTC time, got {shown(value)}") from None
    if when.tzinfo is None:
        raise InvalidSliceError(f"{where} must carry a time zone (UTC), got {shown(value)}")
    return when
