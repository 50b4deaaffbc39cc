"""A numbered thing as the value of a relation: "departs from platform 4" / "leaves from platform 9".

Why: a number or code beside a noun usually says *which* thing ("Build 412 failed" / "Build 413
passed", "support call 5521"), so ``meaning`` reads two claims that differ only there as two
subjects and says nothing. After a relation that holds one value at a time, the numbered noun is
that value instead: a train leaves from one platform, a flight from one gate. Kept apart from
``meaning`` because it is one reading with its own guards.
"""

from __future__ import annotations

from itertools import pairwise

from reverie.conflict import paraphrase
from reverie.conflict.claim_frame import Frame
from reverie.conflict.frame import Analysis, Unit
from reverie.conflict.text import stem

Names = tuple[tuple[int, str], ...]

_PREPOSITIONS = frozenset({"from", "in", "at", "on", "to", "into", "onto"})


def numbered_value(
    x: Analysis, y: Analysis, fa: Frame, fb: Frame, only_a: Names, only_b: Names
) -> tuple[str, Unit, Unit] | None:
    """The reason and the two numbered units when each claim gives the one value of the same
    relation as a numbered thing after its verb; None when a number says which thing."""
    if len(only_a) != 1 or len(only_b) != 1 or fa.concepts != fb.concepts:
        return None
    (ia, _), (ib, _) = only_a[0], only_b[0]
    if ia <= fa.predicate or ib <= fb.predicate or not fa.concepts & paraphrase.SINGLE_VALUED:
        return None
    if fa.negated != fb.negated or fa.change or fb.change or fa.additive or fb.additive:
        return None
    if fa.sequenced or fb.sequenced or fa.quantities or fb.quantities or fa.dates or fb.dates:
        return None
    if fa.years or fb.years:
        return None
    ua, ub = _label_unit(x, ia), _label_unit(y, ib)
    if ua is None or ub is None or ua.tok == 0 or ub.tok == 0:
        return None
    noun_a, noun_b = x.tokens[ua.tok - 1], y.tokens[ub.tok - 1]
    if noun_a.low != noun_b.low:
        return None  # "platform 4" / "track 9": two kinds of place, not two values of one
    if not (_relation_before(x, ua.tok - 1) and _relation_before(y, ub.tok - 1)):
        return None  # "answered support call 5521": the number says which call, no relation holds it
    reason = f"One claim says '{noun_a.text} {ua.text}', the other '{noun_b.text} {ub.text}', where only one can hold."
    return reason, ua, ub


def _relation_before(side: Analysis, noun: int) -> bool:
    """A single-valued relation and its preposition right before a numbered noun ("leaves from
    platform 9", "lives in apartment 4"); a verb straight onto the noun ("shipped build 2") names
    which thing was shipped, not where to."""
    if noun == 0 or side.tokens[noun - 1].low not in _PREPOSITIONS:
        return False
    stems = [stem(t.low) for t in side.tokens[max(0, noun - 4) : noun]]
    pairs = (paraphrase.phrase_concept(p, q) for p, q in pairwise(stems))
    found = [paraphrase.concept_of(s) for s in stems] + list(pairs)
    return any(c in paraphrase.SINGLE_VALUED for c in found)


def _label_unit(side: Analysis, tok: int) -> Unit | None:
    return next((u for u in side.units if u.tok == tok and u.label), None)
