"""The conversation wing: conversations as events, the verbatim archive, history, idle recaps.

``mem.conversation(id, scope=...)`` opens one (``Conversation``); ``mem.archive_search`` finds
exact quotes; ``mem.recap`` returns the recap of the last conversation. Every message is also a
recallable memory, and ``mem.recall`` on a scope with conversations turns on the conversation
defaults by itself (``reverie.recall.conversational``).
"""

from reverie.conversation.handle import Conversation
from reverie.conversation.history import DEFAULT_HISTORY_CHARS
from reverie.conversation.wing import DEFAULT_IDLE, ArchiveHit, Conversations, Recap
from reverie.conversation.writer import Message
from reverie.model.conversation import Entry

__all__ = [
    "DEFAULT_HISTORY_CHARS",
    "DEFAULT_IDLE",
    "ArchiveHit",
    "Conversation",
    "Conversations",
    "Entry",
    "Message",
    "Recap",
]
