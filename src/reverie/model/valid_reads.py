"""Which versions of a claim a valid-time read ("what was true in the world at T") answers with.

Why (outside probe 6, finding 4): ``forget`` closes a claim's validity at the forget time
(``valid_to``) and deletes nothing, so the claim still says it held until then; the valid-time
reads (``get`` / ``list`` / ``recall`` with ``valid_at``) asked "believed now" and so lost every
forgotten claim — by a person or a dream pass's keep-budget — for every T, including the T its own
``valid_to`` covers. A version *stands* in valid time when it is believed (record time open) or
forgotten: its interval is what we hold about it. A correction (superseded) or a dismissal says it
was never true, and a purge erased what it said, so those never answer at any valid time; nor does
a gist forgotten because every claim it restates was corrected or dismissed (``RETRACTED_FLAG``,
set by that forget: the gist was never true either, only its sources' corrected-away words).
"""

from __future__ import annotations

from reverie.model.item import Item
from reverie.model.query import Filter, Q
from reverie.model.redact import PURGED_FLAG

#: Set on a claim forgotten as retracted (a gist left with no standing source, ``model.gists``):
#: its validity is not "true until the forget" but never, so valid-time reads leave it out.
RETRACTED_FLAG = "retracted"


def stands(item: Item) -> bool:
    """May ``item`` answer a valid-time read (its valid interval is still what we hold)?"""
    if item.is_current:
        return True
    return item.status == "forgotten" and PURGED_FLAG not in item.flags and RETRACTED_FLAG not in item.flags


def standing() -> Filter:
    """``stands`` as a query-algebra filter (every backend compiles it)."""
    return Q.status("live") | (Q.status("forgotten") & ~Q.flag(PURGED_FLAG) & ~Q.flag(RETRACTED_FLAG))
