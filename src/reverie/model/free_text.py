"""Which fields of a write are a principal's own words, and which *name* something the write acts on.

Why this split: ``store.visible.VisibleStore`` refuses a principal's write that names a claim it
may not see with the ``not_found`` an unknown id gets. It used to scan *every* string of the
command for ids, so a reason, a label, a ``meta`` sentence, a recall query or a conversation
message quoting a hidden claim's id was refused with ``no item <id>``, while the same text quoting
an id that never existed was stored: an existence oracle (and a recall that failed). Free text
names nothing — no rule resolves it — so an unknown id in it is accepted; a hidden one must be too.

The rule: the fields below are free text and are left out of the check (a hidden id in them is
stored as written, exactly as an unknown one); every other field is checked, so a field added
later that names an item is refused when it names a hidden one (fail closed). What readers are
shown of free text is ``model.conceal``'s business (an agenda record's ``unseen``).

Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from reverie.model.conversation import RecordEntry

#: Field names that hold a writer's words on every command that has them: the reducer never
#: resolves them to an item (``kind`` / ``source`` / ``type`` are open vocabularies, ``key`` and
#: ``value`` a claim's slot, ``fingerprints`` the words of a dismissed value).
FREE_TEXT_FIELDS = frozenset(
    {
        "text",
        "reason",
        "label",
        "action",
        "owner",
        "agent",
        "author",
        "tags",
        "meta",
        "key",
        "value",
        "provenance",
        "kind",
        "source",
        "type",
        "query",
        "evidence",
        "fingerprints",
        "speaker",
        "role",
    }
)
#: Fields of a conversation entry that are its writer's words (its ``meta`` may carry reverie's
#: own references and stays checked).
_ENTRY_WORDS = ("text", "speaker", "role")

#: A reverie id (a canonical lower-case UUID), alone or inside a longer string.
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


#: Fields that name something other than an item (a conversation's id is a name of the caller's
#: choosing; a conversation outside the principal's audience is refused by ``VisibleStore`` itself).
_NOT_ITEMS = ("conversation", "unseen")


def references(command: Any) -> dict[str, Any]:
    """``command``'s fields without its free text: what a write check looks for hidden ids in."""
    named = dataclasses.asdict(command)
    for name in (*FREE_TEXT_FIELDS, *_NOT_ITEMS):
        named.pop(name, None)
    if "changes" in named:  # SetTiers: each change's reason is words, its id a reference
        named["changes"] = [{k: v for k, v in c.items() if k != "reason"} for c in named["changes"]]
    if isinstance(command, RecordEntry):
        for name in (*_ENTRY_WORDS, "conversation"):
            named["entry"].pop(name, None)
    return named


def quoted_ids(*texts: str | None) -> set[str]:
    """Every id-shaped string quoted in ``texts`` (whole or inside a sentence)."""
    return {m for t in texts if t for m in _ID.findall(t)}


def free_strings(command: Any) -> list[str]:
    """Every string of ``command``'s free text (at any depth: a ``meta`` sentence, a reason in ``changes``)."""
    out: list[str] = []
    _collect(dataclasses.asdict(command), False, out)
    return out


def _collect(v: Any, words: bool, out: list[str]) -> None:
    if isinstance(v, str):
        if words:
            out.append(v)
    elif isinstance(v, dict):
        for k, x in v.items():
            if words:
                out.append(str(k))
            _collect(x, words or k in FREE_TEXT_FIELDS, out)
    elif isinstance(v, list | tuple):
        for x in v:
            _collect(x, words, out)


#: The fields of an item, an edge and a conversation entry that their own reads show as written,
#: whatever ids they quote (``model.conceal`` omits only hidden parents, whole-id ``meta`` values
#: and keys, and provenance refs; entries are not concealed by id): an event carrying one shows
#: them alike, so they do not make it an event that names a hidden claim.
_WORDS = {
    "item": ("text", "key", "value", "author", "tags", "last_used_query", "kind", "source"),
    "edge": ("author", "type"),
    "entry": ("text", "speaker", "role", "conversation"),
}


def checked_view(payload: dict[str, Any]) -> dict[str, Any]:
    """What of an event's ``payload`` a principal's read checks for hidden ids (``store.visible``).

    Why not the whole payload: some of it is words the principal reads anyway, and checking them
    made the event an existence oracle. (1) The words of the item, edge or message it carries
    (``_WORDS``, a ``meta`` sentence, the item's fingerprints): their own reads show them as
    written, so a claim's text quoting a hidden id was returned whole by ``get`` while its events
    were left out of its history — for a quoted unknown id they were not. (2) A principal's own
    words quoting ids it may not see (the event's ``unseen``, set at its write: a reason, a
    recall query): they read as an unknown id does. (3) A conversation's id, a name its caller
    chose (a conversation's audience is checked apart). Everything else — ids, parents, whole-id
    ``meta`` values, provenance refs, the reasons of the owner and of reverie — is checked.
    """
    unseen = frozenset(str(i) for i in payload.get("unseen") or ())
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "unseen" or (key == "conversation" and isinstance(value, str)):
            continue
        if key == "conversation" and isinstance(value, dict):
            out[key] = {k: v for k, v in value.items() if k != "id"}
        elif key in _WORDS and isinstance(value, dict):
            kept = {k: v for k, v in value.items() if k not in _WORDS[key]}
            out[key] = kept | ({"meta": _whole_ids(kept["meta"])} if "meta" in kept else {})
        else:  # the event's own fields: a principal's blind quotes are cut out of its words
            out[key] = _scrubbed(value, unseen, key in FREE_TEXT_FIELDS) if unseen else value
    if isinstance(payload.get("item"), dict):
        out.pop("fingerprints", None)  # the item's words, normalised
    return out


def _whole_ids(v: Any) -> Any:
    """``v`` (a ``meta``) keeping only the strings, keys included, that are whole ids."""
    if isinstance(v, dict):
        return {(k if _ID.fullmatch(str(k)) else f"#{n}"): _whole_ids(x) for n, (k, x) in enumerate(v.items())}
    if isinstance(v, list):
        return [_whole_ids(x) for x in v]
    return v if isinstance(v, str) and _ID.fullmatch(v) else None


def _scrubbed(v: Any, unseen: frozenset[str], words: bool) -> Any:
    """``v`` with the ``unseen`` ids cut out of the strings under free-text keys."""
    if isinstance(v, str):
        return _ID.sub(lambda m: "" if m.group(0) in unseen else m.group(0), v) if words else v
    if isinstance(v, dict):
        out: dict[str, Any] = {}
        for k, x in v.items():
            inner = words or k in FREE_TEXT_FIELDS
            out[_scrubbed(k, unseen, words)] = _scrubbed(x, unseen, inner)
        return out
    if isinstance(v, list | tuple):
        return [_scrubbed(x, unseen, words) for x in v]
    return v


__all__ = ["FREE_TEXT_FIELDS", "checked_view", "free_strings", "quoted_ids", "references"]
