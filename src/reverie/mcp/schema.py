"""A checker for the small JSON-Schema subset the tool catalog uses.

The low-level SDK server hands tool arguments over unvalidated, and ``jsonschema`` ships no
type information (so it would punch a hole in ``mypy --strict``). The catalog only needs
``type``, ``enum``, ``properties``, ``required``, ``additionalProperties: false``, ``items``
and ``minimum`` / ``maximum``, so this checks exactly those — and reports each problem as a
``ReverieError`` with a message an agent can act on, instead of a schema-library dump.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reverie import InvalidInputError, InvalidScopeError
from reverie.model.validate import not_one_of

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


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

    A problem with ``scope`` raises ``InvalidScopeError`` instead, so a client sees the same
    ``invalid_scope`` code whether the schema or ``Memory`` caught it.
    """
    if not isinstance(arguments, dict):
        raise InvalidInputError("arguments must be a JSON object")
    _check_object(schema, arguments, "")
    return arguments


def _fail(path: str, message: str) -> InvalidInputError:
    top = path.split(".", 1)[0]
    error = InvalidScopeError if top == "scope" else InvalidInputError
    return error(f"{path or 'arguments'} {message}")


def _check(schema: Mapping[str, Any], value: object, path: str) -> None:
    _check_type(schema, value, path)
    if "enum" in schema and value not in schema["enum"]:
        # Memory's own words (``not_one_of``): a bad recall ``mode`` reads as in Python and over HTTP.
        raise _fail(path, not_one_of(value, schema["enum"]))
    if isinstance(value, int | float) and not isinstance(value, bool):
        _check_range(schema, value, path)
    if isinstance(value, list) and "items" in schema:
        for i, element in enumerate(value):
            _check(schema["items"], element, f"{path}[{i}]")
    if isinstance(value, dict) and "properties" in schema:
        _check_object(schema, value, path)


def _check_type(schema: Mapping[str, Any], value: object, path: str) -> None:
    declared = schema.get("type")
    if declared is None:
        return
    names = [declared] if isinstance(declared, str) else list(declared)
    for name in names:
        # JSON has no separate boolean-as-number: True must not pass as an integer.
        if isinstance(value, bool) and name != "boolean":
            continue
        if name == "integer" and isinstance(value, float):
            continue
        if isinstance(value, _JSON_TYPES[name]):
            return
    raise _fail(path, f"must be {' or '.join(names)}, got {_json_type(value)}")


def _check_range(schema: Mapping[str, Any], value: float, path: str) -> None:
    """``minimum`` / ``maximum``, worded as the bounds the schema states.

    Why not "[1, inf]" for a schema with only a minimum: a count's upper bound is the store's
    ``Limits.max_k`` (1000 by default), which ``Memory`` checks and names; "inf" told an agent
    that any count was fine (outside tester).
    """
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is None or value >= low) and (high is None or value <= high):
        return
    if low is not None and high is not None:
        raise _fail(path, f"must be in [{low}, {high}], got {value!r}")
    if low is not None:
        raise _fail(path, f"must be at least {low}, got {value!r}")
    raise _fail(path, f"must be at most {high}, got {value!r}")


def _check_object(schema: Mapping[str, Any], value: dict[str, Any], path: str) -> None:
    properties: Mapping[str, Any] = schema.get("properties", {})
    prefix = f"{path}." if path else ""
    for name in schema.get("required", ()):
        if value.get(name) is None:
            raise _fail(prefix + name, "is required")
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(value) - set(properties))
        if unknown:
            raise _fail(path, f"has unknown field(s) {', '.join(unknown)}; allowed: {', '.join(properties)}")
    for name, sub in properties.items():
        if value.get(name) is not None:
            _check(sub, value[name], prefix + name)


def _json_type(value: object) -> str:
    for name, types in _JSON_TYPES.items():
        if isinstance(value, types) and not (isinstance(value, bool) and name != "boolean"):
            return name
    return type(value).__name__
