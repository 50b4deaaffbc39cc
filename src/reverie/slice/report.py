"""What ``import_slice`` did, item by item: the one answer every face returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: How an import treats a claim this scope already holds *in another form* (same origin, other
#: words): ``report`` refuses the whole import and names them (nothing written), ``skip`` leaves
#: the scope's version and imports the rest, ``reid`` imports the slice's version as a new claim.
#: A claim already here in the same form is never a conflict: it is skipped (importing twice is
#: a no-op, and the sandbox pattern brings copies home without duplicating them).
ON_CONFLICT = ("report", "skip", "reid")


@dataclass
class SliceReport:
    """The outcome of one ``import_slice``; ``ids`` maps each slice item id to the target's id."""

    scope: str
    created: list[str] = field(default_factory=list)
    corroborated: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    conflicts: list[dict[str, str]] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)
    edges: dict[str, str] = field(default_factory=dict)
    edges_skipped: list[dict[str, str]] = field(default_factory=list)
    #: Parents of an item that are neither in the slice nor in this scope: left off the new item.
    dropped_parents: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "created": list(self.created),
            "corroborated": list(self.corroborated),
            "skipped": list(self.skipped),
            "conflicts": list(self.conflicts),
            "ids": dict(self.ids),
            "edges": dict(self.edges),
            "edges_skipped": list(self.edges_skipped),
            "dropped_parents": list(self.dropped_parents),
            "counts": {
                "created": len(self.created),
                "corroborated": len(self.corroborated),
                "skipped": len(self.skipped),
                "conflicts": len(self.conflicts),
                "edges": len(self.edges),
            },
        }
