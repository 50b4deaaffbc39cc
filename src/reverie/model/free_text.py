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
    }
)
#: Fields of a conversation entry that are its writer's words (its ``meta`` may carry reverie's
#: own references and stays checked).
_ENTRY_WORDS = ("text", "speaker", "role")

#: A reverie id (a canonical lower-case UUID), alone or inside a longer string.
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def references(command: Any) -> dict[str, Any]:
    """``command``'s fields without its free text: what a write check looks for hidden ids in."""
    named = dataclasses.asdict(command)
    for name in FREE_TEXT_FIELDS:
        named.pop(name, None)
    if "changes" in named:  # SetTiers: each change's reason is words, its id a reference
        named["changes"] = [{k: v for k, v in c.items() if k != "reason"} for c in named["changes"]]
    if isinstance(command, RecordEntry):
        for name in _ENTRY_WORDS:
            named["entry"].pop(name, None)
    return named


def quoted_ids(*texts: str | None) -> set[str]:
    """Every id-shaped string quoted in ``texts`` (whole or inside a sentence)."""
    return {m for t in texts if t for m in _ID.findall(t)}


__all__ = ["FREE_TEXT_FIELDS", "quoted_ids", "references"]
