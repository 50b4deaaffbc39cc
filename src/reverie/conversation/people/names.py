"""Names of people: checking one, comparing two, and telling whether a mention may be a known person.

Why rules and not a model: "Bob", "Robert" and "Bob Smith" are one person by convention
(a nickname, a first name), and the conventions fit in a table; a wrong merge is worse than a
missed one (two people's facts become one person's), so a short mention is merged only when
exactly one known person fits it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from reverie.conversation.people.lexicon import NICKNAMES, NOT_NAMES, TITLES
from reverie.errors import InvalidInputError, LimitExceededError
from reverie.model.textform import canonical
from reverie.model.validate import check_unicode

MAX_PERSON_NAME_CHARS = 120
_TOKEN = re.compile(r"[\w.'-]+")


def check_person_name(value: object, field: str = "person name") -> str:
    """A person's name as given by a caller: a non-blank string, bounded, no control characters.

    Why refuse control characters: a name is printed in claims ("Dana is Alice's sister") and in
    every face; a newline in it would forge a line there. The name comes back composed (NFC), so
    "José" typed decomposed (as macOS gives it) is the same name item, not a second person.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}")
    name = " ".join(value.split()) if value.strip() else ""
    if not name:
        raise InvalidInputError(f"{field} is empty; give a name such as 'Dana' or 'Bob Smith'")
    check_unicode(value, field)
    if len(name) > MAX_PERSON_NAME_CHARS:
        raise LimitExceededError(f"{field} has {len(name)} characters; the limit is {MAX_PERSON_NAME_CHARS}")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf")), None)
    if bad is not None:
        raise InvalidInputError(
            f"{field} {value[:40]!r} contains the control character U+{ord(bad):04X}; names are plain text"
        )
    return canonical(name)


@functools.lru_cache(maxsize=8192)
def tokens(name: str) -> tuple[str, ...]:
    """The folded words of a name, titles left out: ``"Dr. Ada Lovelace"`` → ``("ada", "lovelace")``.

    Memoised (a pure function of one string): listing people compares every relation's names
    with every name of the persons its claim is about, the same few hundred names again and again.
    Compared in ``textform.canonical`` form: a decomposed accent is not a word break.
    """
    words = [w.casefold().strip(".'-") for w in _TOKEN.findall(canonical(name))]
    kept = tuple(w for w in words if w and w not in TITLES and w.rstrip(".") not in TITLES)
    return kept or tuple(w for w in words if w)


def has_title(name: str) -> bool:
    words = [w.casefold() for w in _TOKEN.findall(canonical(name))]
    return bool(words) and (words[0] in TITLES or words[0].rstrip(".") in TITLES)


def given_forms(word: str) -> frozenset[str]:
    """A given name and the full names it is short for (``bob`` → ``{bob, robert}``)."""
    return frozenset((word, *NICKNAMES.get(word, ())))


def may_be_name(word: str) -> bool:
    """Could this capitalised word be (part of) a person's name?"""
    return bool(word) and word[0].isupper() and word.casefold() not in NOT_NAMES


def same_name(a: str, b: str) -> bool:
    return tokens(a) == tokens(b)


def fits(mention: str, name: str) -> bool:
    """May ``mention`` refer to the person called ``name``?

    Equal names; a nickname or first name of it (``Bob`` / ``Robert`` ~ ``Bob Smith``); a titled
    surname (``Professor Lee`` ~ ``Katherine Lee``); or the full name of a one-word name
    (``Felix Braun`` ~ ``Felix``). Never two different surnames.
    """
    m, n = tokens(mention), tokens(name)
    if not m or not n:
        return False
    if m == n:
        return True
    if len(m) == 1 and len(n) == 1:
        return _given_match(m[0], n[0])
    if len(m) == 1:
        if has_title(mention) and m[0] == n[-1]:
            return True
        return _given_match(m[0], n[0])
    if len(n) == 1:
        if has_title(name) and n[0] == m[-1]:
            return True
        return _given_match(n[0], m[0])
    return m[-1] == n[-1] and _given_match(m[0], n[0])


def clash(a: str, b: str) -> bool:
    """Do names ``a`` and ``b`` contradict each other, so that no one person can bear both?

    Two surnames that differ ("Robert Smith" / "Robert Jones"), or two given names no nickname
    joins ("Anita Patel" / "Raj", "Robert Smith" / "Albert"). Names that ``fits`` never clash;
    names that neither fit nor clash ("Bob" / "Professor Lee") say different things about one
    person and may both be theirs — through a name that fits both ("Robert Lee").
    """
    if fits(a, b) or fits(b, a):
        return False
    (given_a, surname_a), (given_b, surname_b) = _parts(a), _parts(b)
    if surname_a and surname_b and surname_a != surname_b:
        return True
    return bool(given_a and given_b and not _given_match(given_a, given_b))


def fits_person(mention: str, names: Iterable[str]) -> bool:
    """May ``mention`` name the person who bears all of ``names``?

    It must fit one of them and clash with none. Why every name: a person is the union of their
    names, and a mention that fits one ("Robert Jones" fits "Bob") but contradicts another
    ("Robert Smith", also Bob's) names somebody else — checking one name at a time fused the two.
    """
    known = list(names)
    return any(fits(mention, n) for n in known) and not any(clash(mention, n) for n in known)


def _parts(name: str) -> tuple[str | None, str | None]:
    """(given name, surname) as far as ``name`` says: "Dr. Patel" has only a surname, "Bob" only a given name."""
    words = tokens(name)
    if not words:
        return None, None
    if len(words) == 1:
        return (None, words[0]) if has_title(name) else (words[0], None)
    return words[0], words[-1]


def _given_match(a: str, b: str) -> bool:
    return bool(given_forms(a) & given_forms(b))


def best_display(names: Iterable[str]) -> str:
    """The name a person is shown by: the fullest untitled one (most words, then longest, then first)."""
    ordered: Sequence[str] = list(names)
    return max(enumerate(ordered), key=lambda p: (not has_title(p[1]), len(tokens(p[1])), len(p[1]), -p[0]))[1]
