"""Temporal conflicts: one event given two dates, or two events given opposite orders.

A date disagreement counts only when the claim pins a single date: a copula ("the launch is
on May 3"), a one-off verb ("the certificate expires", "Fatima graduated"), or a scheduled
event as subject ("the weekly planning meeting"). "Dmitri goes to the gym on Mondays /
Thursdays" pins nothing — both can be true — so it never conflicts.
"""

from __future__ import annotations

import itertools

from reverie.conflict import lexicon
from reverie.conflict.dates import describe
from reverie.conflict.frame import Analysis, Unit
from reverie.conflict.text import FILLERS, NEGATIONS

_FIELD_NAMES = {
    "year": "year",
    "month": "month",
    "day": "day",
    "quarter": "quarter",
    "weekday": "day of the week",
    "time": "time",
}


_SCHEDULED_RETURN = frozenset({"return", "returns", "returning"})


def pins_one_date(side: Analysis) -> bool:
    """The claim states *the* date of something, not one of many occasions."""
    if side.copula:
        return True
    verb = _main_verb(side)
    if verb is not None and verb in lexicon.ONCE_VERBS:
        return True
    if verb is not None and verb in _SCHEDULED_RETURN and not side.past:
        return True  # "returns from leave on 1 March": a return ahead is one date; two past returns are two
    return any(u.low in lexicon.SCHEDULE_NOUN_FORMS for u in side.units)


def reports_an_occasion(side: Analysis) -> bool:
    """A past report of something done: its time of day says *when*, not a value to dispute.

    "Checked the dashboard at 13:00" and "… at 15:30" are two checks; "the backup of shard 4
    finished at 03:10" and "… at 03:40" are two nights' log lines. What still states the one
    time of one thing: a scheduled event ("the flight landed at 14:20") and a copula straight
    into the time ("the outage was at 13:00").
    """
    if not (side.past or _opens_with_past_verb(side)):
        return False
    # Past forms are the report's verb, not an event noun: "Reviewed build 1 at 00:00".
    if any(u.low in lexicon.SCHEDULE_NOUN_FORMS and not u.low.endswith("ed") for u in side.units):
        return False
    return not (side.copula and _time_right_after_copula(side))


_AGAIN_WORDS = frozenset({"again", "also"})
_AGAIN_PHRASES = (("once", "more"), ("another", "time"), ("second", "time"), ("as", "well"))


def says_again(side: Analysis) -> bool:
    """The claim itself says its event is one more occasion: "visited her again in August",
    "the office is also closed on Monday", "… in May too". Its date then adds an occasion; it
    cannot move the date of another claim's."""
    lows = [t.low for t in side.tokens if t.kind == "word"]
    if _AGAIN_WORDS.intersection(lows) or (lows and lows[-1] == "too"):
        return True
    bigrams = set(itertools.pairwise(lows))
    return any(pair in bigrams for pair in _AGAIN_PHRASES)


def _opens_with_past_verb(side: Analysis) -> bool:
    """Log style, subject left out: "Checked …", "Restarted …", "Ran …"."""
    if not side.tokens or side.tokens[0].kind != "word":
        return False
    low = side.tokens[0].low
    return low in lexicon.PAST_VERB_FORMS


def _time_right_after_copula(side: Analysis) -> bool:
    nxt = side.tokens[side.predicate + 1 : side.predicate + 3]
    return bool(nxt) and (nxt[0].kind in {"num", "clock"} or (nxt[0].low in {"at", "on"} and len(nxt) > 1))


def _main_verb(side: Analysis) -> str | None:
    for tok in side.tokens[side.predicate :]:
        if tok.low not in NEGATIONS and tok.low not in FILLERS:
            return tok.low
    return None


def date_reason(ua: Unit, ub: Unit, fields: tuple[str, ...]) -> str:
    """One sentence naming the dates and which field disagrees."""
    names = ", ".join(_FIELD_NAMES.get(f, f) for f in fields)
    va = describe(ua.date) if ua.date is not None else ua.text
    vb = describe(ub.date) if ub.date is not None else ub.text
    return f"Same event, different {names}: '{ua.text}' ({va}) vs '{ub.text}' ({vb})."


def order_reason(ua: Unit, ub: Unit) -> str:
    return f"Opposite order for the same two events: '{ua.text}' vs '{ub.text}'."
