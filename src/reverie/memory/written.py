"""What a write tells its caller beyond the stored item: the contradictions it created.

Why a result type of its own (``WriteResult``), returned by ``remember_checked`` /
``revise_checked``, instead of a field on ``Item`` or a ``last_conflicts`` attribute:
``Item`` is the stored row (frozen, persisted, compared for equality in the conformance
suite), so a non-persisted field on it would make two reads of one row differ; an attribute on
``Memory`` would be shared by every thread writing through it, and the answer for one call could
be read by another. A value returned by the call itself is both explicit and thread-safe, and
``remember`` / ``revise`` keep returning the ``Item`` they always did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reverie.model.item import Edge, Item


@dataclass(frozen=True)
class Contradiction:
    """One ``contradicts`` link a write created: the other claim, on which axis, and why."""

    edge_id: str
    other_id: str
    axis: str
    reason: str
    confidence: float

    @classmethod
    def from_edge(cls, edge: Edge, item_id: str) -> Contradiction:
        """The link as seen from ``item_id`` (the new claim): ``other_id`` is the far end."""
        meta = edge.meta or {}
        return cls(
            edge_id=edge.id,
            other_id=edge.dst if edge.src == item_id else edge.src,
            axis=str(meta.get("axis", "")),
            reason=str(meta.get("reason", "")),
            confidence=float(meta.get("confidence", edge.authority)),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "edge_id": self.edge_id,
            "other_id": self.other_id,
            "axis": self.axis,
            "reason": self.reason,
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class WriteResult:
    """The stored (or corroborated) item and the contradictions this write created, newest edge last.

    ``checked`` is False when write-time detection did not run for the new claim (the ``Memory``
    was opened with ``detect_conflicts=False``, or detection failed after the commit): the item is
    then flagged ``conflicts_unchecked`` and the next dream pass checks it, so an empty
    ``conflicts`` means "none found" only when ``checked`` is True.
    """

    item: Item
    conflicts: tuple[Contradiction, ...] = ()
    checked: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item.to_dict(),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "conflicts_checked": self.checked,
        }
