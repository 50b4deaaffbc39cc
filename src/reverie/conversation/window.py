"""The recallable text of a message: its date, its words and the turns just before it.

Why this text and not the message alone: on LoCoMo (bench/locomo.py, dev split) the session
date in the text was worth 3-4 points of recall@10 on every leg, and the two previous turns of
the same session as context ("What genre?" → "A mix of drama and romance!") a few more: an
answer often only makes sense next to its question. The archive keeps the verbatim message; this
text only feeds the search indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from reverie.model.conversation import Entry
from reverie.model.redact import REDACTED

#: Previous turns of the same session put in a message's context.
WINDOW_BEFORE = 2
#: At most this much of each previous turn goes into the context (a pasted document would
#: otherwise dominate its successors' texts).
CONTEXT_CHARS = 600


def date_text(at: datetime) -> str:
    """``1:56 pm on 8 May, 2023``: the spelling LoCoMo's session dates use (and people write)."""
    hour = at.hour % 12 or 12
    return f"{hour}:{at.minute:02d} {'am' if at.hour < 12 else 'pm'} on {at.day} {at.strftime('%B')}, {at.year}"


def label(speaker: str | None, role: str | None) -> str:
    """Who said it, as the text names them: the speaker, else the role."""
    return speaker or role or "someone"


def caption(entry: Entry) -> str:
    return f"{label(entry.speaker, entry.role)}: {entry.text}"


def window_text(text: str, *, speaker: str | None, role: str, at: datetime, before: Sequence[Entry], limit: int) -> str:
    """``[<date>] <speaker>: <text> || context: <turn-2> | <turn-1>``, cut at ``limit`` characters.

    Purged turns (``[purged]``) are left out of the context.
    """
    head = f"[{date_text(at)}] {label(speaker, role)}: {text}"
    context = [caption(e)[:CONTEXT_CHARS] for e in before[-WINDOW_BEFORE:] if e.text != REDACTED]
    out = head + (" || context: " + " | ".join(context) if context else "")
    return out[:limit]
