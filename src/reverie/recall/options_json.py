"""Recall's options as the JSON faces (HTTP, MCP) and the CLI take them: one list, one conversion.

Why one module: each face used to keep its own copy of recall's keyword arguments, and the copies
drifted — HTTP and MCP ``context`` took only ``query``, ``budget_tokens`` and ``k`` (no ``where``,
no ``as_of``), ``diversity`` and ``weights`` were refused over HTTP and MCP, and MCP had no
``tiers`` (outside probe 5, finding 9). Every face now names the options listed here, converts a
JSON document's values with ``recall_args`` and leaves every check of a value to ``Memory``, so a
bad value gets the same message from every face. ``tests/test_face_options.py`` compares each
face to ``Memory.recall`` / ``Memory.context``'s signatures.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from reverie.errors import InvalidInputError
from reverie.model.query_json import FILTER_DESCRIPTION
from reverie.model.validate import shown
from reverie.recall.engine import Weights

#: Recall's keyword arguments no JSON face can carry: a ``RecallOptions`` object is built in Python.
PYTHON_ONLY = frozenset({"options"})
WEIGHT_NAMES = tuple(f.name for f in dataclasses.fields(Weights))

#: The options (besides ``query``, ``scope`` and ``k``) every face takes for recall and context,
#: each with the words the faces show for it. ``where`` is the JSON query algebra.
DESCRIPTIONS: Mapping[str, str] = {
    "mode": "hybrid (full text and vectors fused, the default), lexical or dense.",
    "where": FILTER_DESCRIPTION,
    "as_of": "What was believed at this time (ISO-8601 with an offset): each hit as it stood then; records no use.",
    "valid_at": "Only what was true in the world at this time (valid time; combines with as_of).",
    "include_history": "Also closed versions (forgotten, superseded).",
    "tiers": "Tiers to search (default active and durable); add subconscious to reach demoted items.",
    "contradictions": "surface (default): contested hits carry their opponents; filter: keep the better-supported "
    "side.",
    "weights": "How much each signal bends relevance, an object with any of "
    + ", ".join(f"{n} (default {getattr(Weights(), n):g})" for n in WEIGHT_NAMES)
    + "; each a number within ±64.",
    "diversity": 'Penalise hits sharing an author or a parent, e.g. {"author": 0.5, "parent": 0.3}; each in [0, 1].',
    "min_authority": "Skip items trusted less than this, in [0, 1].",
    "record_use": "Count the answer as a use (default true; it reinforces the hits). Never with as_of.",
}
RECALL_OPTIONS = frozenset(DESCRIPTIONS)


def recall_args(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``Memory.recall`` keyword arguments from a JSON document's recall options (``where`` aside).

    Only options the caller gave (not None) are passed, so ``Memory``'s own defaults apply. Times
    may be ISO-8601 strings or datetimes; ``weights`` is an object of ``Weights`` fields. Values are
    otherwise passed as given: ``Memory`` checks them, with the same words for every face.
    """
    args: dict[str, Any] = {}
    for name in RECALL_OPTIONS - {"where"}:
        value = doc.get(name)
        if value is None:
            continue
        if name in ("as_of", "valid_at"):
            value = _time(value, name)
        elif name == "weights":
            value = weights(value)
        elif name == "tiers" and isinstance(value, list | tuple):
            value = tuple(value)
        args[name] = value
    return args


def weights(value: object) -> Weights:
    """A ``Weights`` from a JSON object of its fields (a ``Weights`` passes as it is).

    An unknown field is refused by name; the numbers are checked by ``Memory`` (``check_numbers``).
    """
    if isinstance(value, Weights):
        return value
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"weights must be an object of {', '.join(WEIGHT_NAMES)}, got {shown(value, 40)}")
    unknown = sorted(set(value) - set(WEIGHT_NAMES))
    if unknown:
        raise InvalidInputError(f"weights takes {', '.join(WEIGHT_NAMES)}, not {', '.join(map(str, unknown))}")
    return Weights(**value)


def _time(value: object, name: str) -> datetime:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be an ISO-8601 time, e.g. 2025-01-31T12:00:00Z, got {shown(value, 40)}")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(f"{name} {value[:60]!r} is not an ISO-8601 time, e.g. 2025-01-31T12:00:00Z") from None
