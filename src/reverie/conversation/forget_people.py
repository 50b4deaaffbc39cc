"""What a message's purge must also erase of the people it named: names that no other evidence holds.

A person record is derived data (``people.book``): name items of kind ``person``, the ``alias``
edges between them and the claims ``about`` them (relations are such claims). Purging a message
purges the claims mined from it, but the name items they were about stayed — so a name only
that message ever said outlived its purge ("a person's name stays after the message that
introduced it is purged"). A purge must leave nothing of the message, so here a name goes too
when, once the purge is done, nothing else speaks for it:

- no ``about`` edge into it comes from a claim that survives the purge (a claim mined from
  another message, or written by anyone else, in any status: a forgotten claim still holds the
  name in its text, so it still speaks for it);
- it is not the speaker of another message of the conversation still in the archive.

Which names are looked at: the ones the purged claims were about, and the ones the message's
text names word for word (a name enrolled for a claim that was then refused has no ``about``
edge at all, yet came from this message). A name with no evidence that the message merely
mentions is erased with it: nothing points at such a record, and the next mention enrolls the
name again. The current ``alias`` edges of an erased name are unlinked in the same transaction,
so no relation points at an erased record.

What a public name tells of a restricted message (leftover of outside probe 4, findings 3 and
13): a known name is reused by a mention of a narrower audience (``people.enroll``), so a public
name can be vouched for only by claims some of its readers may not see — once the public message
is purged, ``agent:b`` still saw the person, so some hidden claim named them. So evidence is
weighed by audience: a name whose surviving evidence no longer reaches all its readers is
narrowed to the readers of that evidence (``SetVisibility``), and a name's purge, narrowing and
alias unlinks carry reverie's words (``NAME_LEFT``) instead of the owner's reason whenever some
reader of the name may not see the purged message (the owner's reason for erasing a restricted
message was read by everyone in the public name's ``memory.purged`` event).

A name revised since ("Quillonby" → "Quillonby Hart") is looked at as its current version: the
``about`` and ``alias`` edges stay on the version extraction wrote, and ``Purge`` of the current
one erases every version (session 31: the purge saw no current name those edges point to and
kept both versions, the message's name in them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reverie.conversation.people.book import PERSON_KIND, earlier_names
from reverie.model import commands as cmd
from reverie.model.conversation import Entry, quote_span
from reverie.model.item import Item
from reverie.model.query import Q, parse_sort
from reverie.model.redact import REDACTED
from reverie.model.visibility import covers
from reverie.store.protocol import Store

#: At most this many person names are read per purge (``people.book.MAX_NAMES``).
_MAX_NAMES = 5_000
#: The reason on a name's change that some of its readers may not see the purged message for
#: (reverie's words, never the owner's).
NAME_LEFT = "no longer named by anything this name's readers may see"


def people_commands(
    store: Store, scope: str, message: Entry, purged: Iterable[str], entries: Sequence[Entry], reason: str
) -> list[cmd.Command]:
    """The ``Unlink``, ``Purge`` and ``SetVisibility`` commands for the names only ``message`` spoke
    for (erased), or spoke for to some of their readers (narrowed to the others).

    ``purged``: the items the purge erases (the message's memory, the claims mined from it);
    ``entries``: the conversation's entries (for the speakers of the messages that stay).
    """
    gone = set(purged)
    names, versions = _candidates(store, scope, message, gone)
    spoken = [e for e in entries if e.kind == "message" and e.id != message.id and e.text != REDACTED]
    unlinks: list[cmd.Command] = []
    changes: list[cmd.Command] = []
    unlinked: set[str] = set()
    for n in names:
        held = _evidence(store, scope, versions[n.id], gone) + [e.visibility for e in spoken if e.speaker == n.text]
        audience = _vouched(n.audience, held)
        told = reason if covers(n.audience, message.visibility) else NAME_LEFT
        if audience is None:
            for e in (e for v in versions[n.id] for e in store.edges(scope, v)):
                if e.type == "alias" and e.id not in unlinked:
                    unlinked.add(e.id)
                    unlinks.append(cmd.Unlink(scope, e.id, told))
            changes.append(cmd.Purge(scope, n.id, told))
        elif audience != n.audience:
            changes.append(cmd.SetVisibility(scope, n.id, audience, NAME_LEFT))
    return unlinks + changes


def _vouched(name: tuple[str, ...], held: Sequence[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The audience a name keeps: its own, within the readers of what still vouches for it
    (``held``: each piece of evidence's audience); None when nothing does (the name goes)."""
    if not held:
        return None
    if any(not h for h in held):
        return name  # something everyone may see names them
    readers = {p for h in held for p in h}
    kept = readers if not name else set(name) & readers
    return tuple(sorted(kept)) or None


def _candidates(store: Store, scope: str, message: Entry, gone: set[str]) -> tuple[list[Item], dict[str, list[str]]]:
    """The live name items the purged claims were about (a revised name: its current version), and
    those the message names word for word; with each name item's id and earlier versions' ids."""
    where = Q.kind(PERSON_KIND) & Q.status("live")
    names = store.query(scope, where, parse_sort(None), limit=_MAX_NAMES)
    current_of = earlier_names(store, scope, names)
    about = {
        current_of.get(e.dst, e.dst)
        for i in sorted(gone)
        for e in store.edges(scope, i)
        if e.type == "about" and e.src == i
    }
    picked = sorted(
        (n for n in names if n.id in about or quote_span(message.text, n.text) is not None), key=lambda n: n.id
    )
    versions = {n.id: [n.id] for n in picked}
    for old, now in current_of.items():
        if now in versions:
            versions[now].append(old)
    return picked, versions


def _evidence(store: Store, scope: str, name_ids: Sequence[str], gone: set[str]) -> list[tuple[str, ...]]:
    """The audiences of the claims the purge keeps that point ``about`` at one of ``name_ids`` (a
    name and its earlier versions): empty when none does."""
    linked = {e.src for i in name_ids for e in store.edges(scope, i) if e.type == "about" and e.dst == i}
    sources = sorted(linked - gone)
    held = store.get_many(scope, sources) if sources else {}
    return [item.audience for _, item in sorted(held.items()) if item.text != REDACTED]
