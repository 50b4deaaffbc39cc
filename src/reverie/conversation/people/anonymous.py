"""The speaker of a message that gives none: that conversation's own user, and no person record.

Why: ``speaker`` is optional in ``conv.add``. Messages without one were all mined as said by
"the user", one person of the scope, so in a support scope two tickets' customers became one
person whose facts ("I live in Porto." / "I live in Berlin.") contradicted each other (outside
probe 4, finding 9). Nothing says two anonymous speakers are one person, or who either is:

- within a conversation the anonymous speaker is one person ("I live in Porto." then "I live in
  Berlin." in one ticket is a contradiction worth showing);
- the claims name them by their conversation ("The user of ticket-1 lives in Porto."), so they
  say whose they are, recall finds them by the conversation, and no two conversations' anonymous
  speakers are one holder;
- no person record is made for them: a person is a name, and "the user of ticket-1" is not one
  (``people()`` would list every ticket). Persons they name ("my sister Dana") are enrolled as
  always; a relation to the anonymous speaker has no person on their side, so none is listed.
"""

from __future__ import annotations


def anonymous_speaker(conversation: str) -> str:
    """How the claims of a message without a speaker in ``conversation`` name the one who said it."""
    return f"the user of {conversation}"
