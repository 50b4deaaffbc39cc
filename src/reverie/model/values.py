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


__all__ = ["Value", "amount", "value_text"]
