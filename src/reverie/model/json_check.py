"""One checker of JSON input against a JSON-Schema subset, so the JSON faces refuse alike.

Why here and not in a face: MCP checked a tool's arguments with its own checker ("mode must be
string, got integer") while HTTP let pydantic word the same mistake ("body.mode: Input should be
a valid string"); a wrong type (``"mode": 3``, ``"limit": "ten"``, ``"tags": "x"``,
``"importance": true``) read differently on each face (h-faces33). Both faces now run this one
checker: MCP over its hand-written tool schemas, HTTP over its request models' JSON schemas
(pydantic's, so it also reads ``$ref`` and ``anyOf``) when pydantic refuses a body. Every
problem is an ``InvalidInputError`` (``InvalidScopeError`` for ``scope``) naming the field, the
JSON type it must be and what was given: ``tags[1] must be string, got integer 3``.

The subset: ``type``, ``enum`` (refused in ``Memory``'s words, ``not_one_of``), ``const``,
``properties``, ``required``, ``additionalProperties: false``, ``items``, ``minimum`` /
``maximum``, ``anyOf``, ``$ref`` into ``$defs``. Everything else (formats, patterns) is left to
the checks behind (``Memory``'s, pydantic's).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from reverie.errors import InvalidInputError, InvalidScopeError
from reverie.model.validate import not_one_of, shown

#: JSON's types and the Python values ``json.loads`` makes of them.
JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}
#: How long the given value may be shown in a refusal.
SHOWN_WIDTH = 40


def json_type(value: object) -> str:
    """The JSON type name of a value ``json.loads`` made (``True`` is a boolean, never an integer)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, float):
        return "number"
    for name, types in JSON_TYPES.items():
        if isinstance(value, types):
            return name
    return type(value).__name__


def given(value: object) -> str:
    """What was given, as a JSON caller wrote it: its type and its text, cut short (``string "ten"``)."""
    if value is None:
        return "null"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * SHOWN_WIDTH:
        return f"integer ({shown(value, SHOWN_WIDTH)})"  # json.dumps of a 5000-digit int fails
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = shown(value, SHOWN_WIDTH)
    if len(text) > SHOWN_WIDTH:
        text = text[: SHOWN_WIDTH - 1] + "…"
    return f"{json_type(value)} {text}"


def wrong_type(path: str, expected: Sequence[str], value: object) -> InvalidInputError:
    """The refusal of ``value`` at ``path`` (``tags[1]``, ``provenance.ref``) that must be one of ``expected``.

    An integer is a number: "string or integer or number" (pydantic's ``str | int | float``) reads
    "string or number", as MCP's schema spells the same field."""
    names = [n for n in expected if not (n == "integer" and "number" in expected)]
    return refusal(path, f"must be {' or '.join(names)}, got {given(value)}")


def refusal(path: str, message: str) -> InvalidInputError:
    """``InvalidScopeError`` for a problem under ``scope`` (the code ``Memory`` gives it), else invalid input."""
    error = InvalidScopeError if path.split(".", 1)[0].split("[", 1)[0] == "scope" else InvalidInputError
    return error(f"{path} {message}")


def check_json(schema: Mapping[str, Any], value: object, *, root: str, null_is_absent: bool = True) -> None:
    """Raise the first problem of ``value`` against ``schema``, worded as ``wrong_type`` / ``refusal``.

    ``root`` names the whole value in a refusal about it ("arguments", "the body").
    ``null_is_absent``: a null property counts as left out (MCP, whose handlers skip None); without
    it a null is checked like any value, so a field that takes no null says so (HTTP).
    """
    _Checker(schema, null_is_absent).check(schema, value, "", root)


