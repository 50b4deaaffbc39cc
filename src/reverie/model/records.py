"""Items that are records, not beliefs: a conversation message's memory and a person record.

Both are stored as items so recall, history and purge treat them like everything else, but
neither is something the memory holds true about the world: a message's memory is a transcript
(what was said, word for word; the claims mined from it are the beliefs), and a person record is
the entry the people book keeps for a name. Checks of how beliefs were formed (the dream pass's
bias alerts) must not count them (outside probe 4, finding 16: a user's own chat log made her
facts look like a one-source risk).

Here, in ``model``, because the layers that ask (``dream``) may not import ``conversation``,
which writes them; ``tests/metacog/test_bias_alerts_count_beliefs.py`` pins the names to it.
"""

from __future__ import annotations

from reverie.model.item import Item

#: The kind of a person record (``conversation.people.PERSON_KIND``).
PERSON_KIND = "person"
#: ``meta`` keys every conversation message's memory carries (``conversation.writer``): which
#: conversation and which archived message it is the memory of.
MESSAGE_META = ("conversation", "message")


def is_message_memory(item: Item) -> bool:
    """``item`` is the recallable memory of one conversation message (its transcript)."""
    return all(k in item.meta for k in MESSAGE_META)


def is_record(item: Item) -> bool:
    """``item`` is a record (a message's memory or a person record), not a belief."""
    return item.kind == PERSON_KIND or is_message_memory(item)


__all__ = ["MESSAGE_META", "PERSON_KIND", "is_message_memory", "is_record"]
