"""A compound sentence cut into its clauses, so each is mined on its own: "I work at Acme and my
sister Dana lives in Lisbon" → "I work at Acme" + "my sister Dana lives in Lisbon".

Why: read whole, the second clause's relation was rewritten in the speaker's name ("Alice works
at Acme and Alice's sister Dana lives in Lisbon."), the possessive form the README says is never
written, and a later "Dana lives in Porto." met nothing (outside probe 7, finding 3). Cut, the
relation is a claim of its own and Dana's fact is written in her name.

A cut is made at "and" / "but" / ";" (and at a comma between two clauses of the speaker's: "I
don't live in Boston anymore, I live in Denver") only when both sides are clauses: each opens
with a doer — "I", "we", "he", "she", "my sister Dana", "her husband", a person the conversation
knows — and a verb after it. "My husband and I live …", "I visited my mom and my sister Dana in
Lisbon" and "I love tea and coffee" stay whole (one side has no verb of its own), and so does a
clause that points back at the one before ("… and I love it there": cut, "it there" would mean
nothing). Quoted speech is never cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reverie.conversation.people.lexicon import IRREGULAR_PASTS, MODALS, RELATIONS
from reverie.conversation.rewrite import adverb_at

#: Where a sentence may join two clauses: ", and", " and", ", but", " but", "; ", ", ".
_JOINT = re.compile(r"\s*;\s+|,?\s+(?:and|but)\s+|,\s+", re.I)
#: A doer pronoun that needs a verb after it.
_PRONOUNS = frozenset(("i", "we", "he", "she", "they"))
#: A doer and its verb in one word.
_CONTRACTED = frozenset(
    str.split("i'm i've i'll i'd we're we've we'll we'd he's she's he'll she'll he'd she'd they're they've they'll")
)
#: Possessives that open a doer: "my sister Dana", "her husband".
_POSSESSIVES = frozenset(("my", "our", "his", "her", "their"))
#: First-person doers: a comma alone cuts only between two clauses opening with one of these.
_FIRST = frozenset(("i", "we", "my", "our")) | {c for c in _CONTRACTED if c.startswith(("i'", "we'"))}
#: Verbs a doer is often followed by, without an -s or -ed of their own.
_AUXILIARIES = MODALS | frozenset(
    str.split("is was are were am has have had do does did don't doesn't didn't isn't wasn't can't won't")
)
#: Words that are no verb: after a doer they make a phrase ("I and my sister", "my sister Dana in Lisbon").
_NO_VERB = frozenset(
    str.split(
        """
    a an the and or but to in at on of for with from by about as than that this these those
    there here it its too so very not
    """
    )
)
#: Words that report what was said: what is told and its teller are read together.
_REPORTING = frozenset(("told", "tells", "said", "says", "mentioned", "heard", "wrote", "texted"))
#: Words that point back at the clause before: a clause with one is read with it.
_POINTS_BACK = frozenset(("it", "it's", "there", "them", "that", "this", "one", "so", "too", "either", "both"))


def compound(sentence: str, person: Callable[[list[str]], int]) -> list[str]:
    """``sentence`` cut into its clauses (one when it has no second clause of its own).

    ``person(words)``: how many of ``words`` (from the first) name a person the conversation
    knows, 0 for none — a named doer ("… and Dana lives in Lisbon").
    """
    if any(q in sentence for q in '"“”'):
        return [sentence]
    cuts = list(_JOINT.finditer(sentence))
    if not cuts:
        return [sentence]
    out: list[str] = []
    start = 0
    for m in cuts:
        left, right = sentence[start : m.start()], sentence[m.end() :]
        joint = m.group(0).strip()
        if joint == "," and not (_first_person(left) and _first_person(right)):
            continue  # a comma is a cut only between two clauses of the speaker's ("I …, I …")
        if _clause(left.split(), person) and _clause(right.split(), person) and not _points_back(right):
            out.append(left.strip())
            start = m.end()
    out.append(sentence[start:].strip())
    return [_capital(p) for p in out if p]


def _clause(words: list[str], person: Callable[[list[str]], int]) -> bool:
    """Do ``words`` open with a doer and a verb of its own, with something said after the doer?"""
    low = [w.lower().strip(",.;:!") for w in words]
    if len(low) < 2:
        return False
    first = low[0]
    if first in _CONTRACTED:
        return True  # "I'm Alice"
    if len(low) < 3:
        return False
    if first in _PRONOUNS:
        i = 1
        while (n := adverb_at(words, i)) > 0:
            i += n
        verb = i < len(low) and (low[i].isalpha() or low[i] in _AUXILIARIES)
        return verb and low[i] not in _NO_VERB and i + 1 < len(low)
    if first in _POSSESSIVES:
        i = 1
        while i < min(len(low), 5) and not _verb(low[i]):
            if low[i] in _NO_VERB:
                return False
            i += 1
        return i < len(low) - 1 or (i < len(low) and low[i] in _AUXILIARIES)
    used = person(words)
    return used > 0 and used < len(low) - 1 and _verb(low[used + adverb_at(words, used)])


def _verb(word: str) -> bool:
    """Could ``word`` be the verb after a doer? An auxiliary, a past, a present with the -s; never
    a plural relation ("my parents")."""
    if word in _AUXILIARIES or word in IRREGULAR_PASTS:
        return True
    if not word.isalpha():
        return word in _AUXILIARIES
    if word.endswith("ed"):
        return True
    plural = word[:-1] if word.endswith("s") else ""
    singular = word[:-2] if word.endswith("es") else plural
    if plural and (plural in RELATIONS or singular in RELATIONS):
        return False
    return bool(plural) and not word.endswith(("ss", "us", "is"))


def _points_back(clause: str) -> bool:
    """Does the clause point back at the one before ("I love it there"), or report what someone
    said ("she told me Omar got promoted": the teller is named before it)?"""
    low = [w.lower().strip(",.;:!") for w in clause.split()]
    return any(w in _POINTS_BACK or w in _REPORTING for w in low)


def _first_person(clause: str) -> bool:
    words = clause.split()
    return bool(words) and words[0].lower().strip(",") in _FIRST


def _capital(part: str) -> str:
    part = part.rstrip(",;")
    return part[:1].upper() + part[1:]
