"""A JSON body in canonical form: what makes two request bodies the same request.

Why not ``json.dumps(json.loads(body), sort_keys=True)``: a float and an int are written apart
(``1`` vs ``1.0``), so a retry whose client re-serialised the body (another library, a proxy,
a queue that keeps numbers as floats) was refused as a reused ``Idempotency-Key`` though reverie
reads ``1024.0`` as the value 1024 (outside probe 5, finding 10). Here a number is its exact
decimal value: ``1``, ``1.0``, ``1e0`` and ``10E-1`` are one number, ``1024.0000000000000000000001``
(which a float rounds to 1024) is another, and ``true`` or ``"1"`` is never a number. Object
keys are sorted and spacing does not matter.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import partial
from typing import Any

from reverie.http.jsonbody import bounded_int
from reverie.limits import DEFAULT_LIMITS, Limits
from reverie.model.validate import unique_keys


def canonical_json(body: bytes | str, limits: Limits = DEFAULT_LIMITS) -> str:
    """``body``'s JSON value written canonically; ``ValueError`` if it is no JSON (or too deep to walk).

    Read as the routes read it (``jsonbody``): a repeated key or an over-long integer is refused,
    so such a body is compared byte for byte by the caller instead.
    """
    try:
        value = json.loads(
            body,
            object_pairs_hook=unique_keys("the body"),
            parse_int=partial(bounded_int, limits),
            parse_float=Decimal,
            parse_constant=_no_constant,
        )
        return _write(value)
    except RecursionError:
        raise ValueError("the body is nested too deep to compare") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _write(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | Decimal):
        return _number(Decimal(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_write(v) for v in value) + "]"
    items = sorted(value.items())
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _write(v) for k, v in items) + "}"


def _number(d: Decimal) -> str:
    """``d`` as digits and exponent with no trailing zeros (``1E0`` for 1, 1.0 and 10E-1; ``0`` for any zero).

    Worked on the digit tuple, not ``Decimal.normalize``, which rounds to the context's precision.
    """
    sign, digits, exponent = d.as_tuple()
    if not isinstance(exponent, int):  # NaN or Infinity: no JSON number (refused on reading)
        raise ValueError("not a JSON number")
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return "0"
    stripped = text.rstrip("0")
    return ("-" if sign else "") + stripped + "E" + str(exponent + len(text) - len(stripped))
