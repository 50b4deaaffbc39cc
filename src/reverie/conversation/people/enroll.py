"""Writing person names: a new person, or a new name (an alias) of a known one.

A name item and its alias edge are two transactions (the edge needs the item's id). If a crash
fell between them, the name would stand alone as a person of its own until someone links it;
nothing else is left half-written.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.conversation.host import ConversationHost
from reverie.conversation.people.book import PERSON_KIND, Book, Group
from reverie.conversation.people.evidence import someone_else
from reverie.conversation.people.names import check_person_name, tokens
from reverie.model import commands as cmd
from reverie.model.item import Provenance
from reverie.model.visibility import covers

AUTHOR = "reverie:people"


def name_command(
    scope: str, name: str, *, conversation: str | None, speaker: bool, visibility: tuple[str, ...] = ()
) -> cmd.Remember:
    meta: dict[str, object] = {"person": name, "speaker": speaker}
    if conversation is not None:
        meta["conversation"] = conversation
    return cmd.Remember(
        scope=scope,
        text=name,
        kind=PERSON_KIND,
        source="observed",
        author=AUTHOR,
        meta=meta,
        provenance=Provenance(origin="conversation", ref=conversation),
        corroborate=False,
        visibility=visibility,
    )


class Enroller:
    """Finds or writes the name item a mention should be linked to; keeps its ``Book`` fresh."""

    def __init__(self, host: ConversationHost, scope: str) -> None:
        self._host = host
        self.scope = scope
        self.book = Book(host.store, scope)

    def ensure(
        self,
        mention: str,
        *,
        conversation: str | None,
        speaker: bool = False,
        prefer: Sequence[str] = (),
        visibility: tuple[str, ...] = (),
        said_by: str | None = None,
        ties: Sequence[str] = (),
    ) -> str:
        """The id of the name item for ``mention``: an existing one, a new alias, or a new person.

        A new name is shown to ``visibility`` (the audience of the message that named it first).
        A known name is reused only when its audience covers ``visibility`` (every reader of the
        mention may see it); otherwise the mention gets a name item of its own audience, an alias
        of the same person. Why: the claim's ``about`` edge points at the name returned, and an
        edge with a hidden end is hidden, so a person first named in a restricted message stayed
        invisible as a person to the readers of every later public message about them (outside
        probe 4, finding 13). Widening the known name instead would show them its ``meta`` and
        provenance, which name the restricted message's conversation.
        ``prefer`` (the conversation's persons, most recent first) breaks a tie between people a
        mention fits; never for a ``speaker``, a participant — not someone the talk was about.
        ``ties`` (the names the message's relations tie the mention to: ``evidence.tie_index``)
        and ``said_by`` (its speaker): a short name the message ties to other people than a known
        person's relations do, said by another speaker in another conversation, is not that person
        (``evidence``): Alice's sister Dana is not Carl's friend Dana until something says so.

        Raises what ``remember`` raises (a dismissed name, learning paused); writes nothing then.
        """
        name = check_person_name(mention)
        book = self.book

        def rule_out(g: Group) -> bool:
            return someone_else(book, g, ties, conversation=conversation, said_by=said_by, prefer=prefer)

        group = book.resolve(
            name, prefer=() if speaker else prefer, rule_out=rule_out if ties and not speaker else None
        )
        if group is not None:
            for n in group.names:
                if tokens(n.text) == tokens(name) and covers(visibility, n.audience):
                    return n.id
        new = name_command(self.scope, name, conversation=conversation, speaker=speaker, visibility=visibility)
        out = self._host.run([new], [name])
        new_id = out[0].item_id
        assert new_id is not None
        if group is not None:
            self._host.run([cmd.Link(self.scope, "alias", new_id, group.id, AUTHOR, 0.7, {"rule": "name fits"})])
        item = self._host.store.get(self.scope, new_id)
        if item is None or not item.is_current or self.book.group(new_id) is not None:
            # not a new name item as written (gone, or one the book holds already): read it again
            self.book = Book(self._host.store, self.scope)
        else:
            self.book.add(item, group)  # one row, not every name of the scope again
        return new_id

    def person_of(self, item_id: str) -> str:
        """The person id (oldest name) of a name item."""
        group = self.book.group(item_id)
        return group.id if group is not None else item_id
