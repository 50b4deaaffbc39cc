"""Re-deriving a turn's recallable memory when the turns its context quotes change.

A message's memory is its text with the turns before it as context (``window``). When an earlier
message is purged (``Writer.purge_message``) or gets another audience (``restrict``), the later
memories whose context changes must be re-derived: the one place that says how a context is
built for a turn, and how a memory is re-written (purged, then remembered again with the same
kind, source, author, meta, validity and audience), so both paths cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.conversation.audience import quotable
from reverie.conversation.window import window_text
from reverie.model import commands as cmd
from reverie.model.conversation import Entry
from reverie.model.item import Item


def context_window(later: Entry, before: Sequence[Entry], limit: int) -> str:
    """The recallable text of message ``later`` with ``before`` (its session's earlier messages) as
    context, quoting only those its audience may see."""
    return window_text(
        later.text,
        speaker=later.speaker,
        role=later.role or "user",
        at=later.at,
        before=quotable(later.visibility, before),
        limit=limit,
    )


def rewrite_memory(
    scope: str, item: Item, text: str, audience: tuple[str, ...], reason: str
) -> tuple[cmd.Purge, cmd.Remember]:
    """The two commands that replace memory ``item`` by ``text`` visible to ``audience``.

    Purged rather than revised: the old text may quote a message that must leave no trace (a
    revision keeps the old version in history). ``corroborate=False``: a re-written memory is the
    same memory, not new evidence for a claim that happens to read alike.
    """
    remember = cmd.Remember(
        scope=scope,
        text=text,
        kind=item.kind,
        source=item.source,
        author=item.author,
        meta=item.meta,
        valid_from=item.valid_from,
        corroborate=False,
        visibility=audience,
    )
    return cmd.Purge(scope, item.id, reason), remember


__all__ = ["context_window", "rewrite_memory"]
