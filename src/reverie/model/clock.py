"""Time, injected: nothing in reverie reads the wall clock except ``SystemClock``.

Every time-dependent behaviour (decay, validity, tiers, ids) takes its "now" from a ``Clock``
so tests and replays are deterministic.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Anything that tells the current UTC time."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock (UTC, aware)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to: for tests and simulations."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2025, 1, 1, tzinfo=UTC)
        if self._now.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start time")

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | None = None, **kwargs: float) -> datetime:
        """Move forward by ``delta`` (or ``timedelta(**kwargs)``) and return the new time."""
        self._now = self._now + (delta if delta is not None else timedelta(**kwargs))
        return self._now

    def set(self, when: datetime) -> None:
        if when.tzinfo is None:
            raise ValueError("ManualClock.set needs a timezone-aware time")
        self._now = when


def to_iso(when: datetime) -> str:
    """Canonical UTC text form, fixed width, so stored strings sort in time order.

    The year is padded by hand: glibc's ``%Y`` writes year 993 as "993", which is neither fixed
    width nor readable by ``from_iso`` (a caller's ``valid_from`` in year 993 crashed the write).
    """
    utc = when.astimezone(UTC)
    return f"{utc.year:04d}-" + utc.strftime("%m-%dT%H:%M:%S.%fZ")


def from_iso(text: str) -> datetime:
    """Inverse of ``to_iso``. ``fromisoformat`` is ~50x faster than ``strptime`` (bulk reads
    parse several times per row), and Python ≥ 3.11 reads the trailing ``Z`` as UTC."""
    return datetime.fromisoformat(text)


#: The times reverie accepts, once converted to UTC: all a UTC ``datetime`` can hold.
MIN_TIME = datetime.min.replace(tzinfo=UTC)
MAX_TIME = datetime.max.replace(tzinfo=UTC)


def ensure_aware(when: datetime, name: str = "time") -> datetime:
    """Refuse naive datetimes (a naive time silently shifts by the local offset) and times the UTC
    calendar cannot hold; return the time in UTC.

    Why the range check lives here: every time a caller gives (``as_of``, ``valid_from``,
    ``valid_to``, filter bounds, from every face) passes through this function, and
    ``0001-01-01T00:00:00+14:00`` is year 0 in UTC, so converting it raised ``OverflowError``
    wherever it went (issue #14). The accepted range is ``MIN_TIME`` .. ``MAX_TIME`` in UTC.
    """
    from reverie.errors import InvalidInputError

    if not isinstance(when, datetime):
        raise InvalidInputError(f"{name} must be a datetime, got {type(when).__name__}")
    if when.tzinfo is None or when.tzinfo.utcoffset(when) is None:
        raise InvalidInputError(f"{name} must be timezone-aware (e.g. datetime.now(UTC)); got a naive datetime")
    try:
        return when.astimezone(UTC)
    except OverflowError:
        raise InvalidInputError(
            f"{name} {when.isoformat()} is outside the times reverie can store once converted to UTC "
            f"({to_iso(MIN_TIME)} to {to_iso(MAX_TIME)}); give a time within that range"
        ) from None
