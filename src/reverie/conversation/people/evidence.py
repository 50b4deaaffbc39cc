"""Which known person a short name is, when the name alone cannot say: the evidence, and the guess.

A first name is shared by many people. Alice's "My sister Dana" and Carl's "My friend Dana", said
in two conversations, fitted one person, so Carl's friend became Alice's sister and recall answered
questions about her with what Carl said (outside probe 6, finding 3). A short name joining the one
person it fits is a guess; it is a fair one while nothing speaks against it, and a wrong one when
what is known says otherwise.

**Ruled out** (``someone_else``): a candidate person a short name is not (a guess: not a full name
they hold, nor a speaker's own name). Nothing here rules out a person this talk has spoken of —
this session named them (``prefer``), a name of theirs was enrolled in this conversation or a
claim about them mined here, or the message's speaker said something about them or is one of
their relations. Otherwise, the mention comes from another conversation than all of that, and
the candidate is ruled out when

- the message has no speaker (``anonymous``): two conversations' anonymous speakers are not
  assumed to be one human, so neither are the people each speaks of (two tickets' "my sister
  Dana" are two customers' sisters);
- everything said about the candidate was said by anonymous speakers of other conversations;
- the mention fits the candidate only through the nickname table ("Dan" for a "Daniel" another
  speaker spoke of): a guess on a guess, left to an ``alias`` link;
- the message's relations tie the mention to somebody (``tie_index``), the candidate has
  relations, and none links them to a person the message ties the mention to.

**Chosen** (``choose``): when several candidates remain, the persons this session named most
recently decide; then the one candidate with the strongest evidence — spoken of in this
conversation, then by this speaker, then related to someone this session named or the message
ties the mention to ("I had lunch with Carl today. Dana is moving." is Carl's Dana). When no one
candidate stands out, none is chosen and extraction records an ambiguous mention
(``enroll.Enroller``) rather than a new person.

Evidence that it is one person keeps the guess: the same full name (``Book.held`` never gets
here for it), an explicit ``alias`` edge (the book joins those names into one person), the same
speaker, the same conversation, or a relation to the same person ("Alice's sister Dana").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reverie.conversation.people.book import Book, Group
from reverie.conversation.people.names import fits, tokens

#: A relation as a proposal carries it: (person, relation noun, of whom), names as said.
Said = tuple[str, str, str]


def tie_index(relations: Iterable[Said]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Each name's words -> the names ``relations`` tie it to (the other side of each relation it
    is a side of). Built once per message: a message of 800 relations asks it for each name."""
    out: dict[tuple[str, ...], list[str]] = {}
    for person, _type, of in relations:
        a, b = tokens(person), tokens(of)
        if a != b:
            out.setdefault(a, []).append(of)
            out.setdefault(b, []).append(person)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


@dataclass(frozen=True, slots=True)
class Mention:
    """Where a name was said: its ``conversation`` (None: no conversation, so no other one either),
    its speaker (``said_by``; None in a conversation: an anonymous speaker), the persons its session
    named, most recent first (``prefer``), and the names the message's relations tie it to."""

    name: str
    conversation: str | None
    said_by: str | None = None
    prefer: Sequence[str] = ()
    ties: Sequence[str] = ()

    @property
    def anonymous(self) -> bool:
        return self.conversation is not None and not self.said_by


class _Known:
    """What the store says of one candidate: the claims about them, and (read when first asked)
    the persons their relations link them to."""

    def __init__(self, book: Book, group: Group) -> None:
        self._book, self._group = book, group
        self.claims = book.claims_about(group, limit=None)
        self._partners: list[Group] | None = None

    @property
    def partners(self) -> list[Group]:
        if self._partners is None:
            book, me = self._book, self._group
            others = (book.group(r.of if r.person == me.id else r.person) for r in book.relations(me, self.claims))
            self._partners = list({g.id: g for g in others if g is not None and g.id != me.id}.values())
        return self._partners


#: What was read of each candidate for one mention (``someone_else`` then ``choose`` ask of the same persons).
Seen = dict[str, _Known]


def someone_else(book: Book, group: Group, mention: Mention, seen: Seen | None = None) -> bool:
    """Is ``group`` another person than ``mention``? (See the module doc.)"""
    if group.id in mention.prefer or _named_here(group, mention):
        return False
    known = _read(book, group, seen)
    if _here(known, mention) or _by_speaker(known, mention):
        return False
    if mention.conversation is not None:
        if mention.anonymous:
            return True
        if known.claims and all(c.meta.get("conversation") and not c.meta.get("speaker") for c in known.claims):
            return True  # known only through other conversations' anonymous speakers
        if len(tokens(mention.name)) == 1 and not any(tokens(mention.name)[0] in tokens(n.text) for n in group.names):
            return True  # "Dan" for another speaker's "Daniel": the nickname table alone
    if not mention.ties or not known.partners:
        return False  # nothing ties them to anybody: the name is all there is, and it fits
    return not any(_named(tie, g) for tie in mention.ties for g in known.partners)


def choose(book: Book, groups: Sequence[Group], mention: Mention, seen: Seen | None = None) -> Group | None:
    """The one of ``groups`` (the candidates left) that ``mention`` is, or None if none stands out."""
    if len(groups) <= 1:
        return groups[0] if groups else None
    for pid in mention.prefer:
        for g in groups:
            if g.id == pid:
                return g
    scored = []
    for g in groups:
        known = _read(book, g, seen)
        related = any(p.id in mention.prefer or any(_named(t, p) for t in mention.ties) for p in known.partners)
        scored.append(((_named_here(g, mention) or _here(known, mention), _by_speaker(known, mention), related), g))
    best = max(s for s, _ in scored)
    top = [g for s, g in scored if s == best]
    return top[0] if any(best) and len(top) == 1 else None


def _read(book: Book, group: Group, seen: Seen | None) -> _Known:
    if seen is None:
        return _Known(book, group)
    if group.id not in seen:
        seen[group.id] = _Known(book, group)
    return seen[group.id]


def _named_here(group: Group, mention: Mention) -> bool:
    """Was a name of ``group`` enrolled in the mention's conversation?"""
    return mention.conversation is not None and any(
        n.meta.get("conversation") == mention.conversation for n in group.names
    )


def _here(known: _Known, mention: Mention) -> bool:
    """Was a claim about the candidate mined in the mention's conversation?"""
    return mention.conversation is not None and any(
        c.meta.get("conversation") == mention.conversation for c in known.claims
    )


def _by_speaker(known: _Known, mention: Mention) -> bool:
    """Did the mention's speaker say something about the candidate, or is the speaker one of their relations?"""
    if not mention.said_by:
        return False
    speaker = tokens(mention.said_by)
    if any(tokens(str(c.meta.get("speaker") or "")) == speaker for c in known.claims):
        return True
    return any(_named(mention.said_by, g) for g in known.partners)


def _named(name: str, group: Group) -> bool:
    """Is ``name`` one of ``group``'s names, or a short form of one?"""
    return any(tokens(n.text) == tokens(name) or fits(name, n.text) for n in group.names)
