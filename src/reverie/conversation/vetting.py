"""A model's proposal read against the words it came from: hedged where they hedge, dropped where denied.

Why (helper mining2, session 32): the LLM extractor (``conversation.llm``) turned "Rumour has it
Dana moves to Leeds." into the firm "Dana moves to Leeds" — the hearsay the rules write as a
hypothesis (``hedging``) went in as an assertion — and nothing stopped it proposing a statement
the speaker denied ("It's not true that Dana lives in Lisbon"). A model may only propose; what
the speaker vouched for is decided by the same rules as the rule extractor's.

``vet`` finds the part of the message a proposal rests on (the clause, cut at its denials as
``framing.denials`` cuts it, that shares the most content words with the proposal) and reads it:

- denied there → None (the caller drops it with a reason);
- hearsay or a hedge there ("Rumour has it …", "I heard that …", "Dana probably …") or in the
  proposal's own words → a hypothesis at ``HEDGED_CONFIDENCE`` (``hedging.as_hypothesis``), the
  frame put in front of its words unless they already carry it. A frame that hedges only a
  statement ("I heard", "I think") does not hedge a proposal about the speaker that keeps the
  frame's verb ("Alice heard a noise downstairs": her own fact, as the rules read it). A hedge
  inside the words ("Dana probably lives in Oslo") that the proposal left out is put back in its
  text (``hedging.rehedged``; helper mining33): a hypothesis whose words read as a fact misled
  whoever read it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from reverie.conversation.extract import sentences
from reverie.conversation.hedging import Frame, as_hypothesis, frame, hedged, rehedged
from reverie.conversation.people.chat import clauses
from reverie.conversation.people.framing import denials
from reverie.conversation.proposal import Proposal
from reverie.conversation.rewrite import first_person
from reverie.recall.normalize import STOPWORDS

#: Openers the rules read past before a frame ("Well, apparently …", "Honestly, I heard that …").
_FILLER = re.compile(r"^(?:(?:well|oh|so|and|but|also|honestly|actually|anyway|btw|hmm|ok|okay)\b[,.!]?\s*)+", re.I)


def vet(p: Proposal, message: str, speaker: str) -> Proposal | None:
    """``p`` as the speaker's words allow: None when they deny what it says, hedged when they hedge it."""
    part = _source(p.text, message)
    if part is None:
        return p
    said, denied = part
    if denied:
        return None
    if p.hedged:
        return p
    said = _FILLER.sub("", said).strip() or said
    around = frame(said)
    if around is not None and (around.always or not _own_report(p, around, speaker)):
        return as_hypothesis(p, speaker, None if _carries(p.text, around, speaker) else around)
    if hedged(said) and frame(p.text) is None and not hedged(p.text):
        # the model dropped the hedge ("Dana probably lives in Oslo" → "Dana lives in Oslo"):
        # its words must say it is a guess, as the message did, or a reader takes it for a fact
        return as_hypothesis(replace(p, text=rehedged(p.text, said)), speaker)
    if hedged(said) or frame(p.text) is not None or hedged(p.text):
        return as_hypothesis(p, speaker)
    return p


def _source(text: str, message: str) -> tuple[str, bool] | None:
    """The part of ``message`` that shares the most content words with ``text``, and whether the
    speaker denied it; None when no part shares any."""
    parts: list[tuple[str, bool]] = []
    for s in sentences(message):
        for clause in clauses(s):
            back, cut = denials(clause)
            if back and parts:
                parts[-1] = (parts[-1][0], True)  # "… That's not true." takes back what came before
            parts.extend(cut)
    want = _content(text)
    best: tuple[str, bool] | None = None
    score = 0
    for said, denied in parts:
        shared = len(want & _content(said))
        if shared > score or (shared == score and best is not None and best[1] and not denied):
            # a tie goes to what was said, not denied ("Dana lives in Lisbon, but that's not
            # true, she lives in Porto" → "Dana lives in Porto")
            best, score = (said, denied), shared
    return best


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in STOPWORDS and len(w) > 2}


def _own_report(p: Proposal, around: Frame, speaker: str) -> bool:
    """Is ``p`` the speaker's own report of the frame ("Alice heard a noise", "Alice thinks it's
    great"): about the speaker, with the frame's verb in its words?"""
    verb = around.words.split()[-1].casefold().rstrip(",")
    return p.subject == speaker and bool(re.search(rf"\b{re.escape(verb[:4])}", p.text.casefold()))


def _carries(text: str, around: Frame, speaker: str) -> bool:
    """Do the proposal's words already say the frame ("Alice heard that …", "Rumour has it …")?"""
    lead = (first_person(around.words, speaker) or around.words).casefold()
    folded = text.casefold()
    return folded.startswith(lead) or folded.startswith(around.words.casefold()) or frame(text) is not None
