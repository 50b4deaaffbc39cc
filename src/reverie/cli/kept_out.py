"""What a replayed export must not bring back into the scope: claims it forgot, purged or dismissed.

Why its own module: an export is a snapshot, and an older one still holds what this scope has
since forgotten, purged or dismissed. Replaying it must not undo those decisions (a purge
promises the words are gone; a dismissal that the value is refused when learned again), and it
must say what it left out rather than fail on it. ``reverie import`` asks ``KeptOut.why`` before
it remembers a claim of the file:

- **forgotten**: an equivalent claim (same fingerprints: the comparison form of ``validate``)
  is forgotten here;
- **purged**: the file names, as the claim's id (an export of this store) or as its slice origin
  (``meta.slice_origin``: a copy of this store's claim), an item this scope purged. A purge keeps
  nothing of the words, so a copy under another id (another store's export of an import of it)
  cannot be recognised: dismiss a value before purging it when it must never come back, since
  the sealed tombstone refuses it whatever the file (``dismissed``, below). ``restore_purged``
  turns this check off: the file is the backup the person wants restored. A conversation
  message's memory is let in: the message's copy is purged again after the replay
  (``ConversationReplay.purged_again``), which erases its memory and re-writes the later turns'
  memories whose context quoted it, as a purge here did;
- **dismissed** is the reducer's own check (a tombstone, sealed or not, matched on the
  comparison form, so an invisible-character variant is refused too): the replay catches its
  ``DismissedValueError`` and counts it here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from reverie import Memory, Q
from reverie.model.redact import PURGED_FLAG
from reverie.model.validate import fingerprints

Why = Literal["forgotten", "purged", "dismissed"]
#: The reasons, in the order the report lists them.
REASONS: tuple[Why, ...] = ("forgotten", "purged", "dismissed")
#: What the report says of each (the ``skipped`` row of a claim left out).
SAYS: dict[Why, str] = {
    "forgotten": "forgotten in this scope: it stays forgotten",
    "purged": "purged in this scope: it stays purged (--restore-purged brings it back)",
    "dismissed": "its value is dismissed in this scope: undismiss it first to import it",
}
_ORIGIN_META = "slice_origin"


class KeptOut:
    """Answers, for each claim of the file, whether this scope keeps it out and why (read lazily, once)."""

    def __init__(self, mem: Memory, scope: str, *, restore_purged: bool = False) -> None:
        self._mem = mem
        self._scope = scope
        self.restore_purged = restore_purged
        self._forgotten: set[str] | None = None
        self._purged: set[str] | None = None
        #: Claims left out, by why.
        self.counts: Counter[Why] = Counter()

    def why(self, item: dict[str, Any]) -> Why | None:
        """Why the file's ``item`` (an exported item dict) stays out of this scope, or None."""
        if not self.restore_purged and not _message_memory(item) and self._names_purged(item):
            return "purged"
        if self._forgotten_prints() & set(fingerprints(item["text"], item.get("key"), item.get("value"))):
            return "forgotten"
        return None

    def _names_purged(self, item: dict[str, Any]) -> bool:
        if self._purged is None:
            self._purged = {it.id for it in self._all(Q.flag(PURGED_FLAG))}
        meta = item.get("meta")
        origin = meta.get(_ORIGIN_META) if isinstance(meta, dict) else None
        return item.get("id") in self._purged or (isinstance(origin, str) and origin in self._purged)

    def _forgotten_prints(self) -> set[str]:
        if self._forgotten is None:
            self._forgotten = set()
            for it in self._all(Q.status("forgotten") & ~Q.flag(PURGED_FLAG)):  # a purged text is the marker
                self._forgotten.update(fingerprints(it.text, it.key, it.value))
        return self._forgotten

    def _all(self, where: Any) -> list[Any]:
        out, cursor = [], None
        while True:
            page = self._mem.list(scope=self._scope, where=where, include_closed=True, cursor=cursor)
            out.extend(page.items)
            cursor = page.next_cursor
            if cursor is None:
                return out


def _message_memory(item: dict[str, Any]) -> bool:
    """Is the file's ``item`` a conversation message's memory (its ``meta`` names the message)?"""
    meta = item.get("meta")
    return isinstance(meta, dict) and "message" in meta
