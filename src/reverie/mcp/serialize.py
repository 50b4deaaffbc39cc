"""Turn ``Memory`` results into plain JSON, marking every piece of remembered text as data.

Remembered text is whatever someone once stored — possibly a prompt injection. It therefore
only ever travels inside data fields of a JSON object that carries ``"note": DATA_NOTE``
first, so a model reading the result meets the marker before the text.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from reverie import Edge, Item, WriteResult
from reverie.mcp.catalog import DATA_NOTE

_HIT_ITEM_FIELDS = (
    "id",
    "text",
    "kind",
    "source",
    "key",
    "value",
    "author",
    "tags",
    "tier",
    "version",
    "scores",
    "recorded_at",
    "valid_from",
    "valid_to",
    "provenance",
)


class HitLike(Protocol):
    """What the adapter reads from a recall hit (``Memory.recall`` returns these)."""

    @property
    def item(self) -> Item: ...
    @property
    def score(self) -> float: ...
    @property
    def why(self) -> dict[str, Any]: ...
    @property
    def contradicted_by(self) -> tuple[str, ...]: ...
    @property
    def asserted(self) -> bool: ...


def item_data(item: Item) -> dict[str, Any]:
    """The whole item (``Item.to_dict``), marked as data."""
    return {"note": DATA_NOTE, **item.to_dict()}


def written_data(result: WriteResult) -> dict[str, Any]:
    """A remember / revise result: the item, and the contradictions the write created (#16.3).

    Each names the other claim (``other_id``), the ``axis`` and the ``reason``, so the agent learns
    of the clash as it writes; the reason may quote stored text, so each is marked as data like an
    alert of ``contradictions``. ``conflicts_checked`` is false when detection did not run yet (the
    next dream pass runs it).
    """
    return {
        "item": item_data(result.item),
        "conflicts": [marked(c.to_dict()) for c in result.conflicts],
        "conflicts_checked": result.checked,
    }


def hit_data(hit: HitLike) -> dict[str, Any]:
    """One recall hit: the item's text with its provenance, score and why it ranked."""
    full = hit.item.to_dict()
    out: dict[str, Any] = {"note": DATA_NOTE}
    out.update({name: full[name] for name in _HIT_ITEM_FIELDS})
    out["score"] = jsonable(hit.score)
    out["asserted"] = hit.asserted
    out["contradicted_by"] = list(hit.contradicted_by)
    out["why"] = jsonable(hit.why)
    return out


def edge_data(edge: Edge) -> dict[str, Any]:
    """An edge; its ``meta`` is stored data too, so it carries the marker."""
    return {"note": DATA_NOTE, **edge.to_dict()}


def marked(value: object) -> dict[str, Any]:
    """Any other stored-data result (an alert, a dream report): JSON, marked as data."""
    data = jsonable(value)
    if isinstance(data, dict):
        return {"note": DATA_NOTE, **data}
    return {"note": DATA_NOTE, "result": data}


def jsonable(value: object) -> Any:
    """Best-effort plain JSON for results whose exact type the adapter does not pin down."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return jsonable(to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return jsonable(item())
    return str(value)
