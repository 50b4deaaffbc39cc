"""The people hook of ``Memory.recall`` (marked there): relation phrases become the person they name.

"Where does Alice's sister live?" is rewritten to "Where does Dana live?" when the scope knows a
relation "Dana is Alice's sister", and the claims about Dana get ``about_boost`` (the recall
engine's ``about_items``). Person records themselves (items of kind ``person``, whose text is a
bare name) are records, not memories: recall leaves them out unless the caller's ``where``
asks for something. Scopes without conversations are left exactly as they were.

Cheap when it does nothing: the store is read only when the query holds a possessive followed
by a relation noun.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from reverie.conversation.people.book import PERSON_KIND, Book
from reverie.conversation.people.lexicon import RELATION_ADJECTIVES, RELATIONS
from reverie.model.query import Q
from reverie.recall.conversational import SpeakerSource
from reverie.recall.engine import RecallOptions
from reverie.store.protocol import Store

#: Claims about the person a relation phrase names score × (1 + this).
ABOUT_BOOST = 3.0
_REL = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_ADJ = "|".join(sorted(RELATION_ADJECTIVES))
_PHRASE = re.compile(r"\b([A-Z][\w-]*(?:\s[A-Z][\w-]*)?)['’]s\s(?i:(?:(?:" + _ADJ + r")\s)?(" + _REL + r"))\b")


def has_conversations(store: Store, scope: str) -> bool:
    """Does ``scope`` hold conversations (the only writer of person records)?"""
    return isinstance(store, SpeakerSource) and bool(store.conversation_speakers(scope))


def people_default(
    store: Store, scope: str, query: str, opts: RecallOptions, now: datetime | None = None
) -> tuple[str, RecallOptions]:
    """``(query, opts)`` with relation phrases resolved and person records left out (see the module doc).

    ``now``: the relations are those valid then (the question's ``valid_at``, else the Memory's
    now), as ``mem.person`` shows them: "Alice's girlfriend" is not the wife she became.
    """
    if not has_conversations(store, scope):
        return query, opts  # person records are written only by conversation extraction
    if opts.where is None:
        opts = replace(opts, where=~Q.kind(PERSON_KIND))
    phrases = list(_PHRASE.finditer(query))
    if not phrases:
        return query, opts
    book = Book(store, scope, now=opts.valid_at or now)
    if not len(book):
        return query, opts
    boosted: set[str] = set()
    text = query
    for m in reversed(phrases):  # right to left: earlier spans keep their offsets
        owner = book.resolve(m.group(1))
        if owner is None:
            continue
        noun = m.group(2).lower()
        used = [r for r in book.relations(owner) if r.of == owner.id and r.type == noun]
        targets = {r.person: r.person_name for r in used}
        if not targets:
            continue
        text = text[: m.start()] + " and ".join(targets.values()) + text[m.end() :]
        # The relation itself is what the question presupposes, not what it asks: not boosted.
        evidence = {r.claim for r in used}
        for pid in targets:
            group = book.group(pid)
            if group is not None:
                boosted.update(c.id for c in book.claims_about(group) if c.id not in evidence)
    if not boosted:
        return query, opts
    return text, replace(opts, about_items=frozenset(boosted), about_boost=ABOUT_BOOST)
