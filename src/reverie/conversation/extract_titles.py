"""A title named as someone's favourite: "Perfect Day is my favourite song" is the speaker's preference.

Why (helper mining33, session 33): "Perfect Day is my favourite song" yielded nothing ("Perfect"
is a common word, so the sentence opened with no doer), "Jolene is my favourite song" was filed
under a person called Jolene, "Sweet Caroline is my favourite song" under Caroline (its "my"
never put in Alice's name), "Stand By Me is my favourite film" became "Stand By Alice …", and
"Hey Jude is my favourite song" lost its "Hey" to the filler-word stripper. A user who says
which song is their favourite expects that preference kept, with the title as they wrote it.

``title_preference``: a sentence "TITLE is my favourite NOUN" (also "are", "was", "has always
been", "remains"; "my all-time favourite Lou Reed song", "… as a kid"), where TITLE is written
as a title (every word capitalised but small words such as "of", "and", "the"; or in quotes) and
NOUN is a thing — not a person or a role ("Dana is my favourite cousin", "Taylor Swift is my
favourite singer" are left to the person rules). The claim is about the speaker, the title kept
word for word (no "Me" in it turned into the speaker's name), and it names no person.

``keeps_lead``: a greeting or interjection that opens such a title ("Hey Jude", "Oh Carol",
"Hello Goodbye", "Dear Prudence") is part of it, not a filler word to drop; "Hey, Perfect Day
is …" (a comma after it) and "Hey I moved to Denver" drop it as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reverie.conversation.people.lexicon import ROLE_NOUNS
from reverie.conversation.proposal import Proposal
from reverie.conversation.rewrite import finish, first_person

#: Nouns for people: "X is my favourite singer" is about X, a person, not a title.
_PERSON_NOUNS = ROLE_NOUNS | frozenset(
    str.split(
        """
    person people human guy girl boy man woman lady gentleman actor actress writer novelist poet musician rapper
    comedian painter director chef athlete footballer dj band-member human being youtuber streamer influencer
    singer-songwriter composer one
    """
    )
)
#: Small words a title writes in lower case ("The Left Hand of Darkness", "Pride and Prejudice").
_SMALL = frozenset(str.split("a an and the of in on at to by for with from or nor but as vs into upon over"))
#: Words that open no title: "This is my favourite song" names nothing.
_NOT_TITLES = frozenset(
    str.split(
        """
    this that these those it it's its he she they we i you his her their our my your which what there here
    mine one everything something nothing
    """
    )
)
_BE = (
    r"(?:is|are|was|were|has\s+(?:always\s+)?been|have\s+(?:always\s+)?been|remains|will\s+always\s+be)"
    r"(?:\s+(?:still|probably|definitely|really|now|maybe|perhaps|possibly|easily|officially))?"
)
_FAVOURITE = (
    r"(?P<owner>my|our|(?-i:[A-Z][\w-]*(?:\s[A-Z][\w-]*)?)['’]s)\s+"
    r"(?P<rest>(?:(?:all[- ]time|absolute|very|new|current|least|most|second|third|ultimate)\s+)*"
    r"(?:favou?rite|fave)\b(?P<after>.*))"
)
_TITLE_IS = re.compile(rf"^(?P<title>.+?)\s+(?P<be>{_BE})\s+{_FAVOURITE}$", re.I)
#: Words after the noun that end its phrase ("my favourite song as a kid", "… of all time").
_AFTER_NOUN = frozenset(str.split("as of from since ever in at when because for to and but right by on this these so"))
#: Greetings and interjections that may open a title ("Hey Jude", "Oh Carol", "Yes Minister").
_TITLE_LEADS = frozenset(str.split("hey hi hello oh yes no wow dear ah well"))


def title_preference(stated: str, speaker: str, person: Callable[[list[str]], str | None]) -> Proposal | None:
    """The preference ``stated`` says when it names a title as someone's favourite thing: the
    speaker's ("my favourite"), or a person's ("Dana's favourite": ``person`` says who the words
    before "'s" name, None when no person); else None."""
    m = _TITLE_IS.match(stated.strip().rstrip(".!"))
    if m is None or not _is_title(m.group("title")) or _noun(m.group("after")) is None:
        return None
    owner = m.group("owner")
    who = speaker if owner.casefold() in ("my", "our") else person(owner[:-2].split())
    if who is None:
        return None
    rest = first_person(f"{owner} {m.group('rest')}", speaker)
    if rest is None:
        return None
    text = finish(f"{m.group('title')} {m.group('be')} {rest}")
    return Proposal(text, who, "preference", first_person=who == speaker)


def keeps_lead(sentence: str, lead: str) -> bool:
    """Is the word ``lead`` (a filler word the rules would drop) the first word of a title that
    ``sentence`` names as a favourite ("Hey Jude is my favourite song")? Only a greeting or an
    interjection with nothing between it and the next capitalised word."""
    word = lead.strip()
    if not word or word.casefold() not in _TITLE_LEADS or not word[:1].isupper() or not sentence.startswith(word):
        return False
    rest = sentence[len(word) :]
    if not rest[:1].isspace() or not rest.strip()[:1].isupper() or rest.split()[0] in ("I", "I'm", "I've", "I'll"):
        return False
    m = _TITLE_IS.match(sentence.strip().rstrip(".!"))
    return m is not None and _is_title(m.group("title")) and _noun(m.group("after")) is not None


def _is_title(title: str) -> bool:
    """Written as a title: in quotes, or every word capitalised (or a number) but the small ones."""
    t = title.strip()
    if len(t) > 2 and t[0] in "\"“'‘" and t[-1] in "\"”'’":
        return True
    words = t.split()
    if not words or len(words) > 10 or words[0].casefold().strip(",") in _NOT_TITLES:
        return False
    if any(w.endswith(",") for w in words):
        return False  # "Dana, my sister" and asides are not titles
    return all(w[:1].isupper() or w[:1].isdigit() or (i > 0 and w.casefold() in _SMALL) for i, w in enumerate(words))


def _noun(after: str) -> str | None:
    """The thing a favourite is ("song" in "Lou Reed song as a kid"), or None for a person or nothing."""
    phrase: list[str] = []
    for w in after.split():
        low = w.casefold().strip(",;:")
        if low in _AFTER_NOUN or not low:
            break
        phrase.append(low)
        if w.endswith((",", ";", ":")):
            break
    if not phrase or len(phrase) > 4:
        return None
    noun = phrase[-1].removesuffix("'s")
    singular = noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun
    return None if noun in _PERSON_NOUNS or singular in _PERSON_NOUNS else noun
