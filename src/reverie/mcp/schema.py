"""The tool schemas' shape and the check of a call's arguments against them.

The low-level SDK server hands tool arguments over unvalidated, and ``jsonschema`` ships no
type information (so it would punch a hole in ``mypy --strict``). The catalog only needs a
small JSON-Schema subset, checked by ``reverie.model.json_check`` (HTTP's request bodies are
refused by it too) — each problem a ``ReverieError`` with a message an agent can act on,
instead of a schema-library dump.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reverie import InvalidInputError
from reverie.model.json_check import check_json


def scoped_object(scope: Mapping[str, Any], required: tuple[str, ...], **properties: Any) -> dict[str, Any]:
    """A tool's input schema: ``properties`` plus ``scope`` (required), and nothing else.

    Every catalog (memory, agenda, conversation) builds its tools with this, each with its own
    wording of ``scope``; ``additionalProperties: False`` is what makes a misspelt argument an
    error instead of a silently ignored one.
    """
    return {
        "type": "object",
        "properties": {**properties, "scope": dict(scope)},
        "required": [*required, "scope"],
        "additionalProperties": False,
    }


def check_arguments(schema: Mapping[str, Any], arguments: object) -> dict[str, Any]:
    """Return ``arguments`` as a dict if it fits ``schema``, else raise ``InvalidInputError``.

    The checker is ``reverie.model.json_check``, the one HTTP's request bodies are refused by too,
    so a wrong type reads the same on both faces. A problem with ``scope`` raises
    ``InvalidScopeError`` instead, so a client sees the same ``invalid_scope`` code whether the
    schema or ``Memory`` caught it. A null argument counts as left out (the handlers skip None).
    """
    if not isinstance(arguments, dict):
        raise InvalidInputError("arguments must be a JSON object")
    check_json(schema, arguments, root="arguments")
    return arguments
