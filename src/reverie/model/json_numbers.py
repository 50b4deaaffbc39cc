"""A number read from text (a JSON number, a CLI option) that no float holds is refused by its spelling.

Why (outside tester, probe 6 finding 7): ``1e400`` is a finite JSON number, but read as a float it
became infinity, so HTTP and MCP refused ``"value": 1e400`` as "value is inf" — a value the client
never sent — and ``"importance": 1e-400`` became 0.0 and was stored as a different score without a
word. The rule on every face that reads numbers from text (HTTP bodies and ``?where=``, MCP
arguments, the CLI's JSON and number options): a number must be one a float holds (rounding to
the nearest float is fine, as every JSON reader does); one that would turn into infinity, or a
non-zero number that would turn into 0, is refused naming the number as sent. Its exact spelling
still travels as a string (``"1e400"``) wherever text is taken — a ``value`` (which compares
numerals by exact decimal value, ``model.values``) or ``meta`` — as the CLI's ``--value`` sends it.
Keeping such a number as a string silently instead would coerce a JSON number into text, which
the faces promise never to do. Pure text: no I/O.
"""

from __future__ import annotations

import math
import re

from reverie.errors import InvalidInputError

#: The significand of a decimal numeral (before any exponent) holds a non-zero digit.
_NON_ZERO = re.compile(r"^[^eE]*[1-9]")


def held_float(text: str, what: str = "the input") -> float:
    """``float(text)``, refusing (``InvalidInputError`` naming ``what``) a numeral no float holds.

    A ``json.loads`` ``parse_float`` hook as is; ``ValueError`` for text that is no number at all.
    """
    number = float(text)
    spelled = text.strip()
    if math.isinf(number) and "inf" not in spelled.lower():
        raise InvalidInputError(
            f"{what} holds the number {spelled[:40]}, beyond what a float holds (about ±1.8e308): send a "
            f'number within that range, or its exact spelling as a string ("{spelled[:40]}") where text '
            "is taken (a value, meta)"
        )
    if number == 0.0 and _NON_ZERO.match(spelled):
        raise InvalidInputError(
            f"{what} holds the number {spelled[:40]}, which a float can only read as 0 (the smallest it "
            "holds is about 5e-324): send 0 if 0 is meant, or its exact spelling as a string "
            f'("{spelled[:40]}") where text is taken (a value, meta)'
        )
    return number


class Unheld(str):
    """A numeral no float holds, kept as written by ``loads_naming`` so the refusal can name its place."""


def refuse_unheld(doc: object, root: str) -> None:
    """Refuse the first ``Unheld`` number in ``doc`` (document order), naming its path (``meta.a.1``)."""
    stack: list[tuple[object, str]] = [(doc, "")]
    while stack:  # iterative: a body nested as deep as the decoder reads must not overflow the stack
        node, path = stack.pop()
        if isinstance(node, Unheld):
            held_float(node, path or root)
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend(reversed([(v, f"{path}.{k}" if path else str(k)) for k, v in children]))


__all__ = ["Unheld", "held_float", "refuse_unheld"]
