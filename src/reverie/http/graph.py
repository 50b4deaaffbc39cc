"""An item's neighbourhood drawn as an SVG graph, on the server (no script, no CDN).

A person sees at a glance what a claim came from, what was derived from it, what supports or
contradicts it and which version it replaced. The layout is deliberately simple and
deterministic: the item in the centre, its neighbours evenly spaced on an ellipse around it,
ordered by relation and then by text and id, so the same neighbourhood always draws the same
picture. Every label is escaped (item text is attacker-controlled) and truncated, with the
full text in the node's ``<title>`` (the browser's tooltip). Colours come from classes in
``review.css``; the CSP forbids inline styles, and presentation attributes are not styles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reverie.http import humane as h
from reverie.http import render as r
from reverie.model.item import Edge, Item

WIDTH, HEIGHT = 860, 470
#: The picture's height for one or two neighbours (placed beside the centre).
SMALL_HEIGHT = 130
NODE_W, NODE_H = 200, 60
#: Neighbours drawn; the rest are counted under the picture (the tables list them all).
MAX_NODES = 14
LABEL_CHARS = 27
#: Relation order around the ellipse (clockwise from the top) and its legend text.
RELATIONS = (
    ("derived-from", "derived from"),
    ("source-of", "source of"),
    ("supports", "supports"),
    ("supported-by", "supported by"),
    ("contradicts", "contradicts"),
    ("replaces", "replaces"),
    ("replaced-by", "replaced by"),
    ("alias", "same as"),
    ("about", "about"),
    ("subject-of", "subject of"),
)
_ORDER = {key: n for n, (key, _) in enumerate(RELATIONS)}
WORDS = dict(RELATIONS)
#: Edge type → (relation when the item is the edge's source, relation when it is the target).
EDGE_RELATIONS = {
    "supports": ("supports", "supported-by"),
    "contradicts": ("contradicts", "contradicts"),
    "supersedes": ("replaces", "replaced-by"),
    "alias": ("alias", "alias"),
    "derived_from": ("derived-from", "source-of"),
    "about": ("about", "subject-of"),
}


@dataclass(frozen=True)
class Neighbour:
    """One other item and every way it relates to the centre (keys of ``RELATIONS``, in order);
    ``closed`` when each of those links is closed."""

    relations: tuple[str, ...]
    item: Item
    closed: bool = False

    @property
    def relation(self) -> str:
        """The first relation: it places the node and colours it."""
        return self.relations[0]

    @property
    def words(self) -> str:
        return " · ".join(WORDS[x] for x in self.relations)


def neighbours(item: Item, edges: Iterable[Edge], others: dict[str, Item], derived: Iterable[Item]) -> list[Neighbour]:
    """The centre's neighbours from its parents, the items derived from it and its edges: one per
    other item (all its relations to the centre together), in drawing order. ``others`` maps ids
    to items (closed ones too)."""
    found: dict[str, dict[str, bool]] = {}  # other id → relation → is open

    def add(other: str, relation: str, open_: bool) -> None:
        rel = found.setdefault(other, {})
        rel[relation] = rel.get(relation, False) or open_

    for pid in item.parents:
        if pid in others:
            add(pid, "derived-from", True)
    by_id = {child.id: child for child in derived}
    for child in by_id.values():
        add(child.id, "source-of", True)
    for e in edges:
        out, back = EDGE_RELATIONS.get(e.type, (e.type, e.type))
        relation, other = (out, e.dst) if e.src == item.id else (back, e.src)
        if other != item.id and (other in others or other in by_id) and relation in _ORDER:
            add(other, relation, e.is_current)
    out_list = []
    for other, rels in found.items():
        ordered = tuple(sorted(rels, key=_ORDER.__getitem__))
        node = others.get(other) or by_id[other]
        out_list.append(Neighbour(ordered, node, closed=not any(rels.values())))
    return sorted(out_list, key=lambda n: (_ORDER[n.relation], n.item.text, n.item.id))


def svg(item: Item, around: Sequence[Neighbour], scope: str) -> r.Safe:
    """The picture, with a legend of the relations it shows and a note of any left out."""
    shown = list(around[:MAX_NODES])
    height = HEIGHT if len(shown) > 2 else SMALL_HEIGHT
    cx, cy = WIDTH / 2, height / 2
    places = _places(len(shown), cx, cy)
    links = r.join(_link(n, (cx, cy), p) for n, p in zip(shown, places, strict=True))
    nodes = r.join(_node(n.item, scope, p, f"rel-{n.relation}", n.closed) for n, p in zip(shown, places, strict=True))
    centre = _node(item, scope, (cx, cy), "centre", not item.is_current, link=False)
    empty = (
        r.fmt(
            '<text class="hint" x="{x}" y="{y}" text-anchor="middle">no links to other memories yet</text>',
            x=cx,
            y=cy + 52,
        )
        if not shown
        else r.EMPTY
    )
    picture = r.fmt(
        '<svg class="graph wide" viewBox="0 0 {w} {h}" role="img" aria-label="{title}" '
        'xmlns="http://www.w3.org/2000/svg">{links}{nodes}{centre}{empty}</svg>',
        w=WIDTH,
        h=height,
        title=f"Neighbourhood of: {item.text}",
        links=links,
        nodes=nodes,
        centre=centre,
        empty=empty,
    )
    more = len(around) - len(shown)
    note = r.fmt('<p class="hint">and {n} more (listed below)</p>', n=more) if more > 0 else r.EMPTY
    return r.fmt(
        '<figure class="graph">{svg}{tall}{legend}{note}</figure>',
        svg=picture,
        tall=_tall(item, shown, scope),
        legend=_legend(shown),
        note=note,
    )


#: The phone's picture: the item on top, its neighbours in a column under it, each branch
#: labelled. Text keeps a readable size at 390 px, where the wide picture would shrink to 40 %.
TALL_W, TALL_ROW, TALL_NODE_W = 360, 84, 300


def _tall(item: Item, shown: Sequence[Neighbour], scope: str) -> r.Safe:
    top = NODE_H / 2 + 4
    spine_x = 30
    height = round(top + NODE_H / 2 + 20 + TALL_ROW * len(shown), 1)
    centre = _node(item, scope, (TALL_W / 2, top), "centre", not item.is_current, link=False, width=TALL_NODE_W)
    branches = []
    for k, n in enumerate(shown):
        y = top + NODE_H / 2 + 16 + TALL_ROW * k + NODE_H / 2 + 16
        x = TALL_W - TALL_NODE_W / 2 - 4
        branches.append(
            r.fmt(
                '<g class="link rel-{rel}{closed}"><line x1="{sx}" y1="{y}" x2="{nx}" y2="{y}"/>'
                '<text class="branch" x="{tx}" y="{ly}">{label}</text></g>{node}',
                rel=r.Safe(n.relation),
                closed=r.Safe(" closed" if n.closed else ""),
                sx=spine_x,
                nx=round(x - TALL_NODE_W / 2, 1),
                y=round(y, 1),
                tx=round(x - TALL_NODE_W / 2, 1),
                ly=round(y - NODE_H / 2 - 4, 1),
                label=n.words,
                node=_node(n.item, scope, (x, y), f"rel-{n.relation}", n.closed, width=TALL_NODE_W),
            )
        )
    last = top + NODE_H / 2 + 16 + TALL_ROW * (len(shown) - 1) + NODE_H / 2 + 16 if shown else top
    spine = (
        r.fmt('<line class="spine" x1="{x}" y1="{y1}" x2="{x}" y2="{y2}"/>', x=spine_x, y1=top, y2=round(last, 1))
        if shown
        else r.EMPTY
    )
    return r.fmt(
        '<svg class="graph tall" viewBox="0 0 {w} {h}" role="img" aria-label="{title}" '
        'xmlns="http://www.w3.org/2000/svg">{spine}{branches}{centre}</svg>',
        w=TALL_W,
        h=height if shown else round(NODE_H + 8, 1),
        title=f"Neighbourhood of: {item.text}",
        spine=spine,
        branches=r.join(branches),
        centre=centre,
    )


def _places(n: int, cx: float, cy: float) -> list[tuple[float, float]]:
    """``n`` points evenly spaced on an ellipse around the centre, starting at the top; one or
    two neighbours sit beside the centre instead (a low picture, no empty space above and below)."""
    rx, ry = cx - NODE_W / 2 - 8, cy - NODE_H / 2 - 8
    if n <= 2:
        return [(round(cx + rx * side, 1), cy) for side in (1, -1)[:n]]
    return [
        (round(cx + rx * math.sin(2 * math.pi * k / n), 1), round(cy - ry * math.cos(2 * math.pi * k / n), 1))
        for k in range(n)
    ]


def _link(n: Neighbour, centre: tuple[float, float], at: tuple[float, float]) -> r.Safe:
    (x1, y1), (x2, y2) = centre, at
    return r.fmt(
        '<g class="link rel-{rel}{closed}"><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>'
        '<text x="{mx}" y="{my}" text-anchor="middle">{label}</text></g>',
        rel=r.Safe(n.relation),
        closed=r.Safe(" closed" if n.closed else ""),
        x1=x1,
        y1=y1,
        x2=x2,
        y2=y2,
        mx=round((x1 + x2) / 2, 1),
        my=round((y1 + y2) / 2 - 4, 1),
        label=n.words,
    )


def _node(
    item: Item, scope: str, at: tuple[float, float], cls: str, closed: bool, *, link: bool = True, width: float = NODE_W
) -> r.Safe:
    x, y = at
    status = "" if item.is_current else f" ({h.status(item)})"
    lines = two_lines(item.text, int(LABEL_CHARS * width / NODE_W))
    box = r.fmt(
        '<g class="node {cls}{closed}"><title>{full}</title>'
        '<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8"/>'
        '<text x="{tx}" y="{ty}" text-anchor="middle">{line1}</text>'
        '<text x="{tx}" y="{ty2}" text-anchor="middle">{line2}</text>'
        '<text class="sub" x="{tx}" y="{sy}" text-anchor="middle">{sub}</text></g>',
        cls=r.Safe(cls),
        closed=r.Safe(" closed" if closed else ""),
        full=item.text + status,
        x=round(x - width / 2, 1),
        y=round(y - NODE_H / 2, 1),
        w=width,
        h=NODE_H,
        tx=x,
        ty=round(y - 10 if lines[1] else y - 2, 1),
        ty2=round(y + 5, 1),
        sy=round(y + 20, 1),
        line1=lines[0],
        line2=lines[1],
        sub=f"{item.kind} · {h.status(item)}",
    )
    if not link:
        return box
    return r.fmt('<a href="{href}">{box}</a>', href=r.url(f"/items/{item.id}", scope=scope), box=box)


def two_lines(text: str, width: int) -> tuple[str, str]:
    """``text`` on at most two lines of about ``width`` characters, broken at a space where it
    can be, the second cut with an ellipsis (the full text is in the node's ``<title>``)."""
    if len(text) <= width:
        return text, ""
    cut = text.rfind(" ", 0, width + 1)
    cut = cut if cut > width // 2 else width
    return text[:cut].rstrip(), h.truncate(text[cut:].strip(), width)


def _legend(shown: Sequence[Neighbour]) -> r.Safe:
    present = sorted({x for n in shown for x in n.relations}, key=_ORDER.__getitem__)
    keys = r.join(
        r.fmt('<li><span class="key rel-{rel}"></span>{words}</li>', rel=r.Safe(rel), words=WORDS[rel])
        for rel in present
    )
    return r.fmt('<ul class="legend"><li><span class="key centre"></span>this memory</li>{keys}</ul>', keys=keys)
