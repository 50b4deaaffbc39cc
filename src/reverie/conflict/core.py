"""The values the detector takes and returns: claims in, conflicts out.

Kept in their own module so every rule module can build spans and conflicts without importing
the orchestration in ``detect``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

Axis = Literal["polarity", "numeric", "entity", "temporal"]
AXES: tuple[Axis, ...] = ("polarity", "numeric", "entity", "temporal")


@dataclass(frozen=True)
class Claim:
    """What the detector sees of an item: its text and, when known, a structured slot.

    ``key`` names the slot ("alice.city"): two claims with the same key talk about the same
    thing, so differing ``value``s disagree without any parsing of the text. Validity bounds
    say when the claim holds; claims valid at different times never conflict.
    """

    text: str
    key: str | None = None
    value: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True)
class Span:
    """Character offsets into a claim's text, with the text they cover."""

    start: int
    end: int
    text: str

    def to_dict(self) -> dict[str, object]:
        return {"start": self.start, "end": self.end, "text": self.text}


@dataclass(frozen=True)
class Conflict:
    """Why two claims cannot both hold, with the words that show it.

    ``mutable`` says the slot is one that changes over time (where someone lives, who is
    on call, a setting): the caller may read the newer claim as superseding the older one
    rather than as an error.
    """

    axis: Axis
    confidence: float
    reason: str
    spans_a: tuple[Span, ...]
    spans_b: tuple[Span, ...]
    mutable: bool

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready shape for edges, CLI output and HTTP responses."""
        return {
            "axis": self.axis,
            "confidence": self.confidence,
            "reason": self.reason,
            "spans_a": [s.to_dict() for s in self.spans_a],
            "spans_b": [s.to_dict() for s in self.spans_b],
            "mutable": self.mutable,
        }

    def swapped(self) -> Conflict:
        """The same conflict seen from the other claim (a and b exchanged)."""
        return Conflict(self.axis, self.confidence, self.reason, self.spans_b, self.spans_a, self.mutable)
