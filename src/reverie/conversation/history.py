"""What the model should see of a conversation: its recent entries, older ones replaced by a summary.

The threshold counts characters of entry text (default 60,000, roughly 15k tokens). When the
session outgrows it, the oldest entries are folded into one summary so that what is kept fits in
*half* the threshold: with that slack a new summary is written once per half-threshold of new
text, not on every message. A summary is an event like any entry (replayable, purgeable), and it
folds in the previous summary, so the history is always one summary plus verbatim entries.

Summaries are made per audience, as recaps are (``conversation.audience``): one for each narrower
audience among the folded messages, then the conversation's, each quoting only what its whole
audience may see; a reader is shown the one it may see that holds the most.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reverie.conversation.audience import audiences, best_for, quotable
from reverie.conversation.writer import Writer
from reverie.model.conversation import ConversationState, Entry
from reverie.store.visible import principal_of

DEFAULT_HISTORY_CHARS = 60_000


def summary_budget(threshold: int) -> int:
    """A summary's size: a quarter of the threshold, between 200 and 4,000 characters."""
    return max(200, min(4_000, threshold // 4))


def history(writer: Writer, state: ConversationState, entries: Sequence[Entry], threshold: int) -> list[Entry]:
    """The current session's history (``entries`` are its entries in order), writing a summary if one is due."""
    if state.released:
        return []
    last = _last_summary(writer, entries)
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
    previous = [e for e in entries if e.kind == "summary" and e.covers == (last.covers if last else None)]
    drafts = [
        _draft(writer, state, audience, previous, dropped, threshold)
        for audience in audiences(state, [*dropped, *previous])
    ]
    if writer.read_only:  # shown, not stored: an empty id says so (the next writable read writes it)
        mine = best_for(principal_of(writer.host.store), drafts)
        return [mine, *keep] if mine is not None else keep
    written = writer.add_entries(state, drafts)
    mine = best_for(principal_of(writer.host.store), written)
    return [mine, *keep] if mine is not None else keep


def _last_summary(writer: Writer, entries: Sequence[Entry]) -> Entry | None:
    """The reader's summary of the furthest fold it may see (one is written per audience)."""
    summaries = [e for e in entries if e.kind == "summary"]
    if not summaries:
        return None
    upto = max(e.covers[1] for e in summaries if e.covers)
    return best_for(principal_of(writer.host.store), [e for e in summaries if e.covers and e.covers[1] == upto])


def _draft(
    writer: Writer,
    state: ConversationState,
    audience: tuple[str, ...],
    previous: Sequence[Entry],
    dropped: Sequence[Entry],
    threshold: int,
) -> Entry:
    """The summary for ``audience``: its previous summary (if it may see one) and the folded entries it may see."""
    before = [p for p in previous if p.visibility == audience][-1:]
    folded = quotable(audience, dropped)
    text, how = writer.summarise([*before, *folded], summary_budget(threshold)) if before or folded else ("", {})
    messages = len([e for e in folded if e.kind == "message"]) + sum(int(p.meta.get("messages", 0)) for p in before)
    meta: dict[str, Any] = {"from": state.session_start, "upto": dropped[-1].position, "messages": messages, **how}
    if audience != state.visibility:
        meta["variant"] = True
    return Entry(
        id="",
        scope=state.scope,
        conversation=state.id,
        kind="summary",
        text=text or "(nothing to summarise)",
        at=dropped[-1].at,
        meta=meta,
        visibility=audience,
    )
