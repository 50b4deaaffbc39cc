"""Claims that borrowed words from another message: the name a pronoun was resolved to.

Extraction reads a session, not a message: "My sister Zorvina joined the team" then "She just bought
a bike" gives the claim "Zorvina just bought a bike.", mined from the *second* message. So the
claims of a message can hold words of an earlier one — a person's name, put in for a pronoun, a
fragment's subject or "they". When that earlier message is purged (or narrowed to fewer readers),
its claims go with it, but a claim borrowing its name stayed, quoting it to everyone.

How a borrowed word is told from the claim's own: a capitalised word of the claim (the rules put
names in with their capital, whatever the message wrote) that the earlier message holds and the
claim's own message does not, and that is not its own message's speaker (a first-person claim puts
the speaker's name in: "I live in Porto" said by Alice → "Alice lives in Porto."). Only messages
of the same session after the earlier one are looked at: the rules never reach further back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reverie.model.conversation import Entry, releases
from reverie.model.item import STATUSES, Item
from reverie.model.query import Q, parse_sort
from reverie.model.redact import REDACTED
from reverie.store.protocol import Store

_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def _names(text: str) -> set[str]:
    """The capitalised words of a claim, without a possessive ending ("Zorvina's" → "zorvina")."""
    out = set()
    for w in _CAPITALISED.findall(text):
        out |= {p.casefold() for p in _WORD.findall(re.sub(r"['’]s$", "", w))}
    return out


def borrows(claim: Item, own: Entry, source: Entry) -> bool:
    """Whether ``claim`` (mined from message ``own``) holds a name it took from message ``source``."""
    return names_borrowed(claim.text, own.text, own.speaker, source.text)


def names_borrowed(claim: str, own: str, speaker: str | None, source: str) -> bool:
    """``borrows`` on texts: whether claim text ``claim`` (mined from message text ``own`` said by
    ``speaker``) holds a name it took from message text ``source`` (a slice import asks it of
    records that are not stored yet)."""
    if claim == REDACTED:
        return False
    keep = _words(own) | (_words(speaker) if speaker else set())
    taken = _names(claim) - keep
    return bool(taken & _words(source))


def later_in_session(entries: Sequence[Entry], source: Entry) -> list[Entry]:
    """The messages after ``source`` in its session (up to the next release)."""
    out: list[Entry] = []
    for e in entries:
        if e.position <= source.position:
            continue
        if releases(e):
            break
        if e.kind == "message":
            out.append(e)
    return out


def claims_of(store: Store, scope: str, message_id: str) -> list[Item]:
    """The claims mined from a message, in any status (a forgotten one still quotes it), not purged."""
    where = Q.meta("message_id", message_id) & Q.status(*STATUSES)
    return [i for i in store.query(scope, where, parse_sort(None), limit=1000) if i.text != REDACTED]


def borrowers(store: Store, scope: str, entries: Sequence[Entry], source: Entry) -> list[Item]:
    """The claims of the later messages of ``source``'s session that borrowed a name from it."""
    return [
        claim
        for later in later_in_session(entries, source)
        for claim in claims_of(store, scope, later.id)
        if borrows(claim, later, source)
    ]


__all__ = ["borrowers", "borrows", "claims_of", "later_in_session", "names_borrowed"]
