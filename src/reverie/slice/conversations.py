"""The ``conversations`` section of a slice (format version 2; 4 with audiences): conversations as they were recorded.

Before it, a slice carried a scope's conversations only as their messages' memories (items of
kind ``observation`` with ``meta.conversation`` / ``meta.message``): the archive, the tool-call
records, the summaries and recaps stayed behind, and a message's memory arrived pointing at a
message id of another store. Shape::

    conversations: {"id": "<the conversation's name>",
                    "entries": [{"id", "origin_id", "kind", "text", "at", "position", "speaker",
                                 "role", "meta", "memory"}]}

- ``entries`` are in position order (strictly increasing ``position``, as exported); ``kind`` is
  ``message``, ``tool_call``, ``summary`` or ``recap``; a message has a ``role`` and its times
  never go back (the reducer refuses a message before the previous one). Purged entries are left
  out: nothing of them travels.
- ``origin_id``: the id the entry had where it was first recorded, as for items; an import
  recognises an entry it already holds by it (the sandbox pattern).
- ``memory``: the slice id of the message's memory (an item of the slice), or null. Each item is
  the memory of at most one message.
- ``meta`` of a summary or recap says which positions it covers (``from`` / ``upto``), in the
  exporting store's positions; the import renumbers them.

Why a new version for it (the ``intents`` / ``tasks`` sections were added to version 1): with a
``conversations`` section, ids inside the items change meaning — a message memory's
``meta.message``, a mined claim's ``meta.message_id`` and ``provenance.locator`` now name
entries of the section, which the import renumbers. A slice is written in the lowest version that
holds it (1 without this section), so a build that reads only version 1 still reads every slice
it could; this build reads both, and refuses this section in a version-1 slice.

Version 4 adds audiences (``reverie.conversation.audience``): a conversation's ``visibility`` (null:
everyone in the scope) and each entry's (null: its conversation's), so a restricted message, and
the recaps and summaries made for a narrower audience, stay restricted where the slice lands. Why a
new version: an older reader would drop the fields and show those entries to every principal, so it
must refuse the slice (it does: "newer than this reverie reads"). A slice whose conversations are all
open to everyone is still written as version 2 or 3, without them; an older slice that carries them
is refused (its version is wrong).

Pure, like ``format``: ``check_conversations`` is the one place this section from outside is checked.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reverie.errors import InvalidInputError, InvalidSliceError
from reverie.model.clock import to_iso
from reverie.model.conversation import ENTRY_KINDS, OWNER_ONLY, ROLES
from reverie.model.ids import is_id
from reverie.model.visibility import check_visibility
from reverie.slice.fields import as_object, record, reverie_id, shown, utc_time

CONVERSATIONS = "conversations"
#: The format version that introduced the ``conversations`` section.
CONVERSATIONS_VERSION = 2
#: The format version that introduced a conversation's and an entry's ``visibility``.
MESSAGE_VISIBILITY_VERSION = 4
#: Longest conversation id and speaker (``conversation.checks.MAX_NAME_CHARS``).
MAX_NAME_CHARS = 200
_CONVERSATION_KEYS = frozenset({"id", "entries", "visibility"})
_ENTRY_KEYS = frozenset(
    {"id", "origin_id", "kind", "text", "at", "position", "speaker", "role", "meta", "memory", "visibility"}
)


@dataclass(frozen=True, slots=True)
class SliceEntry:
    """One entry of a conversation as it was recorded (see the module docstring)."""

    id: str
    origin_id: str
    kind: str
    text: str
    at: datetime
    position: int
    speaker: str | None = None
    role: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    memory: str | None = None
    #: Who may see it (None: its conversation's audience); version 4.
    visibility: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "origin_id": self.origin_id,
            "kind": self.kind,
            "text": self.text,
            "at": to_iso(self.at),
            "position": self.position,
            "speaker": self.speaker,
            "role": self.role,
            "meta": self.meta,
            "memory": self.memory,
        }
        return out | ({"visibility": list(self.visibility)} if self.visibility is not None else {})


@dataclass(frozen=True, slots=True)
class SliceConversation:
    """A conversation (its name) and its entries in order."""

    id: str
    entries: tuple[SliceEntry, ...] = ()
    #: Who may see the conversation (None: everyone in the scope); version 4.
    visibility: tuple[str, ...] | None = None

    @property
    def restricted(self) -> bool:
        """Whether it needs version 4: an audience on the conversation or on one of its entries."""
        return self.visibility is not None or any(e.visibility is not None for e in self.entries)

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "entries": [e.to_dict() for e in self.entries]}
        return out | ({"visibility": list(self.visibility)} if self.visibility is not None else {})


def check_conversations(
    raw: Mapping[str, tuple[dict[str, Any], ...]], version: int, item_ids: Sequence[str]
) -> tuple[SliceConversation, ...] | None:
    """The ``conversations`` section of ``raw`` checked (None: absent); ``item_ids``: the slice's items."""
    if CONVERSATIONS not in raw:
        return None
    if version < CONVERSATIONS_VERSION:
        raise InvalidSliceError(
            f"a version-{version} slice cannot carry a conversations section (it came in version "
            f"{CONVERSATIONS_VERSION}); write the slice as version {CONVERSATIONS_VERSION}"
        )
    out = tuple(_conversation(d, f"conversations[{n}]", version) for n, d in enumerate(raw[CONVERSATIONS]))
    names = [c.id for c in out]
    if len(set(names)) != len(names):
        raise InvalidSliceError("a conversation appears twice in the conversations section; each once")
    entry_ids = [e.id for c in out for e in c.entries]
    if len(set(entry_ids)) != len(entry_ids):
        raise InvalidSliceError("an entry id appears twice in the conversations section; each entry once")
    known, used = set(item_ids), set()
    for c in out:
        for e in c.entries:
            if e.memory is None:
                continue
            if e.memory not in known:
                raise InvalidSliceError(f"entry {e.id} names memory {e.memory}, which is not an item of the slice")
            if e.memory in used:
                raise InvalidSliceError(f"item {e.memory} is the memory of two messages; each of one")
            used.add(e.memory)
    return out


