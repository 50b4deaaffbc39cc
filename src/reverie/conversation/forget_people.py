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
from reverie.store.protocol import Store

#: At most this many person names are read per purge (``people.book.MAX_NAMES``).
_MAX_NAMES = 5_000


def people_commands(
    store: Store, scope: str, message: Entry, purged: Iterable[str], entries: Sequence[Entry], reason: str
) -> list[cmd.Command]:
    """The ``Unlink`` and ``Purge`` commands that erase the names only ``message`` spoke for.

    ``purged``: the items the purge erases (the message's memory, the claims mined from it);
    ``entries``: the conversation's entries (for the speakers of the messages that stay).
    """
    gone = set(purged)
    names, versions = _candidates(store, scope, message, gone)
    speakers = {e.speaker for e in entries if e.kind == "message" and e.id != message.id and e.text != REDACTED}
    doomed = [n for n in names if n.text not in speakers and not _evidence(store, scope, versions[n.id], gone)]
    out: list[cmd.Command] = []
    unlinked: set[str] = set()
    for n in doomed:
        for e in (e for v in versions[n.id] for e in store.edges(scope, v)):
            if e.type == "alias" and e.id not in unlinked:
                unlinked.add(e.id)
                out.append(cmd.Unlink(scope, e.id, reason))
    out += [cmd.Purge(scope, n.id, reason) for n in doomed]
    return out


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


def _evidence(store: Store, scope: str, name_ids: Sequence[str], gone: set[str]) -> bool:
    """Does a claim the purge keeps point ``about`` at one of ``name_ids`` (a name and its earlier versions)?"""
    linked = {e.src for i in name_ids for e in store.edges(scope, i) if e.type == "about" and e.dst == i}
    sources = sorted(linked - gone)
    held = store.get_many(scope, sources) if sources else {}
    return any(item.text != REDACTED for item in held.values())
