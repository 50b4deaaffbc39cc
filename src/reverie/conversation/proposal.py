"""What an extractor proposes: one candidate claim from one message (``Proposal``), and the
categories and confidences the rules give it. Its own module so the rules (``extract``,
``relations``, ``claims``) and the model extractor (``llm``) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What a claim is, by the words that carry it.
CATEGORIES = ("fact", "preference", "plan", "decision", "relation")
#: How sure a claim is whose subject was left out and supplied from the talk ("900 quid last time").
FRAGMENT_CONFIDENCE = 0.5


@dataclass(frozen=True, slots=True)
class Proposal:
    """One candidate claim from one message.

    ``subject`` is the name (as said, or the speaker's) of the person it is about; ``mentions``
    the other people it names; ``relation`` = (person, relation noun, of whom) for a relation.
    ``first_person``: the speaker said it of themselves (stated), else it is hearsay (observed).
    ``hedged``: said as hearsay or a guess ("I heard that …", "Dana probably …"), so it is
    written as a hypothesis, not a fact (``conversation.hedging``).
    """

    text: str
    subject: str | None
    category: str
    first_person: bool
    mentions: tuple[str, ...] = ()
    relation: tuple[str, str, str] | None = None
    origin: str = "rules"
    confidence: float = 0.7
    hedged: bool = False
