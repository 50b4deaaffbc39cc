"""The tokens SQLite FTS5 indexes, computed in Python: one mirror for every layer that counts them.

Why here, in the store: the SQLite store keeps each scope's term counts (``fts_terms``) for its
scoped ranking, recall turns user text into MATCH expressions, and the reference store ranks
in memory; all three must see exactly the tokens FTS5 indexes. The store had its own quicker
approximation (NFKD + Python word characters) and it disagreed on rare code points: "a⻳" was
counted as "a龟" while FTS5 indexed "a", so a lexical recall of the stored text found nothing.
Recall imports this module (``recall.normalize`` re-exports ``tokenize``); the store imports no
recall.

:func:`fts5_tokens` re-implements how the ``FTS_TOKENIZE`` tokenizer splits and folds text, and
:func:`tokenize` applies it to :func:`index_form` (the text the store gives FTS5). It agrees
with FTS5 on every code point (checked once over all 1.1 million; ``tests/recall/test_normalize.py``
re-checks planes 0 and 1 in full against the running SQLite and samples the rest). Three facts
about FTS5 shape it:

- FTS5's ``unicode61`` character tables are frozen at Unicode 6.1. Anything assigned later
  (most emoji after 2012, e.g. 🤖 🥑, the ``₿`` sign, bidi isolates U+2066..U+2069) is unknown
  to FTS5 and therefore a *token* character, while older emoji (🚀) are separators. Python's own
  ``unicodedata`` is newer, so we cannot derive the classes from it: ``_SEPARATOR_RANGES`` below
  is FTS5's separator set, measured by probing SQLite.
- ``remove_diacritics 2`` folds only Latin letters (``über`` → ``uber``); Greek tonos, Cyrillic
  ``й``/``ё`` and Arabic hamza forms keep their marks. ``ß`` stays ``ß`` (no ``ss`` expansion),
  final sigma folds to ``σ``.
- ``tokenchars '+#'`` makes ``+`` and ``#`` word characters *everywhere*, so ``C++`` and ``C#``
  are tokens but so are ``#hashtag`` (it does not match ``hashtag``) and ``1+1``.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from reverie.model.textform import CJK_RANGES, canonical

__all__ = ["FTS_TOKENIZE", "INDEX_FORM", "fts5_tokens", "index_form", "tokenize"]

#: The ``tokenize=`` option for the FTS5 table. :func:`tokenize` mirrors exactly this string; change
#: it and ``test_separator_table_matches_fts5`` fails, printing the new ``_SEPARATOR_RANGES``.
FTS_TOKENIZE = "unicode61 remove_diacritics 2 tokenchars '+#'"


#: Which ``index_form`` the full-text rows of a store hold (the SQLite ``settings`` row
#: ``fts_index_form``; PostgreSQL's ``tsv`` columns likewise). Raise it when ``index_form`` changes
#: so existing rows are rewritten on open (``store.sqlite.schema``, ``store.postgres.store``).
INDEX_FORM = "2"


def index_form(text: str) -> str:
    """The text a full-text row holds for ``text``, and the text queries are tokenized from.

    FTS5 cannot be given a tokenizer of our own from Python, so what its ``unicode61`` would get
    wrong is changed in the text it is given (outside probe 3, findings 12-14):

    - invisible format characters (Cf: zero-width space, soft hyphen, BOM...) go, and the text
      is composed (NFC): ``textform.canonical``, the comparison form of every other layer, so a
      word typed decomposed or with a zero-width space inside is the same word;
    - every CJK character (``textform.CJK_RANGES``) stands apart: Japanese and Chinese have no
      spaces, so "東京で会議がある" was one token and "東京" never matched it; as single
      characters a query's "東京" is the phrase "東 京", found wherever they stand together;
    - a ``#`` that starts a word is a separator: "#1182" indexes as "1182", so an order number
      is found by its digits (and "#1182" by "#1182"). ``C#``, ``F#`` keep theirs, as ``C++``.

    Stored items and messages keep their text as written; only the index sees this form.
    """
    if text.isascii():
        return _hash_starts(text) if "#" in text else text
    form = _CJK.sub(r" \g<0> ", canonical(text))
    return _hash_starts(form) if "#" in form else form


def tokenize(text: str) -> list[str]:
    """The tokens FTS5 indexes for the row of ``text``: ``fts5_tokens(index_form(text))``.

    Every layer that counts or matches terms (the SQLite store's term statistics, recall's
    MATCH expressions, the reference store, PostgreSQL's ``tsvector``) reads this. Never raises.
    """
    return fts5_tokens(index_form(text))


def fts5_tokens(text: str) -> list[str]:
    """Split and fold ``text`` into the tokens FTS5 indexes under :data:`FTS_TOKENIZE`.

    Lower-cases, strips Latin diacritics, keeps ``+``/``#`` inside tokens and treats every other
    FTS5 separator (punctuation, symbols, spaces, controls, lone surrogates) as a split point.
    Never raises on any ``str``.
    """
    tokens: list[str] = []
    for match in _token_pattern().finditer(text):
        token = _fold_token(match.group())
        if token:  # a run of combining accents alone folds to nothing; FTS5 skips it too
            tokens.append(token)
    return tokens


_CJK = re.compile(f"[{CJK_RANGES}]")
_HASH_RUN = re.compile("#+")


def _hash_starts(text: str) -> str:
    """``text`` with every run of ``#`` that starts a word (no token character before it) blanked."""

    def blank(m: re.Match[str]) -> str:
        at = m.start()
        if at > 0 and _token_pattern().fullmatch(text[at - 1]) is not None:
            return m.group()
        return " " * len(m.group())

    return _HASH_RUN.sub(blank, text)


# --- the tokenizer mirror ----------------------------------------------------------------------


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """A regex matching maximal runs of FTS5 token characters; built on first use, not at import."""
    parts = []
    for first, last in _parse_ranges(_SEPARATOR_RANGES):
        parts.append(_class_char(first) if first == last else f"{_class_char(first)}-{_class_char(last)}")
    return re.compile("[^" + "".join(parts) + "]+")


def _class_char(code_point: int) -> str:
    """Escape a code point for use inside a regex character class."""
    return f"\\U{code_point:08x}"


def _parse_ranges(spec: str) -> list[tuple[int, int]]:
    """Parse ``"41-5A 61 ..."`` (hex, inclusive) into ``[(0x41, 0x5A), (0x61, 0x61), ...]``."""
    ranges = []
    for item in spec.split():
        first, _, last = item.partition("-")
        ranges.append((int(first, 16), int(last or first, 16)))
    return ranges


@functools.cache
def _unfolded() -> frozenset[int]:
    """Cased letters newer than FTS5's Unicode 6.1 tables: FTS5 leaves them as they are."""
    return frozenset(cp for first, last in _parse_ranges(_UNFOLDED_RANGES) for cp in range(first, last + 1))


def _fold_token(token: str) -> str:
    """Fold one run of token characters the way FTS5 does: per code point, never across them."""
    if token.isascii():
        return token.lower()
    return token.translate(_FOLD_MEMO)


class _FoldMemo(dict[int, str]):
    """A ``str.translate`` table that computes each code point's fold on first sight.

    ``translate`` does the per-character loop in C, several times faster than a Python join.
    Growth is capped: past the cap, new code points are folded but not remembered.
    """

    _CAP = 65_536

    def __missing__(self, code_point: int) -> str:
        folded = _fold_char(chr(code_point))
        if len(self) < self._CAP:
            self[code_point] = folded
        return folded


_FOLD_MEMO = _FoldMemo()


# FTS5 quirks that no Unicode rule reproduces: it maps U+01E0/U+01E1 (A with dot above and macron)
# to U+01E1 instead of stripping to "a", and U+1E9B (long s with dot above) straight to "s".
_FOLD_EXCEPTIONS: dict[str, str] = {"\u01e0": "\u01e1", "\u01e1": "\u01e1", "\u1e9b": "s"}


def _fold_char(char: str) -> str:
    """Case-fold one token character and strip a Latin diacritic, as ``remove_diacritics 2`` does.

    - A letter that decomposes to an ASCII letter plus marks folds to that letter (``Ü`` → ``u``,
      ``İ`` → ``i``); other scripts keep their marks, because FTS5's diacritic table is Latin-only.
    - The combining accents FTS5 treats as token characters (inside U+0300..U+036F) fold to
      nothing, so decomposed ``u`` + U+0308 also becomes ``u``.
    - Otherwise: lower-case, then a single-character case fold (``ς`` → ``σ``, ``µ`` → ``μ``), but
      never a multi-character one (``ß`` stays ``ß``; FTS5 maps one code point to one).
    """
    if char in _FOLD_EXCEPTIONS:
        return _FOLD_EXCEPTIONS[char]
    if ord(char) in _unfolded():
        return char
    decomposed = unicodedata.normalize("NFD", char)
    if len(decomposed) > 1 and decomposed[0].isascii() and decomposed[0].isalpha():
        return decomposed[0].lower()
    if 0x300 <= ord(char) <= 0x36F:
        return ""
    lower = char.lower()
    if len(lower) != 1:
        lower = char
    folded = lower.casefold()
    return folded if len(folded) == 1 else lower


# FTS5's separator characters under FTS_TOKENIZE, as inclusive hex ranges, measured from SQLite
# 3.40's unicode61 tokenizer (its tables are generated from Unicode 6.1 and have not changed since
# they were written). Everything not listed, including code points FTS5 has never heard of, is a
# token character. Lone surrogates (D800-DFFF) are listed so they split tokens and never reach
# SQLite, which could not encode them. ``+`` (2B) and ``#`` (23) are absent: FTS_TOKENIZE adds them.
_SEPARATOR_RANGES = """
    0-22 24-2A 2C-2F 3A-40 5B-60 7B-A9 AB-B1 B4 B6-B8 BB BF D7 F7 2C2-2C5 2D2-2DF 2E5-2EB 2ED 2EF-2FF
    305 30D-30E 310 312-31A 31C-322 329-32C 32F 332-36F 375 37E 384-385 387 3F6 482-489 55A-55F 589-58A
    58F 591-5C7 5F3-5F4 600-604 606-61B 61E-61F 64B-65F 66A-66D 670 6D4 6D6-6E4 6E7-6ED 6FD-6FE 700-70D
    70F 711 730-74A 7A6-7B0 7EB-7F3 7F6-7F9 816-819 81B-823 825-827 829-82D 830-83E 859-85B 85E 8E4-8FE
    900-903 93A-93C 93E-94F 951-957 962-965 970 981-983 9BC 9BE-9C4 9C7-9C8 9CB-9CD 9D7 9E2-9E3 9F2-9F3
    9FA-9FB A01-A03 A3C A3E-A42 A47-A48 A4B-A4D A51 A70-A71 A75 A81-A83 ABC ABE-AC5 AC7-AC9 ACB-ACD
    AE2-AE3 AF0-AF1 B01-B03 B3C B3E-B44 B47-B48 B4B-B4D B56-B57 B62-B63 B70 B82 BBE-BC2 BC6-BC8 BCA-BCD
    BD7 BF3-BFA C01-C03 C3E-C44 C46-C48 C4A-C4D C55-C56 C62-C63 C7F C82-C83 CBC CBE-CC4 CC6-CC8 CCA-CCD
    CD5-CD6 CE2-CE3 D02-D03 D3E-D44 D46-D48 D4A-D4D D57 D62-D63 D79 D82-D83 DCA DCF-DD4 DD6 DD8-DDF
    DF2-DF4 E31 E34-E3A E3F E47-E4F E5A-E5B EB1 EB4-EB9 EBB-EBC EC8-ECD F01-F1F F34-F3F F71-F87 F8D-F97
    F99-FBC FBE-FCC FCE-FDA 102B-103E 104A-104F 1056-1059 105E-1060 1062-1064 1067-106D 1071-1074
    1082-108D 108F 109A-109F 10FB 135D-1368 1390-1399 1400 166D-166E 1680 169B-169C 16EB-16ED 1712-1714
    1732-1736 1752-1753 1772-1773 17B4-17D6 17D8-17DB 17DD 1800-180E 18A9 1920-192B 1930-193B 1940
    1944-1945 19B0-19C0 19C8-19C9 19DE-19FF 1A17-1A1B 1A1E-1A1F 1A55-1A5E 1A60-1A7C 1A7F 1AA0-1AA6
    1AA8-1AAD 1B00-1B04 1B34-1B44 1B5A-1B7C 1B80-1B82 1BA1-1BAD 1BE6-1BF3 1BFC-1BFF 1C24-1C37 1C3B-1C3F
    1C7E-1C7F 1CC0-1CC7 1CD0-1CE8 1CED 1CF2-1CF4 1DC0-1DE6 1DFC-1DFF 1FBD 1FBF-1FC1 1FCD-1FCF 1FDD-1FDF
    1FED-1FEF 1FFD-1FFE 2000-2064 206A-206F 207A-207E 208A-208E 20A0-20B9 20D0-20F0 2100-2101 2103-2106
    2108-2109 2114 2116-2118 211E-2123 2125 2127 2129 212E 213A-213B 2140-2144 214A-214D 214F 2190-23F3
    2400-2426 2440-244A 249C-24E9 2500-26FF 2701-2775 2794-2B4C 2B50-2B59 2CE5-2CEA 2CEF-2CF1 2CF9-2CFC
    2CFE-2CFF 2D70 2D7F 2DE0-2E2E 2E30-2E3B 2E80-2E99 2E9B-2EF3 2F00-2FD5 2FF0-2FFB 3000-3004 3008-3020
    302A-3030 3036-3037 303D-303F 3099-309C 30A0 30FB 3190-3191 3196-319F 31C0-31E3 3200-321E 322A-3247
    3250 3260-327F 328A-32B0 32C0-32FE 3300-33FF 4DC0-4DFF A490-A4C6 A4FE-A4FF A60D-A60F A66F-A67E A69F
    A6F0-A6F7 A700-A716 A720-A721 A789-A78A A802 A806 A80B A823-A82B A836-A839 A874-A877 A880-A881
    A8B4-A8C4 A8CE-A8CF A8E0-A8F1 A8F8-A8FA A926-A92F A947-A953 A95F A980-A983 A9B3-A9CD A9DE-A9DF
    AA29-AA36 AA43 AA4C-AA4D AA5C-AA5F AA77-AA79 AA7B AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1 AADE-AADF
    AAEB-AAF1 AAF5-AAF6 ABE3-ABED D800-DFFF FB1E FB29 FBB2-FBC1 FD3E-FD3F FDFC-FDFD FE00-FE19 FE20-FE26
    FE30-FE52 FE54-FE66 FE68-FE6B FEFF FF01-FF0F FF1A-FF20 FF3B-FF40 FF5B-FF65 FFE0-FFE6 FFE8-FFEE
    FFF9-FFFF 10100-10102 10137-1013F 10179-10189 10190-1019B 101D0-101FD 1039F 103D0 10857 1091F 1093F
    10A01-10A03 10A05-10A06 10A0C-10A0F 10A38-10A3A 10A3F 10A50-10A58 10A7F 10B39-10B3F 11000-11002
    11038-1104D 11080-11082 110B0-110C1 11100-11102 11127-11134 11140-11143 11180-11182 111B3-111C0
    111C5-111C8 116AB-116B7 12470-12473 16F51-16F7E 16F8F-16F92 1D000-1D0F5 1D100-1D126 1D129-1D1DD
    1D200-1D245 1D300-1D356 1D6C1 1D6DB 1D6FB 1D715 1D735 1D74F 1D76F 1D789 1D7A9 1D7C3 1EEF0-1EEF1
    1F000-1F02B 1F030-1F093 1F0A0-1F0AE 1F0B1-1F0BE 1F0C1-1F0CF 1F0D1-1F0DF 1F110-1F12E 1F130-1F16B
    1F170-1F19A 1F1E6-1F202 1F210-1F23A 1F240-1F248 1F250-1F251 1F300-1F320 1F330-1F335 1F337-1F37C
    1F380-1F393 1F3A0-1F3C4 1F3C6-1F3CA 1F3E0-1F3F0 1F400-1F43E 1F440 1F442-1F4F7 1F4F9-1F4FC
    1F500-1F53D 1F540-1F543 1F550-1F567 1F5FB-1F640 1F645-1F64F 1F680-1F6C5 1F700-1F773 E0001
    E0020-E007F E0100-E01EF
"""

# Cased letters (and Cherokee small letters) added to Unicode after 6.1: Python lower-cases them,
# FTS5 does not know they have a case.
_UNFOLDED_RANGES = """
    37F 528 52A 52C 52E 13F8-13FD 1C80-1C88 1C90-1CBA 1CBD-1CBF 2C2F A698 A69A A796 A798 A79A A79C A79E
    A7AB-A7AE A7B0-A7B4 A7B6 A7B8 A7BA A7BC A7BE A7C0 A7C2 A7C4-A7C7 A7C9 A7D0 A7D6 A7D8 A7F5 AB70-ABBF
    104B0-104D3 10570-1057A 1057C-1058A 1058C-10592 10594-10595 10C80-10CB2 118A0-118BF 16E40-16E5F
    1E900-1E921
"""
