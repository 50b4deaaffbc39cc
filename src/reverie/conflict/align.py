"""Aligning two claims unit by unit, and sorting every difference into a kind.

This is the shared "same subject" gate. Two claims are compared only if *every* difference
between them is explained: a quantity or date whose value moved, a slot filled by another
value, an antonym (a hand-written class or a WordNet pair of opposite adjectives), a negative
prefix, or a refinement (one side adds a name or number next to
the value: "Paris" / "Paris, France"). Any other difference — a changed word in the subject,
an added qualifier ("for free users"), a different verb — means the claims may be about
different things, and the pair is *blocked*: no conflict. Precision matters more than recall,
so an unexplained difference always wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher

from reverie.conflict import lexicon
from reverie.conflict.dates import date_fields_in_conflict, time_in_conflict
from reverie.conflict.frame import Analysis, Unit
from reverie.conflict.numeric import disagree
from reverie.conflict.opposites import opposite_adjectives
from reverie.conflict.text import is_structural


@dataclass(frozen=True)
class Hunk:
    """A stretch where the claims differ: units ``a`` in claim A replaced by units ``b``."""

    a: tuple[Unit, ...]
    b: tuple[Unit, ...]
    a_at: int  # unit index in A where the hunk starts
    b_at: int


@dataclass
class Alignment:
    """The differences between two claims, sorted by kind."""

    blocked: str | None = None
    shared: int = 0  # word units the claims have in common
    quantities: list[tuple[Unit, Unit]] = field(default_factory=list)
    dates: list[tuple[Unit, Unit, tuple[str, ...]]] = field(default_factory=list)
    values: list[Hunk] = field(default_factory=list)
    inverted: list[Hunk] = field(default_factory=list)
    flips: list[tuple[Unit, Unit]] = field(default_factory=list)  # antonym classes, opposite sides
    prefixes: list[tuple[Unit, Unit]] = field(default_factory=list)

    def block(self, why: str) -> None:
        if self.blocked is None:
            self.blocked = why


def align(a: Analysis, b: Analysis) -> Alignment:
    """Compare two analysed claims and classify each difference."""
    out = Alignment()
    matcher = SequenceMatcher(None, [u.key for u in a.units], [u.key for u in b.units], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for ua, ub in zip(a.units[i1:i2], b.units[j1:j2], strict=True):
                _equal_pair(a, b, ua, ub, out)
        else:
            _hunk(a, b, Hunk(a.units[i1:i2], b.units[j1:j2], i1, j1), out)
    return out


def _equal_pair(a: Analysis, b: Analysis, ua: Unit, ub: Unit, out: Alignment) -> None:
    in_subject = a.in_subject(ua) or b.in_subject(ub)
    if ua.kind == "word":
        out.shared += 1
    elif ua.kind == "class":
        out.shared += 1
        if ua.side != ub.side:
            out.flips.append((ua, ub))
    elif ua.kind == "qty" and ua.qty is not None and ub.qty is not None:
        if disagree(ua.qty, ub.qty):
            if in_subject:
                out.block(f"the subjects differ in a number ('{ua.text}' vs '{ub.text}')")
            out.quantities.append((ua, ub))
    elif ua.kind == "date" and ua.date is not None and ub.date is not None:
        fields = date_fields_in_conflict(ua.date, ub.date)
        clock = time_in_conflict(ua.date, ub.date)
        if fields and clock:
            out.block(f"'{ua.text}' and '{ub.text}' are different occasions")
        elif fields or clock:
            if in_subject:
                out.block(f"the claims are about different times ('{ua.text}' vs '{ub.text}')")
            out.dates.append((ua, ub, fields or ("time",)))


def _hunk(a: Analysis, b: Analysis, hunk: Hunk, out: Alignment) -> None:
    if not hunk.a or not hunk.b:
        _insertion(a, b, hunk, out)
        return
    if len(hunk.a) == 1 and len(hunk.b) == 1 and negative_prefix(hunk.a[0], hunk.b[0]):
        out.prefixes.append((hunk.a[0], hunk.b[0]))
        return
    if _opposite_words(a, b, hunk):
        out.prefixes.append((hunk.a[0], hunk.b[0]))  # one word against its opposite: a flip like "un-"
        return
    words = hunk.a + hunk.b
    if any(u.kind != "word" for u in words):
        out.block(f"'{_text(hunk.a)}' and '{_text(hunk.b)}' are different kinds of thing")
        return
    in_subject = any(a.in_subject(u) for u in hunk.a) or any(b.in_subject(u) for u in hunk.b)
    if in_subject:
        if _inversion(a, hunk.a) and _inversion(b, hunk.b):
            out.inverted.append(hunk)
        else:
            out.block(f"different subjects ('{_text(hunk.a)}' vs '{_text(hunk.b)}')")
        return
    if any(is_structural(u.low) or u.low in lexicon.VERB_FORMS for u in words):
        out.block(f"different relation ('{_text(hunk.a)}' vs '{_text(hunk.b)}')")
        return
    out.values.append(hunk)


def _opposite_words(a: Analysis, b: Analysis, hunk: Hunk) -> bool:
    """One word against its WordNet opposite, outside the subject ("deep" / "shallow"; "active",
    a word of a hand-written class, against "extinct", which no class holds)."""
    if len(hunk.a) != 1 or len(hunk.b) != 1:
        return False
    x, y = hunk.a[0], hunk.b[0]
    if a.in_subject(x) or b.in_subject(y):  # "the left door" / "the right door": two doors
        return False
    return x.kind in {"word", "class"} and y.kind in {"word", "class"} and opposite_adjectives(x.low, y.low)


def _insertion(a: Analysis, b: Analysis, hunk: Hunk, out: Alignment) -> None:
    """One side says more. Harmless only when it names the value more fully ("Paris, France")."""
    owner, added = (a, hunk.a) if hunk.a else (b, hunk.b)
    if any(owner.in_subject(u) for u in added):
        out.block(f"different subjects ('{_text(added)}' on one side only)")
        return
    for unit in added:
        if unit.kind == "qty" or (unit.kind == "word" and (unit.cap or unit.low == "and")):
            continue
        out.block(f"'{_text(added)}' qualifies only one claim")
        return


def _inversion(side: Analysis, units: tuple[Unit, ...]) -> bool:
    """ "Carol is the team lead": the subject is the value of a unique role ("the ...")."""
    if not side.copula or not units or units[0].tok != 0 or not all(u.cap for u in units):
        return False
    after = side.tokens[side.predicate + 1 :]
    return bool(after) and after[0].low == "the" and all(u.tok < side.predicate for u in units)


def negative_prefix(x: Unit, y: Unit) -> bool:
    """ "unencrypted"/"encrypted", "non-smoker"/"smoker": one word is the other negated."""
    if x.kind != "word" or y.kind != "word":
        return False
    for short, long in ((x.key, y.key), (y.key, x.key)):
        for prefix in lexicon.NEGATIVE_PREFIXES:
            rest = long[len(prefix) :]
            min_len = 5 if prefix == "a" else 3
            if (
                long.startswith(prefix)
                and rest == short
                and len(rest) >= min_len
                and rest not in lexicon.PREFIX_FALSE_FRIENDS
            ):
                return True
    return False


def _text(units: tuple[Unit, ...]) -> str:
    return " ".join(u.text for u in units)
