"""Value-anchored readings: one measured quantity, or one dated phase of an event, for the same
holder, said in other words.

Why: the frame reading (``meaning``) asks that the two claims share their concepts, so a
quantity said with another verb or noun ("the heap is capped at 4 GB" / "the maximum heap size
is set to 8 GB"; "the farm has 40 cows" / "there are 150 cows on the farm") is missed unless a
paraphrase class lists both words. A quantity with a unit carries its own attribute: two
amounts of memory, two prices, two durations, two counts of cows can only be compared if they
measure the same thing. So instead of more word lists this reading lets the *unit* say what is
measured and lets grammar say *whose* it is:

- one quantity each, of the same specific dimension (not a bare number), and they disagree;
- the same holder: every name on one side is on the other, and the heads of the two subjects
  (``grammar.head_of``: "heap" in "the maximum heap size for the JVM") each appear on the other
  side, so "the laptop" / "the laptop's charger" and "the rent" / "the deposit" stay apart;
- something shared beyond names: a concept, or the counted noun itself ("cows");
- each side may add its own predicate words (the paraphrase), but a side may not add a
  subject word while the other adds nothing (that is a second holder: "the bridge" / "the
  bridge's main span"), and the two subjects may not each add a modifier of their own ("the
  upload timeout" / "the download timeout");
- the words after each amount are said by the other claim too ("16 GB of memory" / "512 GB of
  storage", "12 euros for adults" / "6 euros for children" are two slots), and two lengths run
  along the same extent ("300 m long" / "40 m high" are two);
- nothing that makes both hold: hedges, conditions, changes over time, another occasion, a
  comparison ("than"), an amount of change ("reduced by 120 euros"), a frequency ("every").

The same holder test anchors dates: one date each, after the subject, for the same *phase* of
an event (its start or its end: "opened in 1904" / "started service in 1932"; "ends on March
31" / "expires on June 30"), the same tense, and nothing else named. Two phases ("opens" /
"closes", "born" / "graduated") are two events, so they never conflict here.

Why not dense similarity for "same attribute": the claim's MiniLM vector is computed at write
time anyway, so it would cost nothing, but measured on the dev splits it does not separate the
two labels (paraphrased contradictions average cosine 0.75, agreeing paraphrases 0.85,
templated look-alikes 0.80), and on the predicate alone it ranks antonymic events highest.

Measured before it was kept (``bench/contradictions.py``, dev splits only): both readings find
paraphrased conflicts on the independent set's dev split without a new false positive there
or on the project's own pairs.
"""

from __future__ import annotations

from dataclasses import replace

from reverie.conflict.claim_frame import Frame, frame_of, function_word, unhyphenated
from reverie.conflict.core import Span
from reverie.conflict.dates import date_fields_in_conflict, time_in_conflict
from reverie.conflict.entity import Aliases
from reverie.conflict.frame import Analysis, Unit, analyse
from reverie.conflict.meaning import Found, axes_differ, bounds_meet, occasions_differ, unmatched_names
from reverie.conflict.numeric import comparable, disagree
from reverie.conflict.temporal import reports_an_occasion, says_again
from reverie.conflict.text import stem

# Words that make a number the size of a change or of a comparison, not a value of the slot.
_DELTA = frozenset({"than", "more", "less", "fewer", "extra", "additional", "another", "increase",
                    "increased", "decrease", "decreased", "reduced", "raised", "cut", "grew", "dropped"})  # fmt: skip


