"""A question asked in a conversation: a name several people share means the one this talk spoke of.

Alice's sister Dana and Carl's friend Dana are two persons. "Where does Dana work?" asked in
Alice's conversation ranked Carl's "Dana works at Acme." first: plain recall compares words, and
both Danas' claims share them (session 33). ``Conversation.recall`` passes where it is asked
(``AskedIn``: the conversation and its asker) and the claims about the Dana this conversation or
its speaker spoke of get the people hook's ``about_boost`` (``recall_hook``), as a relation
phrase's person does.

Which one is decided exactly as extraction decides a bare name said in that conversation
(``evidence.choose``): spoken of in this conversation, then by this speaker; when no one candidate
stands out (a conversation that never spoke of either), nobody is preferred and the ranking is
plain recall's. A name one person holds in full, or fitting one person only, is left alone: there
is nothing to choose. ``Memory.recall`` (asked from nowhere) never gets here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from reverie.conversation.people.book import Book, Group
from reverie.conversation.people.evidence import Mention, Seen, choose
from reverie.conversation.people.recall_hook import ABOUT_BOOST, has_conversations
from reverie.recall.engine import RecallOptions
from reverie.store.protocol import Store

#: A capitalised word, or two in a row ("Dana", "Dana Smith"); possessives stop at the apostrophe.
_NAME = re.compile(r"\b[A-Z][\w-]*(?:\s[A-Z][\w-]*)?")


@dataclass(frozen=True, slots=True)
class AskedIn:
    """Where a question was asked: its ``conversation`` and the ``speaker`` asking (None: unknown)."""

    conversation: str
    speaker: str | None = None


def prefer_spoken_of(
    store: Store, scope: str, query: str, opts: RecallOptions, asked: AskedIn, now: datetime | None = None
) -> RecallOptions:
    """``opts`` with the claims about the person(s) ``asked`` spoke of boosted, for each name in
    ``query`` that fits several people (see the module doc)."""
    names = _names(query)
    if not names or not has_conversations(store, scope):
        return opts
    book = Book(store, scope, now=opts.valid_at or now)
    if not len(book):
        return opts
    seen: Seen = {}
    chosen: dict[str, Group] = {}
    for name in names:
        if book.held(name) is not None:
            continue  # a full name, or a speaker's own: one person already
        groups = book.contenders(name)
        if len(groups) < 2:
            continue
        mention = Mention(name, asked.conversation, said_by=asked.speaker)
        found = choose(book, groups, mention, seen)
        if found is not None:
            chosen[found.id] = found
    if not chosen:
        return opts
    boosted = {c.id for g in chosen.values() for c in book.claims_about(g)}
    if not boosted:
        return opts
    return replace(opts, about_items=opts.about_items | boosted, about_boost=max(opts.about_boost, ABOUT_BOOST))


def _names(query: str) -> list[str]:
    """The capitalised words of ``query`` and each two in a row, in order, once each."""
    out: dict[str, None] = {}
    for m in _NAME.finditer(query):
        words = m.group(0).split()
        out[m.group(0)] = None
        for w in words:
            out[w] = None
    return list(out)
