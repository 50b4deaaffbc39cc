"""Who "I" is in a question: a question asked in a conversation is rewritten to name its asker.

"Where does my sister live?" asked by Alice becomes "Where does Alice's sister live?", which the
recall hook (``people.recall_hook``) then resolves to the person Alice's sister is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_MY = re.compile(r"\b(my|our)\b", re.I)
_ME = re.compile(r"\b(I|me|myself)\b")
_IM = re.compile(r"\bI'm\b")


#: ``Memory.recall``'s shape (query, ``scope=``, options) plus ``asked_in=`` (``asked_in.AskedIn``),
#: as ``Conversation.recall`` uses it (``Retrieval.recall_in``).
Recall = Callable[..., list[Any]]


def first_person_query(query: str, asker: str) -> str:
    """``query`` with the asker's first-person words replaced by their name."""
    text = _MY.sub(f"{asker}'s", query)
    text = _IM.sub(f"{asker} is", text)
    return _ME.sub(asker, text)
