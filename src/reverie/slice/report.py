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
    #: Slice intent / task id -> the target's (created, or the record already here it matched).
    intents: dict[str, str] = field(default_factory=dict)
    tasks: dict[str, str] = field(default_factory=dict)
    #: Intents and tasks written new; records here moved on by the moves the slice had beyond
    #: theirs (``{"id", "target", "moves"}``); records left as they are (``{"id", "target", "reason"}``).
    records_created: list[str] = field(default_factory=list)
    records_advanced: list[dict[str, Any]] = field(default_factory=list)
    records_skipped: list[dict[str, str]] = field(default_factory=list)
    #: Memory ids an intent or task named that are neither in the slice nor in this scope.
    dropped_refs: list[dict[str, str]] = field(default_factory=list)
    #: Slice conversation -> the conversation here (its own name, or ``<name>~N`` under ``reid``);
    #: slice entry id -> the entry here (appended, or the one already here it matched); the
    #: conversations not written to (``{"id", "target", "reason"}``: already here, or a conflict kept ours).
    conversations: dict[str, str] = field(default_factory=dict)
    entries: dict[str, str] = field(default_factory=dict)
    conversations_skipped: list[dict[str, str]] = field(default_factory=list)

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
            "intents": dict(self.intents),
            "tasks": dict(self.tasks),
            "records_created": list(self.records_created),
            "records_advanced": list(self.records_advanced),
            "records_skipped": list(self.records_skipped),
            "dropped_refs": list(self.dropped_refs),
            "conversations": dict(self.conversations),
            "entries": dict(self.entries),
            "conversations_skipped": list(self.conversations_skipped),
            "counts": {
                "created": len(self.created),
                "corroborated": len(self.corroborated),
                "skipped": len(self.skipped),
                "conflicts": len(self.conflicts),
                "edges": len(self.edges),
            },
        }
