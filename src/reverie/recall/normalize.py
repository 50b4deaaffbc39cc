"""Full-text query normalising for SQLite FTS5: user text in, a MATCH expression that cannot fail out.

Why this module exists: FTS5's query language treats ``"``, ``*``, ``^``, ``:``, ``(``, ``)``,
``-``, ``+``, ``AND``/``OR``/``NOT``/``NEAR`` and column names as syntax, so passing a user's words
straight to ``MATCH`` raises ``fts5: syntax error`` on ordinary text such as ``don't`` or
``text:foo``. :func:`fts_query` never emits syntax from user text: every word becomes a double-quoted
FTS5 string, which FTS5 hands to the tokenizer verbatim.

:func:`tokenize` (``store.fts_tokens``) is the exact Python mirror of how FTS5 splits and folds
text, so that stop-word pruning, de-duplication and the in-memory reference store see the same
tokens SQLite indexes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Literal

from reverie.model.textform import CJK_RANGES
from reverie.store.fts_tokens import FTS_TOKENIZE, tokenize

__all__ = ["FTS_TOKENIZE", "MAX_PHRASE_TOKENS", "MAX_QUERY_TERMS", "STOPWORDS", "fts_query", "tokenize"]

#: At most this many quoted terms in one MATCH expression. Each OR-ed term costs a posting-list
#: scan, and a pasted page of text would otherwise become a query of thousands of terms.
MAX_QUERY_TERMS = 64

#: A word that splits into more tokens than this (a long URL, a path) keeps only its first ones:
#: the shortened phrase still matches every document holding the whole word.
MAX_PHRASE_TOKENS = 32

#: English stop-words, already folded the way :func:`tokenize` folds. The contraction fragments
#: (``don``, ``t``, ``ll``, ``ve``...) are here because FTS5 splits ``don't`` into ``don`` + ``t``.
#: Left out on purpose, because a memory query is plausibly about them: ``us`` (the U.S.), ``may``
#: (the month), ``will`` (a name, a testament), ``first``/``last``, numbers.
STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been before
    being below between both but by can cannot could couldn d did didn do does doesn doing don down
    during each few for from further had hadn has hasn have haven having he her here hers herself
    him himself his how i if in into is isn it its itself just let ll m me more most mustn my myself
    no nor not now o of off on once only or other ought our ours ourselves out over own re s same
    shan she should shouldn so some such t than that the their theirs them themselves then there
    these they this those through to too under until up ve very was wasn we were weren what when
    where which while who whom whose why with won would wouldn y you your yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads better as text than as 155 quoted lines
)

_Mode = Literal["or", "and"]
_CJK = re.compile(f"[{CJK_RANGES}]")
_WORD = re.compile(r"\S+")
_JOINERS: dict[str, str] = {"or": " OR ", "and": " AND "}


def fts_query(text: str, *, stopwords: frozenset[str] = STOPWORDS, mode: _Mode = "or") -> str | None:
    """Turn arbitrary user text into a safe FTS5 MATCH expression, or None if nothing is searchable.

    Each whitespace-separated word becomes one double-quoted FTS5 string: a single token
    (``"c++"``) or, when FTS5 would split the word (``GB/s``, ``don't``, ``e-mail``), a phrase of its
    tokens (``"gb s"``), so the word matches only where its parts stand together. Terms are joined
    with ``OR`` (recall; bm25 ranks documents matching more terms higher) or ``AND``.

    Stop-words (compared after folding, so ``stopwords`` must hold folded tokens) are dropped,
    unless every word is one: "who are you" still searches for something. Terms are de-duplicated
    and capped at :data:`MAX_QUERY_TERMS`. Never raises on any ``str``; lone surrogates, NUL and
    other separators simply vanish.
    """
    if mode not in _JOINERS:
        raise ValueError(f"mode must be 'or' or 'and', got {mode!r}")
    terms = _select_terms(_word_terms(text), stopwords)
    if not terms:
        return None
    return _JOINERS[mode].join(_quote(term) for term in terms)


def _word_terms(text: str) -> Iterator[tuple[str, ...]]:
    """Yield each word's tokens, lazily, so a huge input stops costing once enough terms are found.

    A word holding CJK characters (indexed one character apiece: ``fts_tokens.index_form``)
    yields each pair of neighbouring CJK characters as a phrase, and its other tokens alone: a
    Japanese or Chinese question is one "word" with no spaces, and as one phrase it would match
    only itself word for word, while its pairs ("東京", "会議") rank what shares most of them.
    An ASCII word holds no CJK character, so it skips that check (most queries are all ASCII).
    """
    for match in _WORD.finditer(text):
        word = match.group()
        tokens = tokenize(word)
        if not word.isascii() and any(_is_cjk(t) for t in tokens):
            yield from _cjk_terms(tokens)
        elif tokens:
            yield tuple(tokens[:MAX_PHRASE_TOKENS])


def _is_cjk(token: str) -> bool:
    return len(token) == 1 and _CJK.match(token) is not None


def _cjk_terms(tokens: list[str]) -> Iterator[tuple[str, ...]]:
    """Neighbouring CJK characters as two-token phrases (a lone one alone), other tokens alone."""
    run: list[str] = []
    for token in [*tokens, ""]:
        if token and _is_cjk(token):
            run.append(token)
            continue
        if len(run) == 1:
            yield (run[0],)
        yield from itertools.pairwise(run)
        run = []
        if token:
            yield (token,)


def _select_terms(words: Iterator[tuple[str, ...]], stopwords: frozenset[str]) -> list[tuple[str, ...]]:
    """De-duplicate, drop stop-words unless nothing else is left, and cap the count."""
    content: dict[tuple[str, ...], None] = {}  # a dict keeps first-seen order
    stops: dict[tuple[str, ...], None] = {}
    for word in words:
        bucket = stops if all(token in stopwords for token in word) else content
        if len(bucket) < MAX_QUERY_TERMS:
            bucket.setdefault(word)
        if len(content) >= MAX_QUERY_TERMS:
            break
    return list(content or stops)


def _quote(tokens: tuple[str, ...]) -> str:
    """An FTS5 string literal: inside double quotes only ``"`` is special, and it is escaped by doubling.

    Tokens never contain ``"`` (it is a separator), so the doubling is a second line of defence.
    """
    return '"' + " ".join(tokens).replace('"', '""') + '"'
