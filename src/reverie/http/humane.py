"""Values as a person reads them: "3 days ago", "true since 3 May 2024", a labelled score bar.

The review page is for people who are not developers, so nothing here shows an ISO string with
microseconds, a Python repr or ``— → —``. Relative times are computed against ``now`` passed
in by the caller (the ``Memory``'s injectable clock, never the wall clock), so a page rendered
under a ``ManualClock`` is deterministic; the exact UTC time stays one hover away (``title``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from reverie.http import render as r
from reverie.model.item import Item

#: The five grades, with the words a person would use for each.
SCORE_LABELS = (
    ("authority", "trust"),
    ("confidence", "confidence"),
    ("importance", "importance"),
    ("durability", "durability"),
    ("value", "usefulness"),
)
_UNITS = ((365 * 86400, "year"), (30 * 86400, "month"), (7 * 86400, "week"), (86400, "day"), (3600, "hour"))


def day(when: datetime) -> str:
    """``3 May 2024`` (no leading zero, English month: the page is English)."""
    return f"{when.day} {when:%b %Y}"


def exact(when: datetime) -> str:
    """``3 May 2024, 14:05 UTC``: what the hover shows."""
    return f"{day(when)}, {when:%H:%M} UTC"


def ago(when: datetime, now: datetime) -> str:
    """``just now``, ``5 minutes ago``, ``3 days ago``, ``in 2 weeks`` (the largest whole unit)."""
    seconds = (now - when).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 60:
        return "just now"
    amount, unit = int(seconds // 60), "minute"
    for size, name in _UNITS:
        if seconds >= size:
            amount, unit = int(seconds // size), name
            break
    words = f"{amount} {unit}{'' if amount == 1 else 's'}"
    return f"in {words}" if future else f"{words} ago"


def time(when: datetime | None, now: datetime, never: str = "never") -> r.Safe:
    """A ``<time>`` element: relative text, the exact time on hover, machine-readable ISO."""
    if when is None:
        return r.fmt('<span class="never">{t}</span>', t=never)
    return r.fmt(
        '<time datetime="{iso}" title="{exact}">{rel}</time>',
        iso=when.isoformat(timespec="seconds"),
        exact=exact(when),
        rel=ago(when, now),
    )


def validity(item: Item, now: datetime) -> str:
    """Valid time in words: ``always``, ``true since 3 May 2024``, ``true until 1 Mar 2026 (ended)``."""
    start, end = item.valid_from, item.valid_to
    if start is None and end is None:
        return "always"
    if end is None:
        assert start is not None
        return f"true since {day(start)}" if start <= now else f"true from {day(start)} (not yet)"
    ended = " (ended)" if end <= now else ""
    if start is None:
        return f"true until {day(end)}{ended}"
    return f"true {day(start)} – {day(end)}{ended}"


def status(item: Item) -> str:
    """``current`` or what closed it, in words."""
    return {"live": "current", "superseded": "replaced", "forgotten": "forgotten", "dismissed": "dismissed"}.get(
        item.status, item.status
    )


def bar(label: str, value: float, *, labelled: bool = True) -> r.Safe:
    """A labelled score: a native ``<meter>`` (no inline style, which the CSP forbids) and its
    number; ``labelled=False`` under a column that already names it."""
    return r.fmt(
        '<span class="score">{shown}<meter min="0" max="1" value="{v}" title="{label} {n}">{n}</meter>'
        '<span class="score-n">{n}</span></span>',
        shown=r.fmt('<span class="score-label">{label}</span>', label=label) if labelled else r.EMPTY,
        label=label,
        v=f"{value:.3f}",
        n=f"{value:.2f}",
    )


def score_bars(item: Item, names: Iterable[str] | None = None) -> r.Safe:
    """The item's grades as labelled bars (all five, or those named)."""
    wanted = set(names) if names is not None else None
    return r.fmt(
        '<span class="scores">{bars}</span>',
        bars=r.join(
            bar(label, getattr(item.scores, name)) for name, label in SCORE_LABELS if wanted is None or name in wanted
        ),
    )


def words(values: Iterable[str], empty: str = "none") -> str:
    """``a, b, c`` or ``none``: never ``[]``."""
    out = ", ".join(values)
    return out or empty


def truncate(text: str, size: int) -> str:
    """``text`` cut to ``size`` characters with an ellipsis (the full text goes in a tooltip)."""
    return text if len(text) <= size else text[: max(1, size - 1)].rstrip() + "…"
