"""Tokens with character offsets, and the crude stemmer every rule shares.

Why offsets on every token: a conflict must point at the words that disagree
(``text[span.start:span.end] == span.text``), so tokens are cut from the original string and
only their *copies* are lower-cased. ``str.lower`` can change a string's length ("İ"), so
lower-casing the whole text first would shift every offset after it.

Why a hand-rolled stemmer: the rules only need "lives" and "lived" to meet at one key, and the
same input must always give the same key. A stemmer that over-merges a little is fine because
every alignment is re-checked against the original words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from reverie.model.hedges import HEDGES as HEDGES  # kept out of alignment but lower the confidence

# Order matters: phone-like codes ("555-1234", "+1-555-123-4567"), numbered codes with a leading
# zero ("2024-0113": nobody writes a range that way) and seat-like codes ("14C"; not B/K/M,
# which multiply) are one word, not a range or a number ("No." before a number is the
# abbreviation of "number", not the negation "no": see ``tokenize``);
# ISO dates and clock times before plain numbers; words may carry inner
# hyphens, apostrophes and dots ("us-east-1", "GPL-3.0", "Lucía's") but never end with one.
_TOKEN = re.compile(
    r"(?P<iso>[0-9]{4}-[0-9]{2}-[0-9]{2})(?![0-9])"
    r"|(?P<code>[0-9]+(?:-[0-9]+){2,}|[0-9]{3}-[0-9]{4}|[0-9]+-0[0-9]+|[0-9]+[ACDEFGHIJLN-Z](?![\w]))(?![0-9])"
    r"|(?P<clock>[0-9]{1,2}:[0-9]{2})(?![0-9])"
    r"|(?P<num>[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?)"
    r"|(?P<word>[^\W\d_](?:[^\W_]|[-'’.](?=[^\W_]))*)"
    r"|(?P<sym>[$€£¥%°~<>+/–—-])"
)

_NUMERO = re.compile(r"\.\s?[0-9]")  # "No. 5512": after "No", the abbreviation of "number"
_NEG_CONTRACTION_BASE = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
_PRONOUN_IS = frozenset({"it", "that", "there", "what", "he", "she", "who", "here", "where"})
_CLITICS = {"'re": "are", "'ve": "have", "'ll": "will", "'m": "am", "'d": "would"}


@dataclass(frozen=True)
class Token:
    """One token of a claim: its surface text, offsets and a lower-cased copy."""

    text: str
    start: int
    end: int
    low: str
    kind: str  # "word" | "num" | "iso" | "clock" | "sym"

    @property
    def cap(self) -> bool:
        """Has an upper-case letter or a digit ("Paris", "iPhone", "us-east-1"): a name or code.

        Most tokens are lower-case words, settled by two C-level string tests: letters only
        (so no digit) and no cased letter that is not lower-case (so none upper-case).
        """
        text = self.text
        if text.isalpha() and text.islower():
            return False
        return any(ch.isupper() or ch.isdigit() for ch in text)


def tokenize(text: str) -> tuple[Token, ...]:
    """Split ``text`` into tokens, expanding "n't", "cannot" and clitics into separate tokens."""
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "sym"
        surface = m.group()
        if kind == "code":
            out.append(Token(surface, m.start(), m.end(), surface.lower(), "word"))
        elif kind == "word":
            if len(surface) == 2 and surface.lower() == "no" and _NUMERO.match(text, m.end()):
                out.append(Token(text[m.start() : m.end() + 1], m.start(), m.end() + 1, "no.", "word"))
                continue
            out.extend(_split_word(surface, m.start()))
        else:
            out.append(Token(surface, m.start(), m.end(), surface.lower(), kind))
    return tuple(out)


def _split_word(surface: str, start: int) -> list[Token]:
    """Cut contractions off a word so a negation is its own token pointing at its own chars."""
    low = surface.lower().replace("’", "'")
    end = start + len(surface)
    if "'" not in low and low != "cannot":  # the common case: no contraction to cut
        return [Token(surface, start, end, low, "word")]
    if low.endswith("n't") and len(low) > 3:
        base = low[:-3]
        base = _NEG_CONTRACTION_BASE.get(base, base)
        return [
            Token(surface[:-3], start, end - 3, base, "word"),
            Token(surface[-3:], end - 3, end, "not", "word"),
        ]
    if low == "cannot":
        return [Token(surface[:3], start, start + 3, "can", "word"), Token(surface[3:], start + 3, end, "not", "word")]
    for clitic, full in _CLITICS.items():
        if low.endswith(clitic) and len(low) > len(clitic):
            cut = len(surface) - len(clitic)
            return [
                Token(surface[:cut], start, start + cut, low[:cut], "word"),
                Token(surface[cut:], start + cut, end, full, "word"),
            ]
    if low.endswith("'s") and len(low) > 2:
        cut = len(surface) - 2
        second = "is" if low[:cut] in _PRONOUN_IS else "'s"
        return [
            Token(surface[:cut], start, start + cut, low[:cut], "word"),
            Token(surface[cut:], start + cut, end, second, "word"),
        ]
    if low.endswith("s'") and len(low) > 2:
        return [Token(surface[:-1], start, end - 1, low[:-1], "word")]
    return [Token(surface, start, end, low, "word")]


_IRREGULAR_STEMS = {
    "children": "child",
    "kids": "child",
    "kid": "child",
    "people": "person",
    "persons": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "has": "have",
    "had": "have",
    "having": "have",
    "does": "do",
    "did": "do",
    "goes": "go",
    "went": "go",
    "ran": "run",
    "running": "run",
    "wrote": "write",
    "written": "write",
    "born": "bear",
    "held": "hold",
    "led": "lead",
    "met": "meet",
    "took": "take",
    "taken": "take",
    "left": "leave",
    "began": "begin",
    "begun": "begin",
    "flew": "fly",
    "flown": "fly",
    "flies": "fly",
    "gone": "go",
    "gotten": "get",
    "drunk": "drink",
    "seen": "see",
    "saw": "see",
    "grew": "grow",
    "grown": "grow",
    "wore": "wear",
    "worn": "wear",
    "taught": "teach",
    "brought": "bring",
    "caught": "catch",
    "chose": "choose",
    "chosen": "choose",
    "rode": "ride",
    "ridden": "ride",
    "swam": "swim",
    "swum": "swim",
    "sang": "sing",
    "sung": "sing",
    "stole": "steal",
    "stolen": "steal",
    "broke": "break",
    "broken": "break",
    "drove": "drive",
    "driven": "drive",
    "ate": "eat",
    "eaten": "eat",
    "drank": "drink",
    "spoke": "speak",
    "spoken": "speak",
    "paid": "pay",
    "sent": "send",
    "kept": "keep",
    "lost": "lose",
    "won": "win",
    "came": "come",
    "known": "know",
    "knew": "know",
    "slept": "sleep",
    "bought": "buy",
    "sold": "sell",
    "told": "tell",
    "said": "say",
    "found": "find",
    "gave": "give",
    "given": "give",
    "got": "get",
    "made": "make",
    "married": "marry",
    "marries": "marry",
}
_KEEP_S = ("ss", "us", "is", "ys", "os")
_VOWELS = frozenset("aeiouy")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Map a lower-cased word to a coarse key so inflections of one word meet.

    Cached: a pure function of one word, called for every word of every claim by every rule.

    Irregular forms are first mapped to their base and then stemmed like any other word,
    so "has", "have" and "having" all land on the same key.
    """
    word = _IRREGULAR_STEMS.get(word, word)
    if len(word) <= 3 or not word.isalpha():
        return word
    base = _strip_suffix(word)
    if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in _VOWELS and base[-1] != "l":
        base = base[:-1]
    return base


