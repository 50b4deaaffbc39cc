"""Turning command-line strings into API values; every refusal is a ``ReverieError``.

Parsing here raises ``InvalidInputError`` / ``InvalidQueryError`` rather than click's own
``BadParameter`` so malformed input reaches the user in the one shape every face uses
(``error[invalid_input]: …``, exit 2), whichever layer caught it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import click

from reverie import Filter, InvalidInputError, InvalidQueryError, LimitExceededError, Q, ReverieError
from reverie.model.json_numbers import held_float
from reverie.model.validate import load_json

#: Scores a ``list`` can bound with --min-NAME / --max-NAME (the API's score fields).
SCORE_NAMES = ("authority", "confidence", "importance", "durability", "value")

Scalar = str | int | float | bool | None


class HeldFloat(click.ParamType[float, Any]):
    """click's ``float`` for a number option, refusing a numeral no float holds by its spelling.

    ``--importance 1e-400`` read as ``float`` was 0.0, a different score stored without a word; the
    rule is every face's (``reverie.model.json_numbers``).
    """

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            return value
        option = param.opts[0] if param is not None and param.opts else "the option"
        try:
            return held_float(str(value), option)
        except InvalidInputError:
            raise
        except ValueError:
            self.fail(f"{value!r} is not a valid float.", param, ctx)


#: The type of every number option (``type=FLOAT``).
FLOAT = HeldFloat()


def meta_object(text: str | None) -> dict[str, Any] | None:
    """``--meta '{"k": 1}'`` → a dict (the API checks size and depth); anything but an object is refused."""
    return json_object(text, "--meta", '{"turn": 3}')


def json_object(
    text: str | None,
    name: str,
    example: str,
    error: type[InvalidInputError] = InvalidInputError,
    too_deep: type[InvalidInputError] = LimitExceededError,
) -> dict[str, Any] | None:
    """A JSON-object option (``--meta``, ``--where``, ``--weights``) → a dict, or a refusal of ``error``'s
    kind that names the option and shows ``example`` (nesting past the limit: ``too_deep``)."""
    if text is None:
        return None
    try:
        value = load_json(text, name, too_deep)
    except ReverieError:  # too deep, too long a number, a repeated key: already worded
        raise
    except ValueError as exc:
        raise error(f"{name} is not valid JSON ({exc}); pass an object such as '{example}'") from None
    if not isinstance(value, dict):
        raise error(f"{name} must be a JSON object, got {type(value).__name__}")
    return value


def iso_time(text: str | None, name: str) -> datetime | None:
    """An ISO-8601 time; one without an offset is read as UTC (said so in --help), never local time."""
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInputError(
            f"{name} {text[:40]!r} is not an ISO-8601 time (e.g. 2025-01-31 or 2025-01-31T09:30:00Z)"
        ) from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def meta_condition(spec: str) -> tuple[str, Scalar]:
    """``path=value``: the value is read as JSON when it is a JSON scalar (3, true, null, "3"), else as text.

    So ``turn=3`` matches the number 3 and ``turn='"3"'`` the string "3"; ``lang=en`` is the string "en".
    """
    path, sep, raw = spec.partition("=")
    if not sep or not path:
        raise InvalidQueryError(f"--meta {spec[:60]!r} must be PATH=VALUE, e.g. source.turn=3 or lang=en")
    try:
        value = load_json(raw, f"--meta {path}=…", InvalidQueryError)
    except ReverieError:
        raise  # nested past the decoder's limit, or a repeated key: no scalar, and no text anyone meant
    except ValueError:
        return path, raw
    if isinstance(value, dict | list):
        raise InvalidQueryError(f"--meta {path}=… compares with a scalar, not a JSON {type(value).__name__}")
    return path, value


def _all(parts: Sequence[Filter]) -> Filter | None:
    if not parts:
        return None
    combined = parts[0]
    for part in parts[1:]:
        combined = combined & part
    return combined


def list_filter(
    *,
    kinds: Sequence[str],
    sources: Sequence[str],
    tiers: Sequence[str],
    statuses: Sequence[str],
    keys: Sequence[str],
    authors: Sequence[str],
    tags: Sequence[str],
    flags: Sequence[str],
    parents: Sequence[str],
    metas: Sequence[str],
    meta_has: Sequence[str],
    bounds: dict[str, tuple[float | None, float | None]],
    since: str | None,
    until: str | None,
) -> Filter | None:
    """The query algebra from ``list`` options: values of one option are OR-ed, options AND-ed.

    Tags, flags, parents and meta conditions are each a separate requirement (all must hold),
    because "has tag a and tag b" is the common ask and ``--kind a --kind b`` already covers OR.
    """
    parts: list[Filter] = []
    for values, build in ((kinds, Q.kind), (sources, Q.source), (tiers, Q.tier), (statuses, Q.status)):
        if values:
            parts.append(build(*values))
    for values, build in ((keys, Q.key), (authors, Q.author)):
        if values:
            parts.append(build(*values))
    parts += [Q.tag(t) for t in tags] + [Q.flag(f) for f in flags] + [Q.parent(p) for p in parents]
    parts += [Q.meta(*meta_condition(m)) for m in metas] + [Q.meta_has(p) for p in meta_has]
    for name, (low, high) in bounds.items():
        if low is not None or high is not None:
            parts.append(Q.score(name, ge=low, le=high))
    if since is not None or until is not None:
        parts.append(Q.recorded(since=iso_time(since, "--since"), until=iso_time(until, "--until")))
    return _all(parts)
