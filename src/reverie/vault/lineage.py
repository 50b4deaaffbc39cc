"""What the vault itself last wrote for a note, read from the item's lineage in the event log.

Why: the file is the note's source, but a note's item may also change without the file — a person
corrects it (``revise``, the review page's "Correct it"), forgets or dismisses it, or a dream pass
forgets it under a keep budget. Comparing the file with the item alone cannot tell "the file was
edited" from "the item was corrected", and an index that took every difference for an edit undid
every correction (outside probe 7, finding 1). The vault's own writes are recognisable: the first
version of a note's item is the vault's ``remember`` (or a replay of it), and the vault revises and
forgets with the fixed reasons below. The newest version the vault wrote is the *baseline*: the
file is unchanged since the last index exactly when it still renders to the baseline's text.

Reads only the store (one short event read per version walked), and only for notes whose item
differs from the file or whose item is closed: an index of unchanged notes reads nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.model.events import Event
from reverie.model.item import Item

if TYPE_CHECKING:
    from reverie.memory import Memory

#: The reasons the vault writes with (kept word for word: stores written earlier hold them too).
EDITED = "note {} edited in the vault"
REMOVED = "note {} is no longer in the vault"
NOW_DISMISSED = "note {} now reads as a dismissed value"
_OWN_FORGETS = (REMOVED, NOW_DISMISSED)
_MAX_WALK = 1000  # versions walked back at most (a note revised more often than that is taken as the vault's)


@dataclass(frozen=True, slots=True)
class Baseline:
    """The text the vault last wrote in an item's lineage, and the newest change not its own."""

    text: str
    correction: Item | None  # the newest version a revise by someone else made (None: the vault's own)
    reason: str  # that revise's reason ("" without one)


def baseline(mem: Memory, scope: str, item: Item, path: str) -> Baseline:
    """Walk ``item``'s lineage back to the newest version the vault wrote (see the module docstring)."""
    correction: Item | None = None
    reason = ""
    here: Item | None = item
    for _ in range(_MAX_WALK):
        if here is None:
            break
        made = _made(mem, scope, here.id)
        if made is None or made.type != "memory.revised" or made.payload.get("reason") == EDITED.format(path):
            return Baseline(here.text, correction, reason)
        if correction is None:
            correction, reason = here, str(made.payload.get("reason") or "")
        here = mem.store.get(scope, str(made.payload.get("old_id")))
    return Baseline(item.text, None, "")  # lineage unreadable: the item is taken as the vault's, as before


def forgotten_by(mem: Memory, scope: str, item: Item, path: str) -> str | None:
    """Why ``item`` was forgotten, or None when the vault forgot it itself (its file was removed,
    or it came to read as a dismissed value): a note the vault forgot comes back with its file."""
    for e in mem.store.events(scope, item_id=item.id, limit=1_000_000):
        if e.type == "memory.forgotten" and e.payload.get("id") == item.id:
            why = str(e.payload.get("reason") or "")
            return None if any(why == own.format(path) for own in _OWN_FORGETS) else why or "no reason given"
    return None


def _made(mem: Memory, scope: str, item_id: str) -> Event | None:
    """The event that created version ``item_id`` (the first event about it)."""
    for e in mem.store.events(scope, item_id=item_id, limit=8):
        made = e.payload.get("item")
        if isinstance(made, dict) and made.get("id") == item_id:
            return e
    return None
