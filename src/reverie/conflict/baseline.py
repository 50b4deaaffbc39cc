"""The baseline the benchmark compares against: lexical negation only.

This is what a simple memory system does: flag a pair when exactly one side contains a
negation word and the two otherwise share most of their words. It knows no antonyms, numbers,
names or dates, and no subject. Kept deliberately naive; it is a yardstick, not a fallback.
"""

from __future__ import annotations

from reverie.conflict.text import DO, NEGATIONS, stem, tokenize

_OVERLAP = 0.6


def baseline_negation(a: str, b: str) -> bool:
    """True when one text is negated and the other is not, with word overlap ≥ 0.6 (Jaccard).

    Words are stemmed and "do"-support dropped, so "drinks" / "doesn't drink" overlap fully:
    the baseline gets the same tokeniser as the rules, so the comparison is about the rules.
    """
    wa = [stem(t.low) for t in tokenize(a) if t.kind != "sym" and t.low not in DO]
    wb = [stem(t.low) for t in tokenize(b) if t.kind != "sym" and t.low not in DO]
    neg_a = any(w in NEGATIONS for w in wa)
    neg_b = any(w in NEGATIONS for w in wb)
    if neg_a == neg_b:
        return False
    sa = {w for w in wa if w not in NEGATIONS}
    sb = {w for w in wb if w not in NEGATIONS}
    union = sa | sb
    return bool(union) and len(sa & sb) / len(union) >= _OVERLAP
