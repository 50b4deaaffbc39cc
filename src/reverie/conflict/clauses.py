"""Compound claims read clause by clause: "Ayumi lost the election, and Rafael is the president".

Why: every reading in ``detect`` and ``meaning`` compares two claims as wholes, so a claim that
joins two statements ("Ben cancelled his membership and is not a member anymore") never lines
up with a one-statement claim about either half: the other half is always "something one side
says and the other does not", which the rules rightly read as another situation. Splitting is
grammar, not vocabulary: a coordinating conjunction or a semicolon between two clauses, each
with a verb of its own.

- Split points: ";", ", and", ", but", ", so", or a bare " and " followed by a verb (the second
  clause then shares the first's subject: "Ben cancelled … and is not a member").
- A clause that starts with a verb borrows the first clause's subject; one that starts with a
  personal pronoun ("he", "she", "it", "they") takes the first clause's subject in its place.
- A claim is not split when the whole is hedged or conditional ("if", "may", "when"), when it
  places the halves on a timeline ("until", "before", "after", "then": a change, not two
  facts), or when it has more than three clauses.

- A bare comma splits only a spoken correction's shape: the second clause repeats the first's
  subject or a pronoun for it, then its own verb ("…, Alice lives in Denver").

Each clause is a claim in its own right; the caller (``detect``) runs the full rules on each
clause against the other claim and keeps a conflict only when the conflicting clauses are all
of one claim.
Measured on the dev splits before it was kept (``bench/contradictions.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from reverie.conflict import lexicon
from reverie.conflict.frame import analyse
from reverie.conflict.text import DETERMINERS, HEDGES, Token, tokenize

_JOINS = re.compile(r"\s*;\s*|,\s+(?:and|but|so)\s+|\s+and\s+", re.IGNORECASE)
_PRONOUNS = frozenset({"he", "she", "it", "they"})
_ALL_PRONOUNS = _PRONOUNS | frozenset({"i", "we", "you"})
# Words that make the halves one timeline or one condition rather than two facts.
_BLOCK = HEDGES | frozenset(
    {"if", "unless", "when", "whenever", "until", "till", "before", "after", "then", "once", "since", "while",
     "may", "might", "could", "would", "whether", "either", "neither", "between", "both"}
)  # fmt: skip
_MAX_CLAUSES = 3
_MAX_SUBJECT = 6  # a second clause's own subject: a few words before its verb


@dataclass(frozen=True)
class Clause:
    """One clause as a claim text, and where its own words start in the original text."""

    text: str
    offset: int  # index in the original text of the clause's first own character
    borrowed: int  # length of the subject prefix borrowed from the first clause (0 if none)


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[Clause, ...]:
    """The clauses of a compound claim, or () when it is one statement (or must not be split)."""
    words = {t.low for t in tokenize(text)}
    if words & _BLOCK:
        return ()
    pieces: list[tuple[int, int]] = []
    start = 0
    for m in _JOINS.finditer(text):
        if not _starts_clause(_opening(text, m.end())):
            continue  # "salt and pepper", "French, German, and Portuguese": a list, not a clause
        pieces.append((start, m.start()))
        start = m.end()
        if len(pieces) + 1 > _MAX_CLAUSES:
            return ()  # more clauses than are read: stop before reading the rest
    if not pieces:
        return _apposition(text) or _without_being(text) or _comma_splice(text)
    if len(pieces) + 1 > _MAX_CLAUSES:
        return ()
    pieces.append((start, len(text)))
    first = analyse(text[pieces[0][0] : pieces[0][1]])
    # The first clause's subject, for later clauses that share it; None when no verb was found
    # there (then only clauses with a subject of their own can be read).
    found = 0 < first.predicate < len(first.tokens)
    subject = text[: first.tokens[first.predicate - 1].end] if found else None
    person = (_person(first.tokens[: first.predicate], text) or subject) if found else None
    out = [Clause(text[: pieces[0][1]].strip() + ".", 0, 0)]
    for lo, hi in pieces[1:]:
        own = text[lo:hi].strip().rstrip(".")
        if not own:
            return ()
        head = tokenize(own)[0]
        if head.low in _PRONOUNS:
            holder = person if head.low in {"he", "she"} else subject
            if holder is None or (holder == subject and holder.strip().lower() in _ALL_PRONOUNS):
                return ()
            out.append(Clause(f"{holder}{own[head.end :]}.", lo + head.end, len(holder)))
        elif _verb_first(own):
            if subject is None:
                return ()
            out.append(Clause(f"{subject} {own}.", lo, len(subject) + 1))
        else:
            out.append(Clause(own + ".", lo, 0))
    if any(analyse(c.text).predicate >= len(analyse(c.text).tokens) for c in out[1:]):
        return ()  # a later piece with no verb: a list of values, not a clause
    return tuple(out)


# "… Gatwick, his home airport.": a name, a comma, then a determiner and a few lower-case words.
_APPOSITION = re.compile(
    r"^(?P<main>.*\b(?P<value>[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*)),\s+"
    r"(?P<det>his|her|its|their|the)\s+(?P<role>[a-z]+(?:[ -][a-z]+){0,2})\s*\.?\s*$"
)
_OWNERS = frozenset({"his", "her", "its", "their"})


def _apposition(text: str) -> tuple[Clause, ...]:
    """ "Farid always flies out of Gatwick, his home airport" also says "Farid's home airport is
    Gatwick"; "Sessions are kept in Memcached, the session store" says "the session store is
    Memcached". A trailing apposition names the role of the name before it. Read as two
    clauses: the sentence without it, and the role restated with a copula; the restatement's
    own words are the name, so spans point at it in the original text."""
    m = _APPOSITION.match(text.strip())
    if m is None:
        return ()
    main = m.group("main").strip()
    first = analyse(main + ".")
    if not 0 < first.predicate < len(first.tokens):
        return ()
    role = m.group("role")
    if m.group("det") in _OWNERS:
        if not any(w in lexicon.FUNCTIONAL_NOUN_FORMS for w in role.split()):
            return ()  # "Tom, her neighbour": one of several; "Gwangju, his hometown": the one
        holder = _person(first.tokens[: first.predicate], main) if m.group("det") in {"his", "her"} else None
        if holder is None:
            holder = main[: first.tokens[first.predicate - 1].end]
            if holder.strip().lower() in _ALL_PRONOUNS:
                return ()
        lead = f"{holder}'s {role} is "
    else:
        lead = f"The {role} is "
    offset = text.index(m.group("value"), len(m.group("main")) - len(m.group("value")))
    return (Clause(main + ".", 0, 0), Clause(f"{lead}{m.group('value')}.", offset, len(lead)))


_WITHOUT_BEING = re.compile(
    r",?\s+without\s+(?:ever\s+)?being\s+(?P<done>[a-z]+(?:ed|en|wn|ne|t))\b(?P<rest>[^,;.]*)\.?\s*$"
)


def _without_being(text: str) -> tuple[Clause, ...]:
    """ "The pull request was closed without being merged" also says "the pull request was not
    merged": "without being" + a participle denies that of the subject. Read as two clauses:
    the sentence without the phrase, and the denial restated with the subject's tense."""
    m = _WITHOUT_BEING.search(text)
    if m is None:
        return ()
    main = text[: m.start()].strip()
    first = analyse(main + ".")
    if not 0 < first.predicate < len(first.tokens):
        return ()
    subject = main[: first.tokens[first.predicate - 1].end]
    if subject.strip().lower() in _ALL_PRONOUNS:
        return ()
    lead = f"{subject} {'was' if first.past else 'is'} not "
    offset = m.start("done")
    return (Clause(main + ".", 0, 0), Clause(f"{lead}{text[offset : m.end('rest')].strip()}.", offset, len(lead)))


