"""A claim's structured ``value``: kept as given (a string, an int or a float), compared by meaning.

Why (outside tester, finding 7): values used to be stored as text, so ``1024`` came back as
``'1024'``, and ``1024.0`` — what many JSON clients send for 1024 — was a *different* value: not
corroboration but a contradiction "holding different amounts". Now the value keeps its type (the
event log carries it as JSON), and two values that denote the same number are the same value.

The decision on strings: a string that reads as a JSON number (``"1024"``, ``"-3.50"``, ``"1e3"``;
not ``"02134"``, ``"1,024"`` or ``"+5"``, which stay text) is the number it spells. The CLI, and
any channel that carries text, can only send the digits; were ``"1024"`` not the number 1024, the
same quota said on two faces would be two claims. The price: numerals are compared as numbers, so
``"3.10"`` and ``"3.1"`` are one value. A version that must be told apart is written as text that
is not a number (``"v3.10"``, ``"3.10.0"``). The value itself is never rewritten: ``"1024"`` stays
the string it was given, ``1024.0`` the float.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal

#: What ``value`` may hold (bool is refused at the boundary: ``True`` is not the number 1).
Value = str | int | float

#: A JSON number: optional minus, no leading zero, optional fraction and exponent.
_NUMERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?", re.ASCII)


def value_text(value: Value) -> str:
    """The value as text: a string as is, a number as Python writes it (``1024``, ``1024.0``).

    This is what earlier versions stored for every value, so their fingerprints and full-text
    rows stay valid, and what display, full-text search and the contradiction rules read.
    """
    return value if isinstance(value, str) else str(value)


def amount(value: Value | None) -> str | None:
    """The number ``value`` denotes in one canonical form (``"1024"``, ``"5e-1"``), else None.

    Exact: a float is read as its shortest repr (``0.1`` is ``"0.1"``), never as its binary
    expansion, and no rounding context is applied, so two different integers never meet.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _canonical(Decimal(value))
    if isinstance(value, float):
        return _canonical(Decimal(repr(value))) if math.isfinite(value) else None
    text = unicodedata.normalize("NFKC", value).strip()
    return _canonical(Decimal(text)) if _NUMERAL.fullmatch(text) else None


def _canonical(d: Decimal) -> str:
    """Significant digits and a power of ten: ``1024``, ``1000`` → ``1e3``, ``0.50`` → ``5e-1``, ``-0.0`` → ``0``.

    Why not plain digits: ``"1e999999"`` is a short value whose plain digits would not fit in memory.
    """
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)  # finite: NaN and infinity never reach here
    kept = list(digits)
    while len(kept) > 1 and kept[-1] == 0:
        kept.pop()
        exponent += 1
    if kept == [0]:
        return "0"
    text = "".join(map(str, kept)) + (f"e{exponent}" if exponent else "")
    return "-" + text if sign else text


#: A text's tokens: a number whole (sign, fraction: "-1024", "1024.5"), else a run of word characters.
#: A minus is a sign only where no word character precedes it ("5-10" is 5 and 10).
_TOKEN = re.compile(r"(?<!\w)[-\u2212]?\d+(?:\.\d+)*|\w+")


def _tokens(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return [t.replace("\u2212", "-") for t in _TOKEN.findall(folded)]


def states(text: str, value: Value) -> bool:
    """Whether ``text`` says ``value``: its tokens, in order, numbers compared whole and by amount.

    Why whole numbers (outside probe, finding 5): matched as runs of word characters, ``1024`` was
    found inside "1024.5" and "-1024", so a revise kept the stale value and the old quota later
    corroborated the correction. By amount: "1024.0 MB" states ``1024``, as the value rules say.
    """
    want = _tokens(value_text(value))
    if not want:
        return _folded(value_text(value)) in _folded(text)
    words = _tokens(text)
    starts = range(len(words) - len(want) + 1)
    return any(all(_same(w, v) for w, v in zip(words[i : i + len(want)], want, strict=True)) for i in starts)


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).rstrip(" .!?;,")


def _same(word: str, want: str) -> bool:
    if word == want:
        return True
    number = amount(want)
    return number is not None and amount(word) == number


__all__ = ["Value", "amount", "states", "value_text"]
