"""What the model should see of a conversation: its recent entries, older ones replaced by a summary.

The threshold counts characters of entry text (default 60,000, roughly 15k tokens). When the
session outgrows it, the oldest entries are folded into one summary so that what is kept fits in
*half* the threshold: with that slack a new summary is written once per half-threshold of new
text, not on every message. A summary is an event like any entry (replayable, purgeable), and it
folds in the previous summary, so the history is always one summary plus verbatim entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from reverie.conversation.writer import Writer
from reverie.model.conversation import ConversationState, Entry

DEFAULT_HISTORY_CHARS = 60_000


def summary_budget(threshold: int) -> int:
    """A summary's size: a quarter of the threshold, between 200 and 4,000 characters."""
    return max(200, min(4_000, threshold // 4))


def history(writer: Writer, state: ConversationState, entries: Sequence[Entry], threshold: int) -> list[Entry]:
    """The current session's history (``entries`` are its entries in order), writing a summary if one is due."""
    if state.released:
        return []
    summaries = [e for e in entries if e.kind == "summary"]
    last = summaries[-1] if summaries else None
    covered = last.covers[1] if last is not None and last.covers else state.session_start - 1
    tail = [e for e in entries if e.kind != "summary" and e.position > covered]
    if sum(len(e.text) for e in tail) <= threshold:
        return ([last] if last else []) + tail
    keep: list[Entry] = []
    used = 0
    for e in reversed(tail):
        if keep and used + len(e.text) > threshold // 2:
            break
        keep.append(e)
        used += len(e.text)
    keep.reverse()
    dropped = [e for e in tail if e.position < keep[0].position]
    if not dropped:  # one entry larger than the threshold: it is the newest, and it is shown whole
        return ([last] if last else []) + tail
    text, how = writer.summarise(([last] if last else []) + dropped, summary_budget(threshold))
    meta: dict[str, Any] = {"from": state.session_start, "upto": dropped[-1].position, **how}
    text = text or "(nothing to summarise)"
    if writer.read_only:  # shown, not stored: an empty id says so (the next writable read writes it)
        shown = Entry(id="", scope=state.scope, conversation=state.id, kind="summary", text=text, at=dropped[-1].at)
        return [replace(shown, meta=meta), *keep]
    summary = writer.add_entry(state, "summary", text, dropped[-1].at, meta)
    return [summary, *keep]
