"""The words reverie writes for a suggested intent, and how a read recognises them later.

``mem.intents.suggest`` proposes "confirm or correct" intents from the thinking queue, and
``accept`` stores them with these words. They are reverie's own text *about a claim*: the label
names the claim's ``kind`` (an open vocabulary, so it can carry anything) and its id, the reason
its importance, authority and queue priority. A principal that may not see the claim must be
shown none of that (README, Guarantees 7), so ``model.conceal`` needs to tell these words from a
caller's: both the writer and the recogniser live here, so they cannot drift apart.

Pure: no I/O.
"""

from __future__ import annotations

import re

#: What a principal that may not see the claim is shown instead of the label (the reason: "").
WITHHELD_LABEL = "Confirm or correct the uncertain claim"

_ID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_NUM = r"-?\d+\.\d\d"
_LABEL = re.compile(rf"Confirm or correct the uncertain .+ (?P<id>{_ID})", re.DOTALL)
_REASON = re.compile(
    rf"important \({_NUM}\) but uncertain \(authority {_NUM}\): thinking-queue priority {_NUM} = "
    r"importance × \(1 − authority\); confirm it from a source or the user, or correct it"
)


def suggestion_label(kind: str, item_id: str) -> str:
    """The label of the intent suggested for claim ``item_id`` of ``kind``."""
    return f"Confirm or correct the uncertain {kind} {item_id}"


def suggestion_reason(importance: float, authority: float, priority: float) -> str:
    """The reason of that intent: the claim's scores and the queue priority they give."""
    return (
        f"important ({importance:.2f}) but uncertain (authority {authority:.2f}): thinking-queue priority "
        f"{priority:.2f} = importance × (1 − authority); confirm it from a source or the user, or correct it"
    )


def suggested_about(label: str) -> str | None:
    """The claim id a suggestion's ``label`` was written for, or None if ``label`` is not one."""
    found = _LABEL.fullmatch(label)
    return None if found is None else found.group("id")


def is_suggestion_reason(reason: str) -> bool:
    """Whether ``reason`` is the words ``suggestion_reason`` writes."""
    return _REASON.fullmatch(reason) is not None


__all__ = ["WITHHELD_LABEL", "is_suggestion_reason", "suggested_about", "suggestion_label", "suggestion_reason"]