def _conversation(d: object, where: str, version: int) -> SliceConversation:
    d = record(d, _CONVERSATION_KEYS, where)
    name = _name(d.get("id"), f"{where}.id")
    raw = d.get("entries", [])
    if not isinstance(raw, list):
        raise InvalidSliceError(f"{where}.entries must be a list")
    entries = tuple(_entry(e, f"{where}.entries[{n}]", version) for n, e in enumerate(raw))
    last_position, last_at = 0, None
    origins: set[str] = set()
    for n, e in enumerate(entries):
        at = f"{where}.entries[{n}]"
        if e.position <= last_position:
            raise InvalidSliceError(f"{at}.position {e.position} does not follow {last_position}; entries in order")
        if e.kind == "message" and last_at is not None and e.at < last_at:
            raise InvalidSliceError(f"{at}.at is before the previous message's; messages are in time order")
        if e.origin_id in origins:
            raise InvalidSliceError(f"{at}.origin_id {e.origin_id} appears twice in the conversation")
        origins.add(e.origin_id)
        last_position = e.position
        last_at = e.at if e.kind == "message" else last_at
    return SliceConversation(id=name, entries=entries, visibility=_audience(d, where, version, False))


def _audience(d: dict[str, Any], where: str, version: int, entry: bool) -> tuple[str, ...] | None:
    """A conversation's or entry's ``visibility``: None when absent or null, else checked principals
    (an entry may also be the owner's alone, ``OWNER_ONLY``); refused in a slice older than version 4."""
    if "visibility" not in d:
        return None
    if version < MESSAGE_VISIBILITY_VERSION:
        raise InvalidSliceError(
            f"{where}.visibility came in format version {MESSAGE_VISIBILITY_VERSION}; this slice says version "
            f"{version}: write it as version {MESSAGE_VISIBILITY_VERSION}"
        )
    value = d["visibility"]
    if value is None:
        return None
    if entry and isinstance(value, list) and tuple(value) == OWNER_ONLY:
        return OWNER_ONLY
    try:  # the rule every face applies: sorted, distinct, well-formed, never an empty list
        return check_visibility(value)
    except InvalidInputError as exc:
        raise InvalidSliceError(f"{where}.visibility: {exc.message}") from None


def _entry(d: object, where: str, version: int) -> SliceEntry:
    d = record(d, _ENTRY_KEYS, where)
    kind = d.get("kind")
    if kind not in ENTRY_KINDS:
        raise InvalidSliceError(f"{where}.kind must be one of {', '.join(ENTRY_KINDS)}, got {shown(kind)}")
    role = d.get("role")
    if kind == "message" and role not in ROLES:
        raise InvalidSliceError(f"{where}.role of a message must be one of {', '.join(ROLES)}, got {shown(role)}")
    if kind != "message" and role is not None:
        raise InvalidSliceError(f"{where}.role belongs to messages; a {kind} has none")
    memory = d.get("memory")
    if memory is not None and (kind != "message" or not is_id(memory)):
        raise InvalidSliceError(f"{where}.memory must be null or, on a message, the id of an item of the slice")
    position = d.get("position")
    if isinstance(position, bool) or not isinstance(position, int) or position < 1:
        raise InvalidSliceError(f"{where}.position must be a positive integer, got {shown(position)}")
    text = d.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidSliceError(f"{where}.text must be a non-empty string")
    speaker = d.get("speaker")
    return SliceEntry(
        id=reverie_id(d.get("id"), f"{where}.id"),
        origin_id=reverie_id(d.get("origin_id", d.get("id")), f"{where}.origin_id"),
        kind=str(kind),
        text=text,
        at=utc_time(d.get("at"), f"{where}.at"),
        position=position,
        speaker=None if speaker is None else _name(speaker, f"{where}.speaker"),
        role=None if role is None else str(role),
        meta=as_object(d.get("meta", {}), f"{where}.meta"),
        memory=None if memory is None else str(memory),
        visibility=_audience(d, where, version, True),
    )


# -- scalars -------------------------------------------------------------------------------------
def _name(value: object, where: str) -> str:
    """A conversation id or speaker: what ``conversation.checks.check_name`` accepts."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidSliceError(f"{where} must be a non-blank string, got {shown(value)}")
    if len(value) > MAX_NAME_CHARS:
        raise InvalidSliceError(f"{where} has {len(value)} characters; the limit is {MAX_NAME_CHARS}")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in value):
        raise InvalidSliceError(f"{where} {shown(value)} contains a control character; names are plain text")
    return value
