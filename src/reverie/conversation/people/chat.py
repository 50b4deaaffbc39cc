"""How people type in a chat, undone before the rules read it: lower case, run-ons, fragments.

Why: the person rules read capitals as evidence ("Priya" at the head of a sentence, "Dr Lewis"),
and an outside set written in casual typing ("talked to priya yesterday, she's moving to leeds")
lost most of its facts: a lower-case sentence start was taken for no sentence at all and a
lower-case name for no name. A message typed in lower case is given back the capitals its writer
left out — the sentence starts, "i", and the words that are names by the same evidence the rules
use elsewhere (a common given name, a person the conversation already knows, the word after a
title) — and nothing else: a message that uses capitals meant its lower-case words to be words.

A run-on message ("…the train was cancelled, then i had to get a taxi …, oh and i start the new
job on monday") is cut where a new clause starts with its own doer, so the buried fact gets a
subject of its own. A fragment with its subject left out ("900 quid last time", "needs help with
boxes", "due in august") is recognised here; whose it is (the person the talk is about) is the
extractor's call.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TITLES = _words("dr mr mrs ms prof")
_I_WORDS = re.compile(r"\b(i)(?=\b|'|’)")
#: A sentence after the first that starts in lower case ("…at number 12. his son Eli …"; not "e.g. a").
_LOWER_START = re.compile(r"(?:^|\s)(?!(?:etc|approx|vs)[.])[\w'’]{2,}[.!?]\s+[a-z]")
_SENTENCE_START = re.compile(r"(^|[.!?]\s+)([a-z])")


def casual(text: str) -> bool:
    """Typed in lower case: the message opens with a lower-case letter, or a later sentence does, or
    it uses no capital but "I"."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    if letters[0].islower() or _LOWER_START.search(text):
        return True
    return not any(w[0].isupper() for w in re.findall(r"[A-Za-z][\w'’]*", text) if w not in ("I", "I'm", "I've"))


def recase(text: str, is_name: Callable[[str], bool]) -> str:
    """``text`` (typed in lower case) with the capitals it left out: sentence starts, "i", a title
    and the word after it ("dr lewis"), and each lower-case word ``is_name`` says is a name."""
    words = text.split(" ")
    out: list[str] = []
    for i, w in enumerate(words):
        bare = w.strip('.,;:!?"“”()')
        stem = bare[:-2] if bare.endswith(("'s", "’s")) else bare
        low = stem.lower()
        after_title = i > 0 and words[i - 1].lower().rstrip(".") in _TITLES
        if (
            stem.islower()
            and stem.isalpha()
            and (after_title or (low in _TITLES and i + 1 < len(words)) or is_name(low))
        ):
            w = w.replace(stem, stem.capitalize(), 1)
        out.append(w)
    joined = " ".join(out)
    joined = _I_WORDS.sub("I", joined)
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), joined)


#: A clause of a long sentence that starts with a doer of its own, after a comma and a joining
#: word ("…, then i had to get a taxi", "…, oh and i start the new job", "…, also i should mention").
_CLAUSE = re.compile(
    r",\s+(?:(?:oh|and|but|so|then|also|plus|anyway)\s+)*(?=(?:i|i'm|i've|i'll|we|we're|we've|my|he|she|he's|she's)\b)",
    re.I,
)
#: Below this many words a sentence is read whole (a comma there is rarely a new clause).
RUN_ON_WORDS = 20


def clauses(sentence: str) -> list[str]:
    """A run-on sentence cut before each clause with a doer of its own; a short one whole."""
    if len(sentence.split()) < RUN_ON_WORDS:
        return [sentence]
    parts = [p.strip() for p in _CLAUSE.split(sentence) if p.strip()]
    return [p[0].upper() + p[1:] for p in parts]


#: Verbs with the third-person -s that a thing takes as often as a person ("costs 300", "sounds
#: good"): a fragment opening with one says nothing about a person.
_THING_VERBS = _words("costs sounds looks seems means takes depends happens goes works helps")
#: Words after a verb with the -s whose subject was left out ("sleeps 20 hours", "lives in Perth");
#: a plural noun is seldom followed by one ("mountains then", "kids are asleep").
_FUNCTION_WORDS = _words(
    "a an the to in at on for with from about up out like all every his her their its home well late early"
)
#: Verbs with the -s that take a noun or a verb after them ("needs help", "wants oak").
_OBJECT_VERBS = _words("needs wants has loves hates likes knows owns misses")
#: A verbless phrase has no auxiliary or copula ("December would have been easier" is a sentence).
_AUXILIARIES = _words("is was are were be been would will could should can have has had do does did")
_AMOUNT = re.compile(
    r"\b(\d+(?:st|nd|rd|th|k|m)?|once|twice|(?:a|per|each|every) (?:day|week|month|year)|"
    r"january|february|march|april|june|july|august|september|october|november|december)\b",
    re.I,
)


#: Words of a reply that says nothing ("No idea.", "Not sure yet.", "Of course.").
_NO_ANSWER = _words("no not nope idea sure maybe perhaps course really thanks thank definitely probably okay ok yes")
#: An answer this long or longer is a sentence, not a fragment.
ANSWER_WORDS = 9


def answer(words: list[str]) -> bool:
    """Could ``words`` be a verbless answer to a question ("Backend engineer.", "Summer internship
    at Siemens in Munich.")? Two words or more, no auxiliary, none that answers nothing."""
    low = {w.lower().strip(",.;:!") for w in words}
    return 2 <= len(words) < ANSWER_WORDS and not low & (_AUXILIARIES | _NO_ANSWER)


def fragment(words: list[str]) -> str | None:
    """What kind of fragment with its subject left out ``words`` are, if they are one:
    ``"third"`` — a verb with the third-person -s opens it, its doer someone else ("needs help
    with boxes", "sleeps 20 hours a day"); ``"detail"`` — a phrase that carries an amount or a
    date ("900 quid last time", "due in august", "6 years now"); None — no fragment of a fact."""
    if len(words) < 3:
        return None
    first = words[0].lower().strip(",.;:!")
    if (
        first.endswith("s")
        and not first.endswith(("ss", "'s", "’s", "us", "is"))
        and first.isalpha()
        and first not in _THING_VERBS
        and (words[1].lower() in _FUNCTION_WORDS or words[1][:1].isdigit() or first in _OBJECT_VERBS)
    ):
        return "third"
    if _AMOUNT.search(" ".join(words)) and not {w.lower().strip(",.") for w in words} & _AUXILIARIES:
        return "detail"
    return None
