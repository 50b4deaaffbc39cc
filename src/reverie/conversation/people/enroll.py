"""Writing person names: a new person, or a new name (an alias) of a known one.

A name item and its alias edge are two transactions (the edge needs the item's id). If a crash
fell between them, the name would stand alone as a person of its own until someone links it;
nothing else is left half-written.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.conversation.host import ConversationHost
from reverie.conversation.people.book import PERSON_KIND, Book, Group
from reverie.conversation.people.evidence import Mention, Seen, choose, someone_else
from reverie.conversation.people.names import check_person_name, tokens
from reverie.model import commands as cmd
from reverie.model.item import Provenance
from reverie.model.visibility import covers

AUTHOR = "reverie:people"


def name_command(
    scope: str,
    name: str,
    *,
    conversation: str | None,
    speaker: bool,
    visibility: tuple[str, ...] = (),
    ambiguous: Sequence[str] = (),
) -> cmd.Remember:
    meta: dict[str, object] = {"person": name, "speaker": speaker}
    if conversation is not None:
        meta["conversation"] = conversation
    if ambiguous:
        meta["ambiguous"] = list(ambiguous)  # ``book.is_ambiguous``: no person until linked to one
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
        and ``said_by`` (its speaker; None in a conversation: an anonymous one): a short name the
        message ties to other people than a known person's relations do, said by another speaker
        in another conversation, is not that person (``evidence.someone_else``): Alice's sister
        Dana is not Carl's friend Dana until something says so. A short name several persons
        remain for goes to the one the evidence picks (``evidence.choose``); when none stands out
        it is a mention attributed to nobody (``_ambiguous``), not a new person.

        Raises what ``remember`` raises (a dismissed name, learning paused); writes nothing then.
        """
        name = check_person_name(mention)
        book = self.book
        if speaker:
            group = book.resolve(name)
        else:
            said, seen = Mention(name, conversation, said_by, prefer, ties), Seen()
            group = book.held(name)
            candidates = [] if group is not None else book.contenders(name, lambda g: someone_else(book, g, said, seen))
            if group is None:
                group = choose(book, candidates, said, seen)
            if group is None and len(candidates) > 1 and len(tokens(name)) == 1:
                return self._ambiguous(name, candidates, conversation, visibility)
            if group is not None and conversation is not None:
                group = self._attribute(name, group, conversation)
        if group is not None:
            for n in group.names:
                if tokens(n.text) == tokens(name) and covers(visibility, n.audience):
                    return n.id
        new = name_command(self.scope, name, conversation=conversation, speaker=speaker, visibility=visibility)
        new_id = self._write(new, name)
        if group is not None:
            self._host.run([cmd.Link(self.scope, "alias", new_id, group.id, AUTHOR, 0.7, {"rule": "name fits"})])
        self._took(new_id, group)
        if group is None and not speaker and conversation is not None and (made := self.book.group(new_id)):
            self._attribute(name, made, conversation)  # a person of their own: who the name was here
        return new_id

    def _write(self, command: cmd.Remember, name: str) -> str:
        out = self._host.run([command], [name])
        new_id = out[0].item_id
        assert new_id is not None
        return new_id

    def _took(self, new_id: str, group: Group | None) -> None:
        """Take the name item just written into the book (a new person, a new name of ``group``, or
        a mention attributed to nobody)."""
        item = self._host.store.get(self.scope, new_id)
        if item is None or not item.is_current or self.book.group(new_id) is not None:
            # not a new name item as written (gone, or one the book holds already): read it again
            self.book = Book(self._host.store, self.scope)
        else:
            self.book.add(item, group)  # one row, not every name of the scope again

    def _ambiguous(
        self, name: str, candidates: Sequence[Group], conversation: str | None, visibility: tuple[str, ...]
    ) -> str:
        """The mention of ``name`` attributed to nobody in ``conversation`` (written the first time).

        Why not a new person: "Dana" said by Bea, with Alice's sister Dana and Carl's friend Dana
        known and nothing in Bea's talk pointing to either, is most likely one of them; a third
        person would be listed by ``people()`` and answer for a Dana nobody else spoke of. Why not
        the likelier of the two: nothing says which, and a claim filed under the wrong Dana is
        answered by recall as hers. So the claim is about nobody for now, recall still finds it by
        its words, ``person("Dana")`` lists the mention beside the candidates, and an ``alias`` link
        (``mem.link(mention, person, "alias")``) — or a later mention in this conversation that
        evidence ties to one of them (``_attribute``) — says who it is. One mention per
        conversation and name: within a conversation a name is one person.
        """
        for n in self.book.pending(name):
            if n.meta.get("conversation") == conversation and covers(visibility, n.audience):
                return n.id
        ids = [g.id for g in candidates]
        new = name_command(
            self.scope, name, conversation=conversation, speaker=False, visibility=visibility, ambiguous=ids
        )
        new_id = self._write(new, name)
        self._took(new_id, None)
        return new_id

    def _attribute(self, name: str, group: Group, conversation: str) -> Group:
        """Join to ``group`` the mentions of ``name`` in ``conversation`` attributed to nobody: within
        a conversation a name is one person, so a later mention there that evidence ties to a
        person — a candidate, or one of their own ("my cousin Dana") — says who it was (``_ambiguous``)."""
        pending = [n for n in self.book.pending(name) if n.meta.get("conversation") == conversation]
        if not pending:
            return group
        meta = {"rule": "same conversation"}
        self._host.run([cmd.Link(self.scope, "alias", n.id, group.id, AUTHOR, 0.7, meta) for n in pending])
        self.book = Book(self._host.store, self.scope)
        return self.book.group(group.id) or group

    def person_of(self, item_id: str) -> str:
        """The person id (oldest name) of a name item."""
        group = self.book.group(item_id)
        return group.id if group is not None else item_id
