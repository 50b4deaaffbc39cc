"""A move said in the first person also says where the speaker lives now.

Why (outside probe 7, finding 2): "Correction: I moved to Denver." after "I live in Boston."
was mined as "Alice moved to Denver.", which the contradiction rules rightly read as a change
over time, not a conflict — so reverie went on believing Alice lives in Boston. A move the
speaker reports as done, undated or recent ("I moved to Denver", "I've just relocated to
Lisbon", "I moved back to Oslo last month"), says that they live there now: the present-state
claim "Alice lives in Denver." is written beside it, and meets the old residence as the
contradiction it is.

Only a place the caller recognises counts (``is_place``: the place table of ``conflict.places``,
handed in by the memory layer, which this package may not import): "I moved to Google" or "I
moved to Marketing" says nothing of where anyone lives. A dated or long-past move ("moved to
Denver in 2010", "had moved"), a plan ("I'm moving to Denver", "will move") and a hedged or
hearsay move are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from reverie.conversation.proposal import Proposal

#: Is this name (as said) a place? (None: no place check, so no present-state claim is made.)
PlaceCheck = Callable[[str], bool]

_MOVE = re.compile(
    r"^(?P<who>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,3}) (?:(?:has|have) )?(?:just |recently |finally |now )?"
    r"(?:moved|relocated)(?: back)? to (?P<place>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,3})"
    r"(?P<when>(?: (?:recently|last (?:week|month|year)|this (?:week|month|year)|yesterday"
    r"|a (?:few )?(?:days|weeks|months) ago))?)$"
)


def residence(found: Proposal, is_place: PlaceCheck | None) -> Proposal | None:
    """ "Alice lives in Denver." for a first-person "Alice moved to Denver.", else None."""
    if is_place is None or not found.first_person or found.hedged or found.relation is not None:
        return None
    m = _MOVE.match(found.text.strip().rstrip("."))
    if m is None or found.subject is None or m.group("who") != found.subject:
        return None
    place = m.group("place")
    if not is_place(place):
        return None
    return replace(found, text=f"{m.group('who')} lives in {place}.")


__all__ = ["PlaceCheck", "residence"]
