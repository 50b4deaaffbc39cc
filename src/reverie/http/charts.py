"""Two small charts for the scope page, drawn on the server as SVG: how many memories were
believed over time (by tier), and what the last dream passes did.

Why server-side SVG: the page has one small script and a strict CSP (no CDN, no inline code or
style), and a picture that is plain markup works with JavaScript off and prints. Both charts
are deterministic functions of what they read — the same store draws the same bytes — and read
a bounded amount: at most ``TIMELINE_ITEMS`` of the newest items, the last ``RUNS_SHOWN`` passes.

Over time, each memory counts from when it was recorded until it was closed (forgotten,
replaced, dismissed), in the tier it has *today*: tier moves are not replayed from the log,
which keeps the read to one bounded list. The chart's caption says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reverie.http import humane as h
from reverie.http import render as r
from reverie.model.clock import from_iso
from reverie.model.item import Item

#: Newest items the timeline reads (pages of ``Limits.max_k``). Measured on a 10k-item scope
#: (hash embedder, 2 shared cores): 5,000 made the scope page take 0.25 s instead of 0.04 s;
#: 1,000 costs 0.03 s, and the caption says when the chart shows only the newest.
TIMELINE_ITEMS = 1_000
BUCKETS = 12
RUNS_SHOWN = 8
TIERS = ("active", "durable", "subconscious")
W, H, PAD_L, PAD_B, PAD_T = 420, 170, 34, 26, 10


@dataclass(frozen=True)
class Bucket:
    """The counts at the end of one slice of time."""

    at: datetime
    counts: dict[str, int]


def timeline(items: Sequence[Item], now: datetime, buckets: int = BUCKETS) -> list[Bucket]:
    """Memories believed at ``buckets`` evenly spaced moments from the first record to ``now``."""
    if not items:
        return []
    start = min(i.recorded_at for i in items)
    span = max((now - start).total_seconds(), 1.0)
    out = []
    for k in range(1, buckets + 1):
        at = start + (now - start) * (k / buckets) if span > 1 else now
        counts = dict.fromkeys(TIERS, 0)
        for it in items:
            if it.recorded_at <= at and (it.closed_at is None or it.closed_at > at):
                counts[it.tier] = counts.get(it.tier, 0) + 1
        out.append(Bucket(at, counts))
    return out


def tiers_chart(points: Sequence[Bucket], *, partial: bool) -> r.Safe:
    """Stacked bars: memories believed at each moment, by tier (today's tier)."""
    if not points:
        return r.EMPTY
    top = max(1, max(sum(b.counts.values()) for b in points))
    slot = (W - PAD_L - 4) / len(points)
    bars = []
    for n, b in enumerate(points):
        y = float(H - PAD_B)
        x = round(PAD_L + n * slot + slot * 0.15, 1)
        for tier in TIERS:
            value = b.counts.get(tier, 0)
            if not value:
                continue
            height = (H - PAD_B - PAD_T) * value / top
            y -= height
            bars.append(
                r.fmt(
                    '<rect class="tier-{t}" x="{x}" y="{y}" width="{w}" height="{hh}"><title>{tip}</title></rect>',
                    t=r.Safe(tier),
                    x=x,
                    y=round(y, 1),
                    w=round(slot * 0.7, 1),
                    hh=round(height, 1),
                    tip=f"{h.day(b.at)}: {value} {tier}",
                )
            )
    axis = _axis(top, f"{h.day(points[0].at)}", f"{h.day(points[-1].at)}")
    caption = "Memories believed over time, by tier (each in its tier today)"
    if partial:
        caption += f"; the newest {TIMELINE_ITEMS} only"
    return _figure("chart-tiers", caption, r.join([axis, *bars]), _keys(TIERS, "tier"))


#: What the runs chart shows per pass: (stat in the summary, label).
RUN_SERIES = (
    ("demoted", "demoted"),
    ("clusters_consolidated", "consolidated"),
    ("contradiction_pairs", "contradictions found"),
)


def runs_chart(runs: Sequence[dict[str, Any]]) -> r.Safe:
    """Grouped bars, oldest pass on the left: what each of the last passes did."""
    shown = list(reversed(runs[:RUNS_SHOWN]))
    if not shown:
        return r.EMPTY
    values = [[int((run.get("stats") or {}).get(key, 0) or 0) for key, _ in RUN_SERIES] for run in shown]
    top = max(1, max(max(v) for v in values))
    slot = (W - PAD_L - 4) / len(shown)
    bar_w = slot * 0.8 / len(RUN_SERIES)
    bars = []
    for n, (run, vals) in enumerate(zip(shown, values, strict=True)):
        when = _at(run)
        for k, ((key, label), value) in enumerate(zip(RUN_SERIES, vals, strict=True)):
            height = (H - PAD_B - PAD_T) * value / top
            bars.append(
                r.fmt(
                    '<rect class="run-{key}" x="{x}" y="{y}" width="{w}" height="{hh}"><title>{tip}</title></rect>',
                    key=r.Safe(key),
                    x=round(PAD_L + n * slot + slot * 0.1 + k * bar_w, 1),
                    y=round(H - PAD_B - height, 1),
                    w=round(bar_w, 1),
                    hh=round(max(height, 0.0), 1),
                    tip=f"{h.exact(when) if when else 'a pass'}: {value} {label}",
                )
            )
    first, last = _at(shown[0]), _at(shown[-1])
    axis = _axis(top, h.day(first) if first else "", h.day(last) if last else "")
    caption = f"The last {len(shown)} dream pass{'es' if len(shown) != 1 else ''}"
    return _figure("chart-runs", caption, r.join([axis, *bars]), _keys([k for k, _ in RUN_SERIES], "run", RUN_SERIES))


def _at(run: dict[str, Any]) -> datetime | None:
    try:
        return from_iso(str(run["at"]))
    except (KeyError, ValueError, TypeError):
        return None


def _axis(top: int, left: str, right: str) -> r.Safe:
    base = H - PAD_B
    return r.fmt(
        '<g class="axis"><line x1="{l}" y1="{b}" x2="{r}" y2="{b}"/><line x1="{l}" y1="{t}" x2="{l}" y2="{b}"/>'
        '<text x="{lx}" y="{ty}" text-anchor="end">{top}</text><text x="{lx}" y="{b}" text-anchor="end">0</text>'
        '<text x="{l}" y="{dy}">{left}</text><text x="{r}" y="{dy}" text-anchor="end">{right}</text></g>',
        l=PAD_L,
        r=W - 4,
        b=base,
        t=PAD_T,
        lx=PAD_L - 4,
        ty=PAD_T + 8,
        dy=H - 8,
        top=top,
        left=left,
        right=right,
    )


def _keys(names: Sequence[str], prefix: str, labels: Sequence[tuple[str, str]] = ()) -> r.Safe:
    words = dict(labels)
    return r.fmt(
        '<ul class="legend">{items}</ul>',
        items=r.join(
            r.fmt('<li><span class="key {p}-{n}"></span>{w}</li>', p=r.Safe(prefix), n=r.Safe(n), w=words.get(n, n))
            for n in names
        ),
    )


def _figure(cls: str, caption: str, body: r.Safe, legend: r.Safe) -> r.Safe:
    return r.fmt(
        '<figure class="chart {cls}"><figcaption>{caption}</figcaption>'
        '<svg viewBox="0 0 {w} {h}" role="img" aria-label="{caption}" xmlns="http://www.w3.org/2000/svg">{body}</svg>'
        "{legend}</figure>",
        cls=r.Safe(cls),
        caption=caption,
        w=W,
        h=H,
        body=body,
        legend=legend,
    )
