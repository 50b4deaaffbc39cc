"""Derivational families: a noun, its verb and its "-ly" adjective read as one concept.

Why: the paraphrase classes (``paraphrase``) map whole words a person listed; a claim said in
other words just as often keeps the word and changes its part of speech: "retired" /
"retirement", "closes" / "closure", "delivers" / "deliveries", "a month" / "monthly",
"quarterly revenue" / "revenue for the quarter". Those are rules of English word formation,
not vocabulary, so they are written once here as suffix rules and apply to every word —
including words no list mentions. Measured on the independent set's dev split (issue #16),
the frame's concept sets of a paraphrased pair meet more often and no compatible pair met
that did not before (``bench/contradictions.py``).

The rules only need to be *consistent*: both claims go through the same mapping, so a
collision ("early" and "ear") matters only when both forms turn up in one pair about
different things. Short words are left alone, where collisions are likeliest.
"""

from __future__ import annotations

from functools import lru_cache

# Nominal suffixes, longest first: the verb or adjective the noun was made from.
# "-ment": retirement → retire; "-ure": closure → close; "-ion": completion → complete;
# "-al": arrival → arrive; "-ance" / "-ence": acceptance → accept, existence → exist.
# Before those: "-ature": signature → sign; "-sis": diagnosis → diagnos (the stem of "diagnosed");
# the agent "-tor" / "-sor": conductor → conduct, as "conducted" stems.
_NOMINAL = ("ments", "ment", "ures", "ure", "ions", "ion", "als", "al", "ances", "ance", "ences", "ence")
_MIN_LENGTH = 6
_MIN_LY = 5  # "daily"
_MIN_LY_BASE = 4  # "week" in "weekly"
_MIN_BASE = 3
_MIN_AGENT = 7  # "conductor", "inventor"; "doctor", "motor" stay


@lru_cache(maxsize=8192)
def base_form(low: str) -> str:
    """The shared root of a lower-cased word's derivational family, unstemmed.

    "monthly" → "month", "daily" → "day", "retirement" → "retire", "closure" → "clos",
    "deliveries" → "deliver". Words the rules do not cover come back unchanged.
    """
    if len(low) < _MIN_LY or not low.isalpha():
        return low
    if low.endswith("ily"):  # daily → day, easily → easy
        return low[:-3] + "y"
    if low.endswith("ly") and low[-3] not in "aeiou" and len(low) - 2 >= _MIN_LY_BASE:
        return low[:-2]  # monthly → month, quarterly → quarter; "early", "apply" stay
    if len(low) < _MIN_LENGTH:
        return low
    if low.endswith("ature") and len(low) - 5 >= _MIN_BASE + 1:  # signature → sign, not "nature"
        return low[:-5]
    if low.endswith("sis"):  # diagnosis → diagnos, as "diagnosed" stems
        return low[:-2]
    if len(low) >= _MIN_AGENT and low.endswith(("tor", "sor")):  # conductor → conduct, supervisor → supervis
        return low[:-2]
    for suffix in _NOMINAL:
        rest = low[: -len(suffix)]
        if low.endswith(suffix) and len(rest) >= _MIN_BASE:
            return rest
    if low.endswith("eries"):  # deliveries → deliver
        return low[:-3]
    if low.endswith("ery") or low.endswith("ary"):  # delivery → deliver, summary stays apart
        return low[:-1] if low.endswith("ery") else low
    return low
