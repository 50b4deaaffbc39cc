"""Whom each thing made from a conversation may be shown to: per-audience contexts, recaps and summaries.

A message carries an audience (``Entry.visibility``): its conversation's, or a narrower one. What
reverie makes from several messages — a message's context (the turns before it), a recap, a history
summary, a claim whose pronoun borrows a name from an earlier turn — is shown to one audience as a
whole, so it may quote only the messages that *whole* audience may see (``model.visibility.covers``).
Why one text per audience rather than one text hidden from anyone missing a message: a recap hidden
from everyone who misses one restricted line would hide the session's recap from nearly everyone;
made per audience, each reader gets the recap of what it may read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reverie.errors import InvalidInputError
from reverie.model.conversation import OWNER_ONLY, ConversationState, Entry
from reverie.model.visibility import check_visibility, covers, may_see


def message_audience(visibility: object, state: ConversationState) -> tuple[str, ...]:
    """A message's audience from the caller's ``visibility``: None is the conversation's; a list
    must narrow it (never widen it: ``InvalidInputError`` naming the fix)."""
    if visibility is None:
        return state.visibility
    wanted = check_visibility(visibility)
    if not covers(wanted, state.visibility):
        raise InvalidInputError(
            f"visibility {list(wanted)} would widen the audience of conversation {state.id!r} "
            f"({list(state.visibility) or 'everyone'}); a message may only narrow it: name principals among "
            f"{list(state.visibility)}, or leave visibility out for the conversation's audience"
        )
    return wanted


def quotable(audience: Sequence[str], entries: Iterable[Entry]) -> list[Entry]:
    """The entries something made for ``audience`` may quote: those its whole audience may see."""
    return [e for e in entries if covers(audience, e.visibility)]


def audiences(state: ConversationState, entries: Iterable[Entry]) -> list[tuple[str, ...]]:
    """The audiences to make a recap or summary of ``entries`` for: each narrower audience among
    them (sorted), then the conversation's own last (the one that releases a session)."""
    narrower = {e.visibility for e in entries if e.visibility != state.visibility and e.visibility != OWNER_ONLY}
    return [*sorted(narrower), state.visibility]


def narrowed_to(made_for: tuple[str, ...], source: tuple[str, ...]) -> tuple[str, ...]:
    """The audience of a recap or summary made for ``made_for`` once a message it quoted is visible
    only to ``source``: the principals in both; ``OWNER_ONLY`` when they share none."""
    if covers(made_for, source):
        return made_for
    if not made_for:
        return source
    return tuple(sorted(set(made_for) & set(source))) or OWNER_ONLY


def best_for(principal: str | None, candidates: Iterable[Entry]) -> Entry | None:
    """Of several recaps or summaries of one stretch, the one ``principal`` may see that holds the most
    messages (ties: the latest written). The owner (None) sees every one."""
    mine = [e for e in candidates if may_see(e.visibility, principal)]
    if not mine:
        return None
    return max(mine, key=lambda e: (int(e.meta.get("messages", 0)), e.position))


__all__ = ["OWNER_ONLY", "audiences", "best_for", "message_audience", "narrowed_to", "quotable"]