class _Checker:
    def __init__(self, root_schema: Mapping[str, Any], null_is_absent: bool) -> None:
        self._defs: Mapping[str, Any] = root_schema.get("$defs", {})
        self._null_is_absent = null_is_absent

    def _resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in schema:
            schema = self._defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
        return schema

    def check(self, schema: Mapping[str, Any], value: object, path: str, root: str) -> None:
        schema = self._resolve(schema)
        if "anyOf" in schema:
            self._any_of(schema["anyOf"], value, path, root)
            return
        self._type(schema, value, path or root)
        if "const" in schema and value != schema["const"]:
            raise refusal(path or root, not_one_of(value, [schema["const"]]))
        if "enum" in schema and value not in schema["enum"]:
            # Memory's own words (``not_one_of``): a bad recall ``mode`` reads as in Python.
            raise refusal(path or root, not_one_of(value, schema["enum"]))
        if isinstance(value, int | float) and not isinstance(value, bool):
            _range(schema, value, path or root)
        if isinstance(value, list | tuple) and isinstance(schema.get("items"), Mapping):
            for i, element in enumerate(value):
                self.check(schema["items"], element, f"{path}[{i}]", root)
        if isinstance(value, dict):
            self._object(schema, value, path, root)

    def _any_of(self, branches: Sequence[Mapping[str, Any]], value: object, path: str, root: str) -> None:
        """The branch of ``value``'s JSON type decides (its own problem is reported, e.g. ``kind[1]``);
        no such branch: a wrong type, naming every type the branches take."""
        resolved = [self._resolve(b) for b in branches]
        for branch in resolved:
            if _types(branch) is None or _fits(_types(branch) or [], value):
                self.check(branch, value, path, root)
                return
        # A null branch is "leave it out" (an optional field), not a type to suggest.
        expected = [t for b in resolved for t in (_types(b) or []) if t != "null"] or ["null"]
        raise wrong_type(path or root, list(dict.fromkeys(expected)), value)

    def _type(self, schema: Mapping[str, Any], value: object, path: str) -> None:
        names = _types(schema)
        if names is None or _fits(names, value):
            return
        raise wrong_type(path, names, value)

    def _object(self, schema: Mapping[str, Any], value: dict[str, Any], path: str, root: str) -> None:
        properties: Mapping[str, Any] = schema.get("properties", {})
        prefix = f"{path}." if path else ""
        for name in schema.get("required", ()):
            if value.get(name) is None and (self._null_is_absent or name not in value):
                raise refusal(prefix + name, "is required")
        if schema.get("additionalProperties") is False:
            unknown = sorted(set(value) - set(properties))
            if unknown:
                raise refusal(
                    path or root, f"has unknown field(s) {', '.join(unknown)}; allowed: {', '.join(properties)}"
                )
        for name, sub in properties.items():
            if name in value and (value[name] is not None or not self._null_is_absent):
                self.check(sub, value[name], prefix + name, root)


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    return [declared] if isinstance(declared, str) else list(declared)


def _fits(names: Sequence[str], value: object) -> bool:
    for name in names:
        # JSON has no separate boolean-as-number: True must not pass as an integer.
        if isinstance(value, bool) and name != "boolean":
            continue
        if name == "integer" and isinstance(value, float):
            continue
        if isinstance(value, JSON_TYPES.get(name, ())):
            return True
    return False


def _range(schema: Mapping[str, Any], value: float, path: str) -> None:
    """``minimum`` / ``maximum``, worded as the bounds the schema states.

    Why not "[1, inf]" for a schema with only a minimum: a count's upper bound is the store's
    ``Limits.max_k`` (1000 by default), which ``Memory`` checks and names; "inf" told an agent
    that any count was fine (outside tester).
    """
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is None or value >= low) and (high is None or value <= high):
        return
    if low is not None and high is not None:
        raise refusal(path, f"must be in [{low}, {high}], got {value!r}")
    if low is not None:
        raise refusal(path, f"must be at least {low}, got {value!r}")
    raise refusal(path, f"must be at most {high}, got {value!r}")


__all__ = ["JSON_TYPES", "check_json", "given", "json_type", "refusal", "wrong_type"]
