"""The recall defaults for a scope that holds conversations: what bench/locomo.py tuned by hand.

``Memory.recall`` with no ``options`` on a scope whose store knows speakers applies these:

- the speakers named in the question are taken out of its text and matched as *authors*
  (``split_authors`` + ``author_boost``): "What did Caroline research?" looks for what
  Caroline said about research, not for every turn that mentions her;
- a reply lends weight to the turn it answers (``Neighbours(after=0.5)`` over the messages'
  ``meta["conversation"]`` / ``meta["turn"]``);
- RRF k = 20 instead of 60: with hundreds of near-equal turns, a sharper fusion lets a turn
  that both legs rank high stand out.

Chosen on LoCoMo's dev split only (bench/README.md, bench/locomo.py ``TUNED``). Items that are
not messages carry no ``conversation`` / ``turn`` meta, so the spread never touches them; the
author match touches only items whose author is a named speaker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from reverie.recall.engine import Neighbours, RecallOptions
from reverie.recall.expand import split_authors

CONVERSATION_RRF_K = 20
CONVERSATION_AUTHOR_BOOST = 3.0
CONVERSATION_NEIGHBOURS = Neighbours(group="conversation", position="turn", before=0.0, after=0.5)
#: A message's memory and the claims mined from it (h-people, ``conversation.learn``) are one source:
#: the answer keeps the best of them, so one turn does not fill two of the k slots.
CONVERSATION_SAME_SOURCE = ("message", "message_id")


@runtime_checkable
class SpeakerSource(Protocol):
    """A store that knows the speakers of a scope's conversations."""

    def conversation_speakers(self, scope: str) -> list[str]: ...


def conversation_options(query: str, speakers: Sequence[str], opts: RecallOptions) -> tuple[str, RecallOptions]:
    """``opts`` with the conversation defaults, and the query with the named speakers taken out."""
    split = split_authors(query, speakers)
    return split.query, replace(
        opts,
        rrf_k=CONVERSATION_RRF_K,
        author_boost=CONVERSATION_AUTHOR_BOOST,
        authors=split.authors,
        neighbours=CONVERSATION_NEIGHBOURS,
        same_source=CONVERSATION_SAME_SOURCE,
    )


def conversation_default(store: object, scope: str, query: str, opts: RecallOptions) -> tuple[str, RecallOptions]:
    """The conversation defaults when ``scope`` holds conversations, else ``(query, opts)`` unchanged."""
    if not isinstance(store, SpeakerSource):
        return query, opts
    speakers = store.conversation_speakers(scope)
    if not speakers:
        return query, opts
    return conversation_options(query, speakers, opts)