def _strip_suffix(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 5:
        return word[:-3]
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ed") and len(word) > 4:
        return word[:-2]
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_KEEP_S):
        word = word[:-1]
    if word.endswith("e") and len(word) > 3:
        return word[:-1]
    return word


# ---- closed word classes the rules consult ------------------------------------------------

ARTICLES = frozenset({"a", "an", "the"})
POSSESSIVE_DETERMINERS = frozenset({"my", "your", "his", "her", "its", "our", "their"})
DETERMINERS = ARTICLES | POSSESSIVE_DETERMINERS | frozenset({"this", "that", "these", "those", "every", "each"})
PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she", "it"})
BE = frozenset({"is", "are", "am", "was", "were", "be", "been", "being"})
HAVE = frozenset({"has", "have", "had"})
DO = frozenset({"do", "does", "did"})
MODALS = frozenset({"will", "would", "can", "could", "should", "must", "might", "shall"})
NEGATIONS = frozenset({"not", "never", "no", "none", "nobody", "nothing", "neither", "nor"})
PREPOSITIONS = frozenset(
    {
        "in", "at", "on", "to", "for", "by", "from", "of", "with", "into", "onto", "under", "near",
        "via", "as", "about", "inside", "within", "during", "since", "until", "till", "per", "than",
        "over", "without", "between", "through", "across", "around", "against", "toward", "towards",
    }
)  # fmt: skip
# Words that change neither the slot nor the claim; dropped before alignment.
FILLERS = frozenset(
    {
        "currently", "now", "still", "really", "actually", "just", "also", "always", "usually",
        "typically", "generally", "definitely", "certainly", "indeed", "presently", "officially",
        "basically", "very", "quite", "so", "ever", "will", "would", "shall", "dr", "mr", "mrs",
        "ms", "prof", "turned", "switched", "fully", "that", "which", "who",
    }
)  # fmt: skip
PAST_MARKERS = frozenset({"formerly", "previously", "once", "ago"})


def is_structural(low: str) -> bool:
    """A function word: never a slot value on its own."""
    return (
        low in PREPOSITIONS
        or low in BE
        or low in HAVE
        or low in DO
        or low in MODALS
        or low in NEGATIONS
        or low in DETERMINERS
        or low in PRONOUNS
        or low in {"and", "or", "but", "'s"}
    )
