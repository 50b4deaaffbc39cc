"""Which items of a slice would bring back the words of a message or claim purged here (outside probe 2, #7).

A sandbox works on a copy of a conversation; meanwhile the message is purged at home. The
sandbox's later work can still hold its words: the claims mined from it, a later turn's claim that
borrowed a name from it ("She also has a cat" → "Zorvina also has a cat"), the person record only it
named, any item quoting it. A purge at home erases exactly these (``Writer.purge_message``), so an
import leaves them out, reported ``skipped`` with ``"purged here"``: purge's promise, "leaves
nothing", holds after a merge. (The later turns' memories are re-derived, not left out, and the
recaps covering the message are appended erased: ``slice_conversations``.)

Read from the slice alone, before the import's transaction: the purged entries are those the slice
carries whose entry here is purged (``ConversationsPlan.purged``), so their words are at hand.
"""

from __future__ import annotations

from reverie.conversation.borrowed import names_borrowed
from reverie.conversation.people.book import PERSON_KIND
from reverie.memory.slice_conversations import ConversationsPlan
from reverie.model.conversation import quote_span
from reverie.model.redact import quotes
from reverie.slice.conversations import SliceEntry
from reverie.slice.format import Slice


def purged_items(sl: Slice, talks: ConversationsPlan) -> set[str]:
    """The slice ids of the items that quote, were mined from, or only speak for a purged message.

    ``sl``: the slice as sent (entry ids and ``meta.message_id`` naming the slice's entries).
    """
    if not talks.purged:
        return set()
    purged_ids = {p.id for p in talks.purged}
    texts = [p.text for p in talks.purged if p.text]
    entries = {e.id: e for c in sl.conversations or () for e in c.entries}
    names = {c.id for c in sl.conversations or ()}
    out: set[str] = set()
    for it in sl.items:
        if it.id in talks.memory_text or it.kind == PERSON_KIND:
            continue  # a turn's memory here is re-derived; a name is decided below, by its evidence
        source = it.meta.get("message_id")
        own = entries.get(source) if isinstance(source, str) else None
        borrowed = own is not None and _borrows(it.text, own, talks.after_purged.get(own.id, []))
        # Quoting is asked of the conversation's own items only (memories, mined claims): a short
        # purged message ("ok") is a substring of many unrelated claims elsewhere in the slice.
        quoting = it.meta.get("conversation") in names and quotes(it.text, texts)
        if source in purged_ids or quoting or borrowed:
            out.add(it.id)
    out |= _people(sl, talks, out, texts)
    return out


def _borrows(text: str, own: SliceEntry, purged: list[SliceEntry]) -> bool:
    """Whether a claim mined from ``own`` put in a name only one of the ``purged`` messages said."""
    return any(names_borrowed(text, own.text, own.speaker, p.text) for p in purged)


def _people(sl: Slice, talks: ConversationsPlan, gone: set[str], texts: list[str]) -> set[str]:
    """The person records only the purged messages (or the claims left out) spoke for."""
    about: dict[str, set[str]] = {}
    for e in sl.edges:
        if e.type == "about":
            about.setdefault(e.dst, set()).add(e.src)
    speakers = {
        e.speaker
        for c in sl.conversations or ()
        for e in c.entries
        if e.kind == "message" and e not in talks.purged and e.speaker is not None
    }
    out: set[str] = set()
    for it in sl.items:
        if it.kind != PERSON_KIND or it.text in speakers:
            continue
        sources = about.get(it.id, set())
        named = any(quote_span(t, it.text) is not None for t in texts)
        if (named or sources & gone) and not sources - gone:
            out.add(it.id)
    return out


def claim_copies(sl: Slice, erased: set[str]) -> set[str]:
    """The slice ids of the system's copies of claims purged here, transitively (not ``erased`` itself).

    ``erased``: the slice's items whose claim is purged here (found by origin). A sandbox's dream
    pass may have made a gist of one (a parent) or a pattern of it (``derived_from``) quoting its
    words, under an origin home never saw: a purge here erases exactly such copies
    (``model.redact.purge_set``: source ``system``, made from a purged item, quoting it), so a merge
    leaves them out by the same rule. The slice still holds the purged words (the sandbox kept
    them), so the quote is tested against them. An item a caller wrote, or a system item in its own
    words, is kept, as a purge here keeps it.
    """
    items = {it.id: it for it in sl.items}
    made_from: dict[str, set[str]] = {}  # item id -> the slice items made from it
    for it in sl.items:
        for parent in it.parents:
            made_from.setdefault(parent, set()).add(it.id)
    for e in sl.edges:
        if e.type == "derived_from":
            made_from.setdefault(e.dst, set()).add(e.src)
    texts = [items[i].text for i in erased if i in items]
    out: set[str] = set()
    frontier = sorted(erased)
    while frontier:
        found = sorted({c for f in frontier for c in made_from.get(f, ())} - erased - out)
        frontier = []
        for child in (items[c] for c in found if c in items):
            if child.original_source == "system" and quotes(child.text, texts):
                out.add(child.id)
                texts.append(child.text)
                frontier.append(child.id)
    return out


__all__ = ["claim_copies", "purged_items"]
