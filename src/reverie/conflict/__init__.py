"""Deterministic, explainable contradiction detection between two claims.

No model, no I/O: every conflict names its axis (polarity, numeric, entity, temporal), the
words that disagree and a one-sentence reason, so a person can check it. The store gathers
candidate pairs by similarity within a scope and calls :func:`detect`; a conflict becomes a
``contradicts`` edge and both items stay.

    >>> from reverie.conflict import Claim, detect
    >>> detect(Claim("Alice lives in Paris."), Claim("Alice lives in Berlin.")).axis
    'entity'
"""

from reverie.conflict.baseline import baseline_negation
from reverie.conflict.core import AXES, Axis, Claim, Conflict, Span
from reverie.conflict.detect import detect

__all__ = ["AXES", "Axis", "Claim", "Conflict", "Span", "baseline_negation", "detect"]
