"""Event order said in other words: "A before B" against "B, then A" or "A after B".

Why: ``swap`` catches the same two phrases trading places around one pivot word. People also
reorder with other words and add detail: "Leila graduated before she moved" / "Leila moved
two years before she graduated"; "the migration ran before the deploy" / "the code was
deployed first, and the migration ran afterwards". Here each claim is read as one ordered
pair of events (earlier, later), each event a set of content stems mapped through the
paraphrase classes, and two claims conflict when each event of one matches an event of the
other with the order reversed.

Only claims with exactly one order cue are read; "before" / "after" followed by a time
("after 90 s", "before 2023") is a time, not an event.
"""

from __future__ import annotations

from reverie.conflict import paraphrase
from reverie.conflict.frame import Analysis
from reverie.conflict.text import ARTICLES, FILLERS, NEGATIONS, is_structural, stem

_BEFORE = frozenset({"before", "prior"})
_AFTER = frozenset({"after", "afterwards", "afterward", "later"})
_THEN = frozenset({"then"})
# Pronouns and fillers an event may be said with: they never tell two events apart.
_SKIP = frozenset({"she", "he", "they", "it", "we", "i", "you", "her", "his", "their", "its", "our", "first",
                   "only", "was", "were", "is", "are", "be", "been", "had", "has", "have", "over", "two",
                   "years", "year", "days", "day", "weeks", "week", "months", "month", "hours", "minutes"})  # fmt: skip


Events = tuple[frozenset[str], frozenset[str]]  # (earlier, later)


def ordered_events(side: Analysis) -> Events | None:
    """The claim's two events in time order, or None when it does not state one order."""
    lows = [t.low for t in side.tokens]
    cues = [i for i, w in enumerate(lows) if w in _BEFORE | _AFTER | _THEN]
    if len(cues) != 1 or side.negations:
        return None
    i = cues[0]
    if _time_follows(side, i):
        return None
    left, right = _event(lows[:i]), _event(lows[i + 1 :])
    if lows[i] in _AFTER and not right:  # "X first, and Y afterwards": the cue closes the claim
        left, right = _split_first(lows[:i])
        if not left or not right:
            return None
        return left, right
    if not left or not right:
        return None
    if lows[i] in _BEFORE or lows[i] in _THEN:
        return left, right
    return right, left


def reversed_order(a: Analysis, b: Analysis) -> bool:
    """Both claims order the same two events, in opposite orders."""
    ea, eb = ordered_events(a), ordered_events(b)
    if ea is None or eb is None:
        return False
    (a1, a2), (b1, b2) = ea, eb
    same = _match(a1, b1) and _match(a2, b2)
    swapped = _match(a1, b2) and _match(a2, b1)
    return swapped and not same


def _time_follows(side: Analysis, i: int) -> bool:
    """ "after 90 s", "before 9 am", "before 2023": a time or duration, not an event."""
    starts = {u.tok for u in side.units if u.kind in ("qty", "date")}
    tokens = side.tokens
    j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1].low in ARTICLES)
    return j in starts


def _split_first(lows: list[str]) -> Events:
    """ "the code was deployed first, and the migration ran": the event marked "first" is earlier."""
    if "first" not in lows:
        return frozenset(), frozenset()
    k = lows.index("first")
    return _event(lows[: k + 1]), _event(lows[k + 1 :])


def _event(lows: list[str]) -> frozenset[str]:
    out: set[str] = set()
    for low in lows:
        if is_structural(low) or low in FILLERS or low in NEGATIONS or low in _SKIP or not low.isalpha():
            continue
        st = stem(low)
        out.add(paraphrase.concept_of(st) or st)
    return frozenset(out)


def _match(x: frozenset[str], y: frozenset[str]) -> bool:
    """Two events are the same when most of the smaller one's words are in the other."""
    if not x or not y:
        return False
    return len(x & y) / min(len(x), len(y)) >= 0.5
