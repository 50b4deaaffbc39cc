"""The import capability: claims replayed from a file or another store.

Why its own source: a file can say anything about who vouched for a claim, and a claim that
*says* it was ``manual`` must not become a person's word here (it would win every conflict and
never be forgotten). So whatever a file says, the claim is stored as ``imported``: the source it
had there is kept in ``provenance.source`` as a record, and its authority is capped at what an
import starts with (``DEFAULT_AUTHORITY["imported"]``). A person may ``promote`` it afterwards.
An export's conversations are replayed beside its claims (``conversation_replay``), entry by
entry, never mined again here: the claims their messages gave travel as the file's claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reverie.conversation.host import conversation_store
from reverie.errors import InvalidInputError
from reverie.memory.candidates import build_remember
from reverie.memory.core import Core
from reverie.memory.replay_conversations import ConversationReplay
from reverie.memory.writes import Writes
from reverie.model.item import DEFAULT_AUTHORITY, SOURCES, Item, Provenance
from reverie.model.validate import check_score

#: The most trust a claim read from a file may carry here.
IMPORTED_AUTHORITY = DEFAULT_AUTHORITY["imported"]


class Imports:
    """``remember_imported`` (through ``Writes``' checks and upkeep) and ``conversation_replay`` over one ``Core``."""

    def __init__(self, core: Core, writes: Writes) -> None:
        self._core = core
        self._writes = writes

    def remember_imported(
        self,
        /,
        text: str,
        *,
        scope: str,
        original_source: str,
        corroborate: bool = True,
        **fields: Any,
    ) -> Item:
        """Remember a claim replayed from an export or another store: source ``imported``.

        ``original_source`` (what the file says: ``manual``, ``observed``, …) is kept in
        ``provenance.source``; ``authority`` is capped at ``IMPORTED_AUTHORITY`` (0.5), so a file
        never forges a person's or the system's trust. ``corroborate=False`` stores a new item even
        when an equivalent current claim exists (a dream gist quotes its member verbatim).
        Everything else — pause, tombstones, corroboration, conflict detection — applies as for
        ``remember``.
        """
        if original_source not in SOURCES:
            raise InvalidInputError(f"original_source must be one of {', '.join(SOURCES)}, got {original_source!r}")
        if not isinstance(corroborate, bool):
            raise InvalidInputError("corroborate must be True or False")
        data = dict(fields)
        given = data.get("provenance")
        prov = given if isinstance(given, Provenance) else Provenance.from_dict(dict(given or {}))
        if isinstance(given, Mapping) and set(given) - {"origin", "ref", "locator"}:
            raise InvalidInputError("provenance takes origin, ref and locator")
        data["provenance"] = replace(prov, event_id=None, source=original_source)
        authority = data.get("authority")
        if authority is not None:
            authority = check_score("authority", authority)  # a bad value is refused before the cap reads it
        # The shortcut wins over ``scores={"authority": …}`` (candidates._scores), so the cap always holds.
        data["authority"] = IMPORTED_AUTHORITY if authority is None else min(authority, IMPORTED_AUTHORITY)
        core = self._core
        s = core.scope(scope)
        command = build_remember({**data, "text": text, "source": "imported"}, s, ("imported",), core.limits)
        return self._writes.store_remember(s, replace(command, corroborate=corroborate))

    def conversation_replay(self, *, scope: str) -> ConversationReplay:
        """A replay of an export's conversation events into ``scope`` (``reverie import``).

        Each event is replayed with ``replay(event)`` as the one command that wrote it (the
        file's memories and claims are replayed from their own events); ``names`` and ``entries``
        map the file's conversations and entry ids to this scope's, and ``item_refs`` rewrites a
        claim of the file to name them (``reverie.memory.replay_conversations``).
        """
        s = self._core.scope(scope)
        # A read first: a backend with no conversations refuses here, and a closed Memory raises
        # ``ClosedError`` as every method does (not at the first event).
        conversation_store(self._core).conversations(s)
        return ConversationReplay(self._core, s)
