"""One comparison form for text, used wherever two spellings must count as the same words.

Why: the same words reach reverie in several code-point spellings. macOS keyboards and file
names give decomposed accents (NFD: ``e`` + U+0301) where others give ``é``; HTML and PDF
extractors leave invisible format characters (category Cf: zero-width space U+200B, soft hyphen
U+00AD, zero-width joiner U+200D, word joiner U+2060, byte-order mark U+FEFF...) inside words.
On screen these are the same text, so a dismissal, a correction, a person's name, a tag filter
or a quote search must treat them as one.

The rule, applied at every comparison (never to what is stored and shown: a claim, a message
and a name keep the code points the user gave): drop every Cf character, then compose (NFC).
Claims' fingerprints go further (``validate.normalise_text``: NFKC, case, spacing), names and
tags stay case-sensitive where they were.
"""

from __future__ import annotations

import unicodedata

__all__ = ["canonical", "spellings", "strip_format"]


class _DropFormat(dict[int, str | None]):
    """A ``str.translate`` table that deletes Cf characters, deciding each code point on first sight.

    ``translate`` loops in C; the table remembers at most ``_CAP`` code points (past it, a new one
    is decided again each time, never wrongly).
    """

    _CAP = 65_536

    def __missing__(self, code_point: int) -> str | None:
        char = chr(code_point)
        kept = None if unicodedata.category(char) == "Cf" else char
        if len(self) < self._CAP:
            self[code_point] = kept
        return kept


_DROP_FORMAT = _DropFormat()


def strip_format(text: str) -> str:
    """``text`` without its invisible format characters (Unicode category Cf)."""
    if text.isascii():
        return text
    return text.translate(_DROP_FORMAT)


def canonical(text: str) -> str:
    """The comparison form of ``text``: format characters dropped, then composed (NFC)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", strip_format(text))


def spellings(text: str) -> tuple[str, ...]:
    """The stored spellings an equality filter on ``text`` must match: its canonical form, that
    form decomposed (NFD: rows written before values were composed at the boundary), and ``text``
    as given. One entry for ASCII, so such filters stay what they were."""
    if text.isascii():
        return (text,)
    composed = canonical(text)
    return tuple(dict.fromkeys((composed, unicodedata.normalize("NFD", composed), text)))


#: Scripts written without spaces between words: Han ideographs (with extensions and compatibility
#: forms), Hiragana, Katakana (and its half-width forms), and Hangul syllables (Korean has spaces,
#: but a particle is written onto its noun: 서울에서 is "in Seoul"). Search treats each of their
#: characters as a word of its own (``fts_tokens.index_form``, ``quote_pattern``), since nothing
#: marks where a word ends. As the inside of a regex character class.
CJK_RANGES = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)


def canonical_with_offsets(text: str) -> tuple[str, list[int], list[int]]:
    """``canonical(text)`` and, for each of its characters, where the characters it came from
    start and end in ``text`` (so a match found in the canonical form points into ``text``).

    A dropped format character belongs to no output character; a base and the marks NFC
    composes onto it (``e`` + U+0301 → ``é``) all map to the one composed character.
    """
    if text.isascii() or (unicodedata.is_normalized("NFC", text) and strip_format(text) == text):
        return text, list(range(len(text))), list(range(1, len(text) + 1))
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cluster, first = "", 0

    def flush(end: int) -> None:
        if cluster:
            composed = unicodedata.normalize("NFC", cluster)
            out.append(composed)
            starts.extend([first] * len(composed))
            ends.extend([end] * len(composed))

    last = 0
    for at, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        joins = bool(cluster) and (
            unicodedata.combining(char) != 0
            or unicodedata.normalize("NFC", cluster + char)
            != unicodedata.normalize("NFC", cluster) + unicodedata.normalize("NFC", char)
        )
        if joins:
            cluster += char
        else:
            flush(last)
            cluster, first = char, at
        last = at + 1
    flush(last)
    return "".join(out), starts, ends
