"""The scope page's links to the conversation and people views (``convpage``).

Apart from ``convpage`` so ``page`` can show them without importing the module that imports it.
A scope with no conversations and nobody known shows nothing, so the page stays as it was for
memories that do not use the conversation wing.
"""

from __future__ import annotations

from reverie.errors import ReverieError
from reverie.http import render as r
from reverie.memory import Memory


def panel(mem: Memory, scope: str) -> r.Safe:
    """A short section: how many conversations and people, each a link to its view."""
    try:
        conversations = len(mem.conversations(scope=scope))
        people = len(mem.people(scope=scope))
    except ReverieError:  # a backend without the conversation wing: the rest of the page still renders
        return r.EMPTY
    if not conversations and not people:
        return r.EMPTY
    return r.fmt(
        '<section class="conversations-links"><h3>Conversations and people</h3><p>'
        '<a class="conversations-link" href="{c}">{nc} conversations</a> · '
        '<a class="people-link" href="{p}">{np} people</a></p></section>',
        c=r.url("/conversations", scope=scope),
        nc=conversations,
        p=r.url("/people", scope=scope),
        np=people,
    )
