"""The people capability of the facade: ``mem.people(scope=...)`` and ``mem.person(name_or_id, scope=...)``."""

from __future__ import annotations

import builtins

from reverie.conversation.host import ConversationHost
from reverie.conversation.people.book import Book, Group, Person, PersonSummary
from reverie.conversation.people.names import check_person_name
from reverie.errors import InvalidInputError, NotFoundError
from reverie.model.item import Item


class People:
    """Reads the person records of a scope (they are written by conversation extraction)."""

    def __init__(self, host: ConversationHost) -> None:
        self._host = host

    def people(self, *, scope: str) -> builtins.list[PersonSummary]:
        """Every person of ``scope``, oldest first: name, aliases, attributes, relations and how
        many current claims are about them (``claim_count``); ``person(id)`` gives the claims."""
        s = self._host.scope(scope)
        return Book(self._host.store, s, now=self._host.clock.now()).summaries()

    def person(self, name_or_id: str, *, scope: str) -> Person:
        """One person, found by id or by any of their names ("Bob", "Robert" and "Bob Smith" are
        one person), with their relations (both ways, each with the claim that says it) and the
        current claims about them, newest first.

        ``NotFoundError`` if nobody in ``scope`` has that name or id; ``InvalidInputError`` if the
        name fits several people (give the full name or the id; the error also lists the mentions
        of it extraction attributed to none of them), is the id of such a mention (it says whom it
        may be: ``mem.link(mention, person, "alias")`` attributes it), or is not a plain name.
        """
        s = self._host.scope(scope)
        wanted = check_person_name(name_or_id, "name_or_id")
        book = Book(self._host.store, s, now=self._host.clock.now())
        mention = book.pending_item(wanted)
        if mention is not None:
            raise InvalidInputError(
                f"{wanted!r} is a mention of {mention.text!r} not attributed to anyone in scope {s!r} "
                f"(it may be {_named(book, mention)}); {_LINK}"
            )
        group = book.group(wanted) or book.resolve(wanted)
        if group is None:
            several = book.fitting(wanted)
            if len(several) > 1:
                # Two people of one name (Alice's sister Dana, Carl's friend Dana) are told apart by id.
                pending = book.pending(wanted)
                unsure = (
                    f"; {len(pending)} mention(s) of {wanted!r} are not attributed to any of them "
                    f"({', '.join(n.id for n in pending)}): {_LINK}"
                    if pending
                    else ""
                )
                raise InvalidInputError(
                    f"{wanted!r} fits several people in scope {s!r} ({_listed(several)}); "
                    f"give the full name or the person's id{unsure}"
                )
            raise NotFoundError(f"no person {wanted!r} in scope {s!r}; mem.people(scope=...) lists who is known")
        return book.person(group)


#: How a mention attributed to nobody (``book.is_ambiguous``) is attributed.
_LINK = "mem.link(mention_id, person_id, 'alias', scope=...) says who a mention is"


def _listed(groups: builtins.list[Group]) -> str:
    """Persons by name, those sharing a name told apart by id."""
    shown = [g.display for g in groups]
    return ", ".join(
        sorted(d if shown.count(d) == 1 else f"{d} [id {g.id}]" for d, g in zip(shown, groups, strict=True))
    )


def _named(book: Book, mention: Item) -> str:
    """The persons ``mention`` was said to maybe be, as they are now (gone ones left out)."""
    found = {g.id: g for c in mention.meta.get("ambiguous", ()) if (g := book.group(str(c))) is not None}
    return _listed(builtins.list(found.values())) if found else "nobody known any more"
