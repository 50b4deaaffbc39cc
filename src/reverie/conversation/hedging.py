"""Hearsay and hedges: what a speaker reports or guesses is proposed as a hypothesis, not a fact.

Why (outside tester, session 32): "Rumour has it that Dana lives in Lisbon.", "I heard that …",
"Supposedly …", "People say …", "Apparently …" (which the rules took off as a filler word) and
"I think maybe …" were proposed as firm as "Dana lives in Lisbon." said outright. A demanding
user wants the report kept — recall should find that Alice heard it — but never as a fact, and
never at a fact's confidence. So a hedged statement becomes a claim that says it is hearsay or a
guess (its frame kept in its words: "Alice heard that Dana lives in Lisbon."), marked ``hedged``
(written as kind ``hypothesis``) at ``HEDGED_CONFIDENCE``; the conflict rules read the same words
as a hedge (``reverie.model.hedges``), so it does not stand against a fact as an equal.

- ``frame``: a hearsay or hedge phrase in front of a statement ("Rumour has it that", "Word is",
  "I heard that", "People say", "Someone told me", "I think maybe", "Apparently", "Supposedly,").
  Some frames are hedges whatever follows; "I heard", "People say" and "I think" without "that"
  are one only when a statement follows ("I heard a noise downstairs" is the speaker's fact).
- ``hedged``: a claim whose own words carry a hedge ("Dana probably lives in Lisbon", "…,
  apparently", "Omar might move") is one too.
- ``rehedged``: a model's claim that left out its message's hedge ("Dana lives in Oslo" for "Dana
  probably lives in Oslo") with the hedge put back in its words (``vetting``), so the stored text
  never reads as a fact.
- ``as_hypothesis``: the proposal, hedged. A relation of the speaker's own said inside hearsay
  ("I heard my sister Dana moved") stays firm — who her sister is the speaker knows; another's
  relation heard of is no relation, only words that say it was heard.

A report from someone named ("Priya said Omar got promoted") is not hearsay: it says who said it,
and stays a fact about Omar as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from reverie.conversation.people.lexicon import NOT_NAMES, PLACES_AND_COMPANIES
from reverie.conversation.proposal import Proposal
from reverie.conversation.rewrite import finish, first_person
from reverie.model.hedges import HEARSAY_ADVERBS, HEDGES

#: Common words written with a capital wherever they stand (so no sign of a title after "Maybe").
_ALWAYS_CAPITAL = PLACES_AND_COMPANIES | frozenset(
    str.split(
        """
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december christmas easter halloween thanksgiving ramadan eid diwali hanukkah
    passover i i'm i've i'd i'll mr mrs ms dr miss prof professor
    """
    )
)
#: How sure a hedged or hearsay claim is (below a fragment's 0.5: the speaker does not vouch for it).
HEDGED_CONFIDENCE = 0.3

_WORDS = HEDGES | HEARSAY_ADVERBS
#: Hedge adverbs that may open a statement ("Apparently, …", "Maybe …"); "might", "seems" and
#: "likely" do not open one.
_LEADING = sorted(_WORDS - {"might", "seems", "likely"})
_RUMOUR = r"rumou?r"
_CROWD = r"(?:people|everyone|everybody|some\s+people|someone|somebody|folks)"
_SAY = r"(?:say|says|said|claim|claims|reckon|reckons)"
_WE = r"(?:i|we)"
_HEARD = rf"{_WE}(?:['’]ve|\s+have)?\s+(?:heard|hear)"
_THINK = rf"{_WE}\s+(?:think|guess|suppose|reckon)"
_ADVERB = r"(?:" + "|".join(_LEADING) + r")\b,?"
#: Frames that make what follows hearsay or a guess, whatever it is.
_ALWAYS = re.compile(
    r"^(?:"
    rf"{_RUMOUR}\s+has\s+it(?:\s+that)?|{_RUMOUR}s?\s+says?(?:\s+that)?|word\s+(?:is|has\s+it)(?:\s+that)?"
    rf"|the\s+(?:{_RUMOUR}|word|story|gossip)\s+is(?:\s+that)?|there(?:['’]s|\s+is)\s+a\s+{_RUMOUR}(?:\s+that)?"
    rf"|{_HEARD}\s+that|{_CROWD}\s+{_SAY}\s+that|(?:someone|somebody)\s+told\s+(?:me|us)(?:\s+that)?"
    rf"|{_THINK}(?:\s+that)?\s+{_ADVERB}|{_THINK}\s+that|{_WE}\s+believe\s+that|it\s+seems(?:\s+that|\s+like)?"
    rf"|{_ADVERB}"
    r")\s+",
    re.I,
)
#: Frames that are hearsay or a guess only when a statement follows ("I heard a noise" is not).
_IF_STATED = re.compile(rf"^(?:{_HEARD}|{_CROWD}\s+{_SAY}|{_THINK})\s+", re.I)


@dataclass(frozen=True, slots=True)
class Frame:
    """A hearsay or hedge phrase in front of a statement: its words, the statement, and whether it
    hedges whatever follows (else only a statement: see ``_IF_STATED``)."""

    words: str
    statement: str
    always: bool


def frame(said: str) -> Frame | None:
    """The hearsay or hedge frame ``said`` opens with, if any."""
    for pattern, always in ((_ALWAYS, True), (_IF_STATED, False)):
        m = pattern.match(said)
        if m is not None and said[m.end() :].strip() and not opens_title(said.split()):
            return Frame(said[: m.end()].strip(), said[m.end() :].strip(), always)
    return None


def hedged(text: str) -> bool:
    """Do a claim's own words carry a hedge ("probably", "apparently", "might", "supposedly" …)?
    A capitalised word counts only first ("Likely Dana will come"), and not as a title's first
    word ("Maybe Tomorrow is my favourite song": see ``opens_title``)."""
    if opens_title(text.split()):
        return False
    words = re.findall(r"[A-Za-z]+", text)
    return any(w.casefold() in _WORDS and (i == 0 or w.islower()) for i, w in enumerate(words))


def opens_title(words: list[str]) -> bool:
    """Do ``words`` open with a title that starts with a hedge word ("Maybe Tomorrow", "Perhaps
    Love")? A hedge adverb with no comma before a capitalised common word: a common word is
    capitalised after the first only in a title — unless it always is (a weekday, a month, a
    place, "I": "Maybe Monday works", "Maybe I'll go" hedge). A name after it ("Maybe Dana …")
    is no common word: a hedge too."""
    if len(words) < 2 or words[0].casefold() not in _WORDS or not words[0][:1].isupper():
        return False
    nxt = words[1].strip('.,;:!?"“”()')
    folded = nxt.casefold()
    return nxt[:1].isupper() and folded in NOT_NAMES and folded not in _ALWAYS_CAPITAL


def as_hypothesis(p: Proposal, speaker: str, said: Frame | None = None) -> Proposal:
    """``p`` hedged: its frame (in the speaker's name) put back in front of its words."""
    if p.relation is not None and p.relation[2] == speaker:
        return p  # "I heard my sister Dana moved": that Dana is her sister she knows
    text = p.text
    if said is not None:
        lead = first_person(said.words, speaker) or said.words
        text = f"{lead} {_continued(p.text, said.statement)}"
    category = "fact" if p.relation is not None else p.category
    confidence = min(p.confidence, HEDGED_CONFIDENCE)
    return replace(p, text=finish(text), category=category, relation=None, confidence=confidence, hedged=True)


#: The adverb that says what a hedge verb says, for a claim the verb cannot be put back into.
_AS_ADVERB = {"might": "possibly", "seems": "apparently", "likely": "probably"}
_MODALS = frozenset(str.split("will would can could shall should may must"))


def rehedged(text: str, said: str) -> str:
    """``text`` (a claim that dropped the hedge of the words it came from, ``said``) with the hedge
    put back: "Dana lives in Oslo" from "Dana probably lives in Oslo." → "Dana probably lives in
    Oslo."; "Omar will move to Oslo" from "Omar might move …" → "Omar might move to Oslo."; "…,
    apparently" at the end stays there. Where the words around the hedge are not in ``text`` (the
    model reworded them), the hedge opens it: "Probably, Dana resides in Oslo." ``text`` as it was
    when ``said`` carries no hedge or ``text`` already does."""
    if hedged(text) or not hedged(said):
        return text
    words = re.findall(r"[A-Za-z]+(?:['’][A-Za-z]+)*", said)  # the words ``hedged`` reads
    at = next((i for i, w in enumerate(words) if w.casefold() in _WORDS and (i == 0 or w.islower())), None)
    hedge = words[at].casefold() if at is not None else "possibly"
    body = text.rstrip(".! ")
    if at is not None and at == len(words) - 1 and at > 0:
        return finish(f"{body}, {hedge}")  # "Dana lives in Oslo, apparently."
    nxt = words[at + 1] if at is not None and at + 1 < len(words) else ""
    low = nxt.casefold()
    out = body.split()
    folded = [w.strip('.,;:!?"“”()').casefold() for w in out]
    forms = (low, low + "s", low + "es", low.removesuffix("e") + "es", low.removesuffix("y") + "ies")
    j = next((k for k, w in enumerate(folded) if low and w in forms), None)
    if j is not None and j > 0 and hedge == "might":  # "Omar will move" → "Omar might move"
        start = j - 1 if folded[j - 1] in _MODALS else j
        return finish(" ".join([*out[:start], "might", nxt, *out[j + 1 :]]))
    if j is not None and j > 0 and hedge != "seems":  # "Dana lives" → "Dana probably lives"
        return finish(" ".join([*out[:j], hedge, *out[j:]]))
    adverb = _AS_ADVERB.get(hedge, hedge)
    first = body.split()[0] if body.split() else ""
    if first.casefold() in NOT_NAMES and first.casefold() not in _ALWAYS_CAPITAL:
        body = body[:1].lower() + body[1:]
    return finish(f"{adverb.capitalize()}, {body}")


def _continued(claim: str, statement: str) -> str:
    """The claim's words as they read after a frame: "The office …" → "the office …" when the
    statement said it in lower case; a name or the speaker's name keeps its capital."""
    first, said = claim.split()[:1], statement.split()[:1]
    if first and said and first[0].casefold() == said[0].casefold() and said[0][:1].islower():
        return claim[:1].lower() + claim[1:]
    return claim
