"""Recall's filter shortcuts, ``kind``, ``source`` and ``tag``: the query algebra's own keys said shorter.

Why one module: the faces spelled them apart — HTTP ``kind`` / ``source`` / ``tag``, MCP ``kinds`` /
``tags``, the CLI none at all — so a caller moving between faces met a different name for the same
filter (h-facespell). The names are keys of ``where`` (``reverie.model.query_json``, built with
``Q.kind`` / ``Q.source`` / ``Q.tag``, a list of tags ``Q.tags_any``), each taking one value or a
list meaning any of them, and each
face takes exactly these (``tests/test_face_options.py``). MCP's older plurals stay as aliases so
no client breaks. Python callers write ``where=Q.kind(...)``: ``Memory.recall`` has no shortcuts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reverie.errors import InvalidInputError
from reverie.model.query import Filter, Q
from reverie.model.validate import shown

#: Each shortcut and the ``Q`` builder it stands for; a list of values is any of them.
SHORTCUTS: Mapping[str, Callable[..., Filter]] = {"kind": Q.kind, "source": Q.source, "tag": Q.tags_any}
#: The words every face shows for them.
SHORTCUT_DOCS: Mapping[str, str] = {
    "kind": 'Only items of this kind, or of any of a list (as where {"kind": ...}); AND-ed with where.',
    "source": 'Only items from this source, or from any of a list (as where {"source": ...}); AND-ed with where.',
    "tag": 'Only items with this tag, or with any of a list (as where {"tag": ...}); AND-ed with where.',
}
#: Older spellings still taken, each for its shortcut: MCP's names before session 32.
ALIASES: Mapping[str, str] = {"kinds": "kind", "tags": "tag"}


def alias_doc(alias: str) -> str:
    """The description of an alias: which name to use instead."""
    return f"The older spelling of {ALIASES[alias]}, still taken; prefer {ALIASES[alias]}."


def shortcut_filter(doc: Mapping[str, Any], where: Filter | None = None) -> Filter | None:
    """``where`` AND-ed with the shortcuts ``doc`` gives (under their names or aliases); None if neither.

    A value is a string or a list (or tuple) of strings; an empty list or None is no condition.
    A shortcut given under both its name and its alias is refused: the two would silently AND.
    """
    parts: list[Filter] = [] if where is None else [where]
    for name, build in SHORTCUTS.items():
        given = [n for n in (name, *(a for a, to in ALIASES.items() if to == name)) if _given(doc.get(n))]
        if len(given) > 1:
            raise InvalidInputError(f"give {name} or {given[1]} (its older spelling), not both: they mean the same")
        if given:
            parts.append(build(*_strings(given[0], doc[given[0]])))
    if not parts:
        return None
    out = parts[0]
    for part in parts[1:]:
        out = out & part
    return out


def _given(value: object) -> bool:
    """None and an empty list are no condition (a face's default); anything else is checked."""
    return value is not None and not (isinstance(value, list | tuple) and not value)


def _strings(name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InvalidInputError(f"{name} must be a string or a list of strings, got {shown(value, 40)}")
