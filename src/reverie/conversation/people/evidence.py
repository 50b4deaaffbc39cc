"""Whether a bare first name may be a person someone else named in another conversation.

A first name is shared by many people. Alice's "My sister Dana" and Carl's "My friend Dana", said
in two conversations, fitted one person, so Carl's friend became Alice's sister and recall answered
questions about her with what Carl said (outside probe 6, finding 3). A short name joining the one
person it fits is a guess; it is a fair one while nothing speaks against it, and a wrong one when
the message ties the name to other people than everything known about that person does.

So a candidate person is ruled out for a short name (a guess: not a full name they hold, nor a
speaker's own name) when the message's relations tie the mention to somebody (``tie_index``) and
all of these hold:

- the person was never spoken of in this conversation (no name of theirs was enrolled here, no
  claim about them was mined here, and this session has not named them: ``prefer``);
- the message's speaker never said anything about them;
- they have relations, and none of them links them to a person the message ties the mention to.

Evidence that it is one person keeps the guess: the same full name (``Book.resolve`` never gets
here for it), an explicit ``alias`` edge (the book joins those names into one person), the same
speaker, the same conversation, or a relation to the same person ("Alice's sister Dana").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def someone_else(
    book: Book,
    group: Group,
    ties: Sequence[str],
    *,
    conversation: str | None,
    said_by: str | None,
    prefer: Sequence[str] = (),
) -> bool:
    """Is ``group`` another person than a mention tied to ``ties``? (See the module doc.)"""
    if not ties or group.id in prefer:
        return False
    if conversation is not None and any(n.meta.get("conversation") == conversation for n in group.names):
        return False
    claims = book.claims_about(group, limit=None)
    speaker = tokens(said_by) if said_by else None
    for claim in claims:
        if conversation is not None and claim.meta.get("conversation") == conversation:
            return False
        if speaker is not None and tokens(str(claim.meta.get("speaker") or "")) == speaker:
            return False
    others = [book.group(r.of if r.person == group.id else r.person) for r in book.relations(group)]
    known = [g for g in others if g is not None and g.id != group.id]
    if not known:
        return False  # nothing ties them to anybody: the name is all there is, and it fits
    return not any(_named(tie, g) for tie in ties for g in known)


def _named(name: str, group: Group) -> bool:
    """Is ``name`` one of ``group``'s names, or a short form of one?"""
    return any(tokens(n.text) == tokens(name) or fits(name, n.text) for n in group.names)