def _comma_splice(text: str) -> tuple[Clause, ...]:
    """ "Alice doesn't live in Boston anymore, Alice lives in Denver" (how a spoken correction is
    mined), "…, she lives in Denver": two clauses joined by a bare comma, read as two only when
    the second opens with the first's own subject, or a pronoun for it, and its own verb. A
    comma before anything else is a list, an apposition or an aside, never split here."""
    if text.count(",") != 1:
        return ()
    cut = text.index(",")
    main, rest = text[:cut].strip(), text[cut + 1 :].strip().rstrip(".")
    first = analyse(main + ".")
    if not (0 < first.predicate < len(first.tokens)) or not rest:
        return ()
    subject = main[: first.tokens[first.predicate - 1].end]
    if subject.strip().lower() in _ALL_PRONOUNS:
        return ()
    at = text.index(rest, cut)
    head = tokenize(rest)[0]
    if head.low in _PRONOUNS and _verb_first(rest[head.end :]):
        holder = _person(first.tokens[: first.predicate], main) if head.low in {"he", "she"} else subject
        if holder is None:
            return ()
        return (Clause(main + ".", 0, 0), Clause(f"{holder}{rest[head.end :]}.", at + head.end, len(holder)))
    if rest.startswith(subject + " ") and _verb_first(rest[len(subject) :]):
        return (Clause(main + ".", 0, 0), Clause(rest + ".", at, 0))
    return ()


# How much of the text after a join is read to tell whether a clause opens there: a subject of
# a few words and its verb fit in far less. Bounded so a long claim (thousands of "and"s) costs
# time in proportion to its length, not to its length squared.
_OPENING_CHARS = 200


def _opening(text: str, at: int) -> str:
    """The start of ``text`` from ``at``: at most ``_OPENING_CHARS``, cut at a word boundary."""
    rest = text[at : at + _OPENING_CHARS + 1]
    if len(rest) <= _OPENING_CHARS:
        return rest
    cut = rest.rfind(" ")
    return rest[:cut] if cut > 0 else rest[:_OPENING_CHARS]


def _starts_clause(rest: str) -> bool:
    """The words after a join open a clause: a verb (the subject is shared), a pronoun, or a
    subject of at most a few words followed by its verb."""
    tokens = tokenize(rest)
    if not tokens:
        return False
    if tokens[0].low in _PRONOUNS or _verb_first(rest):
        return True
    if not (tokens[0].cap or tokens[0].low in DETERMINERS):
        return False
    probe = analyse(rest)
    return probe.predicate < min(len(probe.tokens), _MAX_SUBJECT)


def _verb_first(rest: str) -> bool:
    """ "is not a member anymore", "never takes the train": the predicate comes first."""
    return analyse("It " + rest).predicate == 1


def _person(subject: tuple[Token, ...], text: str) -> str | None:
    """The first name in a subject ("Hugo" in "Hugo's nationality"): who "he" / "she" is. A
    subject that is itself a pronoun ("She lives in Oslo and he …") names nobody else."""
    if any(t.low in _ALL_PRONOUNS for t in subject):
        return None
    names = [t for t in subject if t.cap and t.kind == "word" and t.low not in DETERMINERS]
    if not names:
        return None
    run = [names[0]]
    for t in names[1:]:
        if t.start - run[-1].end > 1:
            break
        run.append(t)
    return text[run[0].start : run[-1].end]
