"""Query-side helpers for recall: plain text rules, no model.

``split_authors`` serves conversational memory, where each item's ``author`` is a participant.
A question such as "What did Caroline research?" carries two kinds of signal: *whose* words to
look at (Caroline's) and *what* to look for ("research"). Left in the text, the name is a poor
search word: it is in the ``"Caroline: …"`` prefix of half the items and in every turn that
*addresses* her ("Thanks, Caroline!"), so it pulls in what was said to her. Split off, it
becomes a metadata match (``RecallOptions(authors=…, author_boost=…)``) and the words left
search for the content. On LoCoMo (dev split) this was worth about +1.5 points of recall@10 over
the boost alone (bench/README.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from reverie.recall.normalize import STOPWORDS, tokenize

__all__ = ["AuthorSplit", "split_authors"]


@dataclass(frozen=True, slots=True)
class AuthorSplit:
    """A query with the names of the authors it mentions taken out, and those authors."""

    query: str
    authors: tuple[str, ...]


def split_authors(query: str, authors: Iterable[str]) -> AuthorSplit:
    """Take the names of known ``authors`` out of ``query`` and return them separately.

    A name matches as a whole word sequence, case-insensitively, with any run of spaces or
    punctuation between its words and an optional possessive (``Caroline's``, ``Caroline’s``).
    ``authors`` come back in the order given, each once. When removing the names would leave
    nothing but stop-words ("Caroline?", "What did Caroline do?"), the query text is returned
    unchanged (the authors are still reported). The caller chooses the names: a participant
    called "May" or "Will" would also be taken out of "in May" or "will".
    """
    named: list[str] = []
    rest = query
    for author in dict.fromkeys(authors):
        words = re.findall(r"\w+", author)
        if not words:
            continue
        pattern = re.compile(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?:['’]s)?(?!\w)", re.IGNORECASE)
        stripped = pattern.sub(" ", rest)
        if stripped != rest:
            named.append(author)
            rest = stripped
    if not named:
        return AuthorSplit(query, ())
    rest = re.sub(r"\s+", " ", rest).strip()
    if all(token in STOPWORDS for token in tokenize(rest)):
        return AuthorSplit(query, tuple(named))
    return AuthorSplit(rest, tuple(named))