# The phase of an event a verb or noun names: its beginning or its end. A closed class of
# English aspect, not vocabulary of any data set. Two dated claims about one holder whose verbs
# differ are about one event only if they name the same phase ("opened" / "started service");
# "opens at 8" / "closes at 8 pm", "was born" / "graduated", "fired" / "resolved" are two
# events. Dense similarity cannot tell these apart: measured on the dev splits, MiniLM scores
# "opens at" / "closes at" (0.70) and "begins on" / "ends on" (0.66) above "opened in" /
# "started service in" (0.43), so it is not used for this decision.
_PHASES: dict[str, str] = {
    **{stem(w): "start" for w in ("start", "started", "starts", "begin", "begins", "began", "begun", "commence",
                                   "commenced", "open", "opens", "opened", "launch", "launched", "launches",
                                   "found", "founded", "establish", "established", "debut", "debuted", "premiere",
                                   "premiered", "introduce", "introduced", "inaugurate", "inaugurated", "onset",
                                   "beginning", "opening", "kick", "kicks", "kicked")},
    **{stem(w): "end" for w in ("end", "ends", "ended", "finish", "finished", "finishes", "close", "closes",
                                 "closed", "closing", "closure", "stop", "stops", "stopped", "conclude",
                                 "concluded", "complete", "completed", "discontinue", "discontinued", "die",
                                 "died", "death", "shut", "terminate", "terminated", "expire", "expired",
                                 "retire", "retired", "retirement", "quit", "resign", "resigned", "cease",
                                 "resolve", "resolved", "ceased", "ending")},
    # A journey's two ends: "the flight leaves at 07:15" / "lands at 11:40" are two events.
    # ("left" is not here: "left the company" ends a stay, it starts no journey.)
    **{stem(w): "departure" for w in ("depart", "departs", "departed", "departure", "leave", "leaves",
                                       "leaving")},
    **{stem(w): "arrival" for w in ("arrive", "arrives", "arrived", "arrival", "land", "lands", "landed",
                                     "landing")},
}  # fmt: skip


def judge(x: Analysis, y: Analysis, aliases: Aliases | None) -> Found | None:
    """The conflict of two claims anchored on one value each (a quantity, or the date of one
    phase of one event), or None.

    Read on the claims with number-unit hyphens opened ("a five-year warranty"), as
    ``meaning.judge`` does; spans are cut again from the texts as written."""
    del aliases  # names must match exactly here: a quantity's holder is never an alias guess
    tx, ty = unhyphenated(x.text), unhyphenated(y.text)
    ax, ay = analyse(tx), analyse(ty)
    if not bounds_meet(frame_of(tx), frame_of(ty)):
        return None  # "the minimum stay" / "the maximum stay": two attributes
    found = _judge(ax, ay) or _dated(ax, ay)
    if found is None:
        return None
    spans_a = tuple(Span(sp.start, sp.end, x.text[sp.start : sp.end]) for sp in found.spans_a)
    spans_b = tuple(Span(sp.start, sp.end, y.text[sp.start : sp.end]) for sp in found.spans_b)
    return replace(found, spans_a=spans_a, spans_b=spans_b)


def _judge(x: Analysis, y: Analysis) -> Found | None:
    fa, fb = frame_of(x.text), frame_of(y.text)
    if not (_plain_statement(fa) and _plain_statement(fb)):
        return None
    if fa.negated != fb.negated or fa.past != fb.past or occasions_differ(fa, fb):
        return None
    if fa.dates or fb.dates or fa.years or fb.years:
        return None  # a date beside the amount may name another occasion
    qa, qb = _one_measured(x, fa), _one_measured(y, fb)
    if qa is None or qb is None or qa.qty is None or qb.qty is None:
        return None
    if not comparable(qa.qty, qb.qty) or not disagree(qa.qty, qb.qty) or axes_differ(fa, fb):
        return None  # "300 m long" / "40 m high": two extents of one thing
    if _qualified(x, qa, fb) or _qualified(y, qb, fa):
        return None  # "12 euros for adults" / "6 euros for children": what follows says what is measured
    if unmatched_names(fa, fb) or unmatched_names(fb, fa) or not _same_holder(fa, fb):
        return None
    counted = qa.qty.dim.startswith("count:")
    if not (fa.concepts & fb.concepts) and not (counted and fa.names):
        return None  # two amounts of money about a named thing, and nothing else shared
    reason = (
        f"Same measured amount of the same thing, said in other words: '{qa.text}' vs '{qb.text}' cannot both hold."
    )
    return Found("numeric", 0.65, reason, (_span(x, qa),), (_span(y, qb),))


