"""Rewriting what a person said as a claim: first person to the speaker's name, verbs agreed,
contractions opened, the claim's category; and the small readings the rules share (a mood, a
pronoun's gender). Moved out of ``extract`` (which was past 800 lines); no change in behaviour.
"""

from __future__ import annotations

import re

from reverie.conversation.people.lexicon import ADVERBS, FEELINGS, IRREGULAR_PASTS, IRREGULAR_VERBS, MODALS
from reverie.model.hedges import HEARSAY_ADVERBS, HEDGES

_PREFERENCE = re.compile(r"\b(love|loves|like|likes|hate|hates|prefer|prefers|favou?rite|enjoy|enjoys|dislike)\b", re.I)
_DECISION = re.compile(r"\b(decided|decide|chose|chosen|agreed|settled on|going with|go with)\b", re.I)
_PLAN = re.compile(
    r"\b(will|'ll|going to|planning|plan to|plans to|want to|wants to|next (week|month|year)|tomorrow|"
    r"on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|starting|visiting)\b",
    re.I,
)

#: Words between "I" and its verb that leave the verb to agree: "I really love", and the hedge
#: adverbs ("I probably start" → "Alice probably starts", never "Alice probablies start"), and the
#: adverbs of time, degree and frequency ("I now live", "I only drink", "I nearly missed": the
#: adverb took the -s, "Alice nows live", outside probe 7, finding 10).
_BEFORE_VERB = (
    ADVERBS
    | ((HEDGES | HEARSAY_ADVERBS) - {"might", "seems"})
    | frozenset(
        str.split(
            """
        now only nearly rarely seldom even ever once almost hardly barely scarcely mainly generally
        normally typically occasionally frequently again then soon later first originally
        """
        )
    )
)
#: Adverbs of more than one word: "I no longer work" → "Alice no longer works".
_BEFORE_VERB_PHRASES = (("no", "longer"), ("kind", "of"), ("sort", "of"))
#: Verbs that end as an adverb does ("I apply", "I rely", "I fly"): they agree ("applies").
_LY_VERBS = frozenset(str.split("apply reply supply comply imply multiply rely fly ally tally rally bully dally sully"))


def adverb_at(words: list[str], i: int) -> int:
    """How many of ``words`` from ``i`` make an adverb between a subject and its verb (0 for
    none): the one place that knows them, so "I no longer work", "I now live" and "I probably
    start" give their verb the speaker's -s, not the adverb. A word in -ly is an adverb ("I
    occasionally play") unless it is a verb of that ending ("I apply")."""
    low = [w.lower().strip(",") for w in words[i : i + 2]]
    if not low:
        return 0
    if tuple(low) in _BEFORE_VERB_PHRASES:
        return 2
    word = low[0]
    if word in _BEFORE_VERB or (len(word) > 4 and word.endswith("ly") and word.isalpha() and word not in _LY_VERBS):
        return 1
    return 0


_GUESS = re.compile(r"i\s+bet\s+(?:that|he|she|it|they|you|we|there|someone|everyone|nobody)\b")


def gender_of_pronoun(word: str) -> str:
    """ "m" for he / his / he's ..., "f" for she / her / she's ... (never by prefix: "her" is not "he")."""
    return "m" if word.lower().strip(",.!") in ("he", "his", "him", "he's", "he'll", "he'd") else "f"


def mood(stated: str) -> bool:
    """ "I'm worried", "I was surprised", "I'll miss him", "I'm thinking about it": no fact."""
    low = stated.lower()
    words = re.findall(r"[\w']+", low)
    rest = [
        w
        for w in words
        if w
        not in (
            "i",
            "i'm",
            "am",
            "was",
            "feel",
            "so",
            "very",
            "really",
            "honestly",
            "kind",
            "of",
            "a",
            "bit",
            "little",
            "just",
            "too",
            # when the feeling is: "I'm so tired today" is still a mood
            "today",
            "tonight",
            "now",
            "lately",
            "again",
            "yesterday",
            "this",
            "morning",
            "evening",
            "week",
        )
    ]
    if len(rest) <= 1 and (not rest or rest[0] in FEELINGS):
        return True
    if _GUESS.match(low):
        return True  # "I bet he'll come": a guess, not a bet placed ("I bet 50 euros on it" is a fact)
    return low.startswith(("i'm thinking about", "i'll miss", "i miss", "i'll think", "i'm not sure", "i don't know"))


def pronoun_verb(word: str, after: str = "") -> str:
    low = word.lower()
    if low in ("he's", "she's") and after.lower() in ("been", "got", "gone", "had", "done", "seen", "never"):
        return " has"  # "She's been great" is "has been", not "is been"
    return {
        "he's": " is",
        "she's": " is",
        "he'll": " will",
        "she'll": " will",
        "he'd": " would",
        "she'd": " would",
    }.get(low, "")


def category(text: str) -> str:
    if _DECISION.search(text):
        return "decision"
    if _PREFERENCE.search(text):
        return "preference"
    if _PLAN.search(text):
        return "plan"
    return "fact"


def finish(text: str) -> str:
    text = text.strip()
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!")) else text + "."


_CONTRACTIONS = {
    "i'm": " is",
    "i've": " has",
    "i'll": " will",
    "i'd": " would",
    "we're": " are",
    "we've": " have",
    "we'll": " will",
    "we'd": " would",
}


def first_person(text: str, speaker: str) -> str | None:
    """``text`` with "I" / "me" / "my" / "we" / "our" put in the speaker's name; None if nothing is left."""
    words = text.split()
    if not words:
        return None
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        low = w.lower()
        core = low.strip(",.;:!")
        tail = w[len(w.rstrip(",.;:!")) :]
        if core in _CONTRACTIONS:
            who = speaker if core.startswith("i") else f"{speaker} and others"
            out.append(who + _CONTRACTIONS[core] + tail)
        elif core == "i":
            out.append(speaker + tail)
            i = conjugate(words, i + 1, out)
            continue
        elif core == "we":
            out.append(f"{speaker} and others{tail}")
        elif core in ("my", "our"):
            out.append(f"{speaker}'s{tail}")
        elif core in ("me", "myself", "us"):
            out.append(speaker + tail)
        elif core == "mine":
            out.append(f"{speaker}'s{tail}")
        else:
            out.append(w)
        i += 1
    return " ".join(out)


def conjugate(words: list[str], i: int, out: list[str]) -> int:
    """After "I": keep adverbs, then give the verb its third-person form ("I live" → "lives")."""
    while (n := adverb_at(words, i)) > 0:
        out.extend(words[i : i + n])
        i += n
    if i >= len(words):
        return i
    w = words[i]
    low = w.lower()
    core = low.strip(",.;:!")
    tail = w[len(w.rstrip(",.;:!")) :]
    if core in ("don't", "do not"):
        out.append("doesn't" + tail)
    elif core == "haven't":
        out.append("hasn't" + tail)
    elif core in ("am", "was", "were"):
        out.append(("is" if core == "am" else "was") + tail)
    elif core in IRREGULAR_VERBS:
        out.append(IRREGULAR_VERBS[core] + tail)
    elif (
        core in MODALS
        or core in IRREGULAR_PASTS
        or (core.endswith("ed") and not core.endswith("eed"))
        or "'" in core
        or not core.isalpha()
    ):
        out.append(w)
    elif core.endswith(("s", "sh", "ch", "x", "z", "o")):
        out.append(core + "es" + tail)
    elif core.endswith("y") and len(core) > 2 and core[-2] not in "aeiou":
        out.append(core[:-1] + "ies" + tail)
    else:
        out.append(core + "s" + tail)
    return i + 1
