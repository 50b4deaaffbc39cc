"""Plain-text rendering: aligned columns, one line per cell, no dependency beyond click.

Stored text is data, not terminal commands: every cell goes through ``clean`` so an item whose
text holds ANSI escapes or newlines cannot repaint the operator's terminal or break a column.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from reverie import Edge, Item

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MIN_LAST = 20


def clean(value: object) -> str:
    """One printable line: control characters (ESC, CR, LF, TAB, C1) become spaces."""
    if value is None:
        return "-"
    return _CONTROL.sub(" ", str(value))


def when(value: datetime | None) -> str:
    """A UTC time to the second, the precision a person reads (``--json`` keeps microseconds)."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ") if value is not None else "-"


def score(value: float) -> str:
    return f"{value:.2f}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 version``, ``2 versions`` (``many`` for irregular plurals)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def snippet(text: str, width: int = 28) -> str:
    """The start of an item's text on one line, as a label a person recognises.

    Why not the id: uuid7 ids made close together share their first characters (the time), so a
    short id prefix names every item of one session alike.
    """
    one = " ".join(clean(text).split())
    return one if len(one) <= width else one[: width - 1].rstrip() + "…"


def _last_column_width(widths: Sequence[int]) -> int | None:
    """Room left for the last column on a terminal; None (never truncate) when piped."""
    if not sys.stdout.isatty():
        return None
    columns = shutil.get_terminal_size((120, 24)).columns
    return max(_MIN_LAST, columns - sum(w + 2 for w in widths[:-1]))


def _fit(text: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    return text[: width - 1] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces; the last (usually the text) is trimmed to the terminal."""
    cells = [[clean(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(c))
    last = _last_column_width(widths)
    lines = []
    for row in [list(headers), *cells]:
        head = "  ".join(c.ljust(widths[i]) for i, c in enumerate(row[:-1]))
        lines.append((head + "  " if head else "") + _fit(row[-1], last))
    return "\n".join(line.rstrip() for line in lines)


def fields(pairs: Sequence[tuple[str, object]]) -> str:
    """``name  value`` lines with the names aligned (for one record)."""
    width = max((len(k) for k, _ in pairs), default=0)
    return "\n".join(f"{k.ljust(width)}  {clean(v)}" for k, v in pairs)


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def item_rows(items: Sequence[Item], with_status: bool) -> tuple[list[str], list[list[object]]]:
    """The ``list`` table: what a person scans for (kind, trust, salience) then the text."""
    headers = ["ID", "KIND", "SOURCE", "TIER"] + (["STATUS"] if with_status else []) + ["IMP", "AUTH", "TEXT"]
    rows: list[list[object]] = []
    for it in items:
        status = [it.status] if with_status else []
        sc = it.scores
        rows.append([it.id, it.kind, it.source, it.tier, *status, score(sc.importance), score(sc.authority), it.text])
    return headers, rows


def item_fields(it: Item) -> str:
    """Every field of one item, for ``show``."""
    sc = it.scores
    prov = it.provenance
    pairs: list[tuple[str, object]] = [
        ("id", it.id),
        ("scope", it.scope),
        ("text", it.text),
        ("kind", it.kind),
        ("source", it.source),
        ("author", it.author),
        ("status", f"{it.status} (tier {it.tier})"),
        ("revision", f"{it.version} (goes up with every change to this item; what --expected-version checks)"),
        ("key / value", f"{it.key} = {it.value}" if it.key is not None else "-"),
        (
            "scores",
            f"authority {score(sc.authority)}  confidence {score(sc.confidence)}  "
            f"importance {score(sc.importance)}  durability {score(sc.durability)}  value {score(sc.value)}",
        ),
        ("evidence", it.evidence_count),
        ("tags", ", ".join(it.tags) or "-"),
        ("flags", ", ".join(it.flags) or "-"),
        ("meta", compact_json(it.meta) if it.meta else "-"),
        ("provenance", f"origin {prov.origin}  ref {clean(prov.ref)}  locator {clean(prov.locator)}"),
        ("recorded", when(it.recorded_at)),
        ("valid", f"{when(it.valid_from)} .. {when(it.valid_to)}"),
        ("closed", when(it.closed_at)),
        ("used", f"{it.use_count}x, last {when(it.last_used_at)} {clean(it.last_used_query or '')}".rstrip()),
    ]
    return fields(pairs)


def edge_rows(edges: Sequence[Edge], focus: str, texts: Mapping[str, str]) -> tuple[list[str], list[list[object]]]:
    """Edges of item ``focus``, each with the text of its *other* end (the one the reader does not see)."""
    rows: list[list[object]] = []
    for e in edges:
        state = "open" if e.is_current else f"closed {when(e.closed_at)}"
        other = e.dst if e.src == focus else e.src
        rows.append([e.id, e.type, e.src, e.dst, score(e.authority), state, texts.get(other, "")])
    return ["EDGE", "TYPE", "SRC", "DST", "AUTH", "STATE", "OTHER END"], rows


def tree(nodes: Sequence[Mapping[str, Any]], child_key: str, indent: str = "  ") -> list[str]:
    """An indented provenance tree from nested ``{"id", "kind", "text", child_key: [...]}`` nodes."""
    lines: list[str] = []
    for node in nodes:
        mark = "" if node.get("status", "live") == "live" else f" ({node['status']})"
        lines.append(f"{indent}└ {node['id']}  [{clean(node['kind'])}]{mark} {clean(node['text'])}")
        lines += tree(node.get(child_key, []), child_key, indent + "   ")
    return lines


def why_lines(why: Mapping[str, Any], indent: str = "     ") -> list[str]:
    """A hit's ``why`` dict, one ``name: value`` per line (lists joined), in the engine's order."""
    out = []
    for k, v in why.items():
        shown = ", ".join(map(str, v)) if isinstance(v, list | tuple) else v
        out.append(f"{indent}{k}: {clean(shown)}")
    return out