def _dated(x: Analysis, y: Analysis) -> Found | None:
    """One date each, for the same phase of one holder's event, said with other words."""
    fa, fb = frame_of(x.text), frame_of(y.text)
    if not (_plain_statement(fa) and _plain_statement(fb)) or fa.quantities or fb.quantities:
        return None
    if fa.negated != fb.negated or fa.past != fb.past or occasions_differ(fa, fb):
        return None
    da, db = _one_date(fa), _one_date(fb)
    if da is None or db is None or da.date is None or db.date is None:
        return None
    fields, clock = date_fields_in_conflict(da.date, db.date), time_in_conflict(da.date, db.date)
    if not (fields or clock) or (fields and clock):
        return None
    if not fields and reports_an_occasion(x) and reports_an_occasion(y):
        return None  # two reports at two times of day: two occasions
    if says_again(x) or says_again(y):
        return None  # "signed again in 2021": one more occasion
    if unmatched_names(fa, fb) or unmatched_names(fb, fa) or not _same_holder(fa, fb):
        return None
    phases_a, phases_b = phases(x), phases(y)
    if len(phases_a) != 1 or phases_a != phases_b:
        return None
    if _own_words(x, fb) and _own_words(y, fa):
        return None  # "finished school" / "finished her master's": the same phase of two events
    if not (fa.concepts & fb.concepts) and not fa.names:
        return None
    reason = (
        f"The same {next(iter(phases_a))} of the same event, said in other words, at dates that cannot both hold: "
        f"'{da.text}' vs '{db.text}'."
    )
    return Found("temporal", 0.6, reason, (_span(x, da),), (_span(y, db),))


def _own_words(side: Analysis, other: Frame) -> set[str]:
    """Content words of one claim the other never says, phase words aside."""
    own = set()
    for t in side.tokens:
        if t.kind != "word" or t.cap or function_word(t.low) or stem(t.low) in _PHASES:
            continue
        if stem(t.low) not in other.stems and stem(t.low) not in other.concepts:
            own.add(stem(t.low))
    return own


def _one_date(f: Frame) -> Unit | None:
    """The claim's only date, when it sits after the subject and is no habit ("on Mondays")."""
    dates = [u for u in (*f.dates, *f.years) if u.date is not None]
    if len(dates) != 1 or dates[0].tok < f.predicate or dates[0].date is None or dates[0].date.recurring:
        return None
    return dates[0]


def phases(side: Analysis) -> set[str]:
    """The event phases the claim names, anywhere in it ("the road closure begins" names both)."""
    return {p for t in side.tokens if (p := _PHASES.get(stem(t.low))) is not None}


def names_a_phase(low: str) -> bool:
    """Whether a word names the start, end, departure or arrival of an event ("kicks", "expires")."""
    return stem(low) in _PHASES


def _plain_statement(f: Frame) -> bool:
    """Asserted, unconditional, about now or one past moment: no hedge, change, sequence,
    condition, added member or templated record."""
    return not (f.hedged or f.record or f.change or f.sequenced or f.additive)


def _one_measured(side: Analysis, f: Frame) -> Unit | None:
    """The claim's only quantity, when it has a unit, sits after the subject, and is no delta."""
    if len(f.quantities) != 1:
        return None
    q = f.quantities[0]
    if q.qty is None or q.qty.dim in {"bare", "ordinal"} or q.label or q.tok < f.predicate:
        return None
    words = {t.low for t in side.tokens}
    before = next((t.low for t in reversed(side.tokens) if t.end <= q.start), "")
    if words & _DELTA or before == "by" or "every" in words or f.compared:
        return None
    return q


def _qualified(side: Analysis, q: Unit, other: Frame) -> bool:
    """A content word after the amount that the other claim never says ("of storage", "for
    children"): the words after a quantity say what it counts or for whom, so they must agree."""
    for t in side.tokens:
        if t.start < q.end or t.kind != "word" or t.cap or function_word(t.low):
            continue
        if stem(t.low) not in other.stems and stem(t.low) not in other.concepts:
            return True
    return False


def _same_holder(fa: Frame, fb: Frame) -> bool:
    """The two subjects name one holder: heads shared, and no side adds a subject word while
    the other side adds nothing of its own (that would be a part or a second holder)."""
    for f, g in ((fa, fb), (fb, fa)):
        if f.head is not None and f.head not in g.concepts and f.head not in g.stems:
            return False
    own_a, own_b = fa.concepts - fb.concepts - fb.stems, fb.concepts - fa.concepts - fa.stems
    mod_a, mod_b = fa.subject & own_a, fb.subject & own_b
    if mod_a and mod_b:
        return False  # "the staging rate limit" / "the production rate limit": two holders
    return not ((mod_a and not own_b) or (mod_b and not own_a))


def _span(side: Analysis, unit: Unit) -> Span:
    return Span(unit.start, unit.end, side.text[unit.start : unit.end])
