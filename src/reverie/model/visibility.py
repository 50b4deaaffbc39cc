"""Who may see a claim: its ``visibility`` and the principal a read is made for.

An item's ``visibility`` is ``None`` for *everyone in the scope* (the default, and what every
item written before visibility existed has), otherwise a sorted tuple of *only these principals*.
A caller says "everyone" with ``None`` too, so a read's value is a write's; an empty list is
refused (``check_visibility``). Inside the model — commands, conversation entries,
``Item.audience`` — everyone is the empty tuple ``EVERYONE``, so audiences compare as tuples.
A principal is an opaque name the caller's face established (``agent:planner``,
``user:bob``): the CLI's ``--principal``, the MCP server's launch option, an HTTP token's entry
in the token map. ``None`` as a principal is the store's owner — the Python caller holding the
file — who sees everything, as before visibility existed.

Why sorted and de-duplicated: "equal visibility" (a dream gist merges only items of equal
visibility; a claim corroborates only a claim with the same audience) must be a plain tuple
comparison, whatever order the caller listed the principals in.

The two filter nodes below are the store-facing half: ``VisibleTo`` is pushed into a store's
``query``/``count`` so paging stays exact; ``Restricted`` finds the (usually few) items with a
non-empty visibility, which a SQLite partial index serves in time proportional to their number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reverie.errors import InvalidInputError, LimitExceededError
from reverie.model.item import Item
from reverie.model.query import Filter
from reverie.model.validate import shown

#: A principal: letters, digits and ``_ - . : @ /``, 1 to 128 characters (no spaces, no control
#: characters: it is compared byte for byte and shown in messages and logs).
PRINCIPAL_RE = re.compile(r"[A-Za-z0-9_\-.:@/]{1,128}")
#: At most this many principals on one claim (a longer audience is a scope of its own).
MAX_VISIBILITY = 64
EVERYONE: tuple[str, ...] = ()


def check_principal(principal: object, field: str = "principal") -> str:
    """A principal name as ``PRINCIPAL_RE`` allows, or ``InvalidInputError`` saying what is wrong."""
    if not isinstance(principal, str) or not PRINCIPAL_RE.fullmatch(principal):
        raise InvalidInputError(
            f"{field} {shown(principal)} is malformed: 1 to 128 letters, digits or _ - . : @ / "
            "(e.g. 'agent:planner', 'user:bob')"
        )
    return principal


#: The refusal of an empty list, on every face (Python, CLI import, HTTP, MCP, slices).
EMPTY_VISIBILITY = (
    "visibility is an empty list, which would hide the claim from everyone; pass None (leave it out) "
    "for everyone in the scope, or name at least one principal, e.g. visibility=['agent:planner']"
)


def check_visibility(visibility: object) -> tuple[str, ...]:
    """A visibility argument (None or a non-empty list of principals) in canonical form: sorted, distinct.

    ``None`` means everyone in the scope. An empty list is refused: stored as ``()`` it read as
    everyone, so ``visibility=[]`` — most likely meant as "nobody else", or built from an empty
    lookup — opened the claim to every principal (a privacy hole found by an outside tester).
    A bare string is refused rather than read as a list of characters.
    """
    if visibility is None:
        return EVERYONE
    if isinstance(visibility, str) or not isinstance(visibility, Iterable):
        raise InvalidInputError("visibility must be a list of principals, e.g. visibility=['agent:planner']")
    out = sorted({check_principal(p, "each visibility principal") for p in visibility})
    if not out:
        raise InvalidInputError(EMPTY_VISIBILITY)
    if len(out) > MAX_VISIBILITY:
        raise LimitExceededError(f"{len(out)} principals in visibility; the limit is {MAX_VISIBILITY}")
    return tuple(out)


def may_see(visibility: Sequence[str] | None, principal: str | None) -> bool:
    """Whether ``principal`` may see a claim of this visibility (None, the owner, sees all)."""
    return principal is None or not visibility or principal in visibility  # None, (): everyone


def covers(reader: Sequence[str], source: Sequence[str]) -> bool:
    """Whether every principal of audience ``reader`` may see what audience ``source`` may (``()``: everyone).

    Why a whole-audience test and not ``may_see``: a thing made for audience ``reader`` (a
    message's memory, a recap, a claim) is shown to all of it, so it may quote a source only
    if no one in ``reader`` is outside ``source``. Everyone covers only everyone.
    """
    if not source:
        return True
    return bool(reader) and set(reader) <= set(source)


def visible(item: Item, principal: str | None) -> bool:
    return may_see(item.visibility, principal)


def with_writer(visibility: tuple[str, ...], principal: str | None) -> tuple[str, ...]:
    """A restricted visibility a principal writes always includes that principal.

    Why: a writer that hid its own claim from itself could neither read nor correct it, and the
    write's own answer (the item it stored) would already be a read it may not make.
    """
    if not visibility or principal is None or principal in visibility:
        return visibility
    return tuple(sorted((*visibility, principal)))


@dataclass(frozen=True, slots=True)
class VisibleTo(Filter):
    """Items ``principal`` may see: visibility empty (everyone) or naming it."""

    principal: str

    def matches(self, item: Item) -> bool:
        return may_see(item.visibility, self.principal)


@dataclass(frozen=True, slots=True)
class Restricted(Filter):
    """Items with a non-empty visibility (only some principals may see them)."""

    def matches(self, item: Item) -> bool:
        return bool(item.visibility)


#: A reverie id (a canonical lower-case UUID) inside a longer string.
_ID_IN_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def mentions(payload: Any, ids: set[str] | frozenset[str]) -> bool:
    """Whether any string anywhere in ``payload`` (an event's, a summary's) is or quotes one of ``ids``.

    Why a walk over every value rather than a list of known fields: an event type added later
    (or by another wing) that names an item in a new field is caught too — fail closed. Why
    quoted ids too: reasons reverie writes name items in sentences ("dream/provenance: parent
    <id> was retracted (superseded)", "<id> was revised"), so an event about a visible claim
    told a principal the id — and the fate — of a hidden parent.
    """
    return first_mention(payload, ids) is not None


def first_mention(payload: Any, ids: set[str] | frozenset[str]) -> str | None:
    """The first of ``ids`` some string in ``payload`` is or quotes (``mentions``), or None."""
    if not ids:
        return None
    stack: list[Any] = [payload]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v in ids:
                return v
            if len(v) > 36:
                found: str | None = next((m for m in _ID_IN_TEXT.findall(v) if m in ids), None)
                if found is not None:
                    return found
        elif isinstance(v, Mapping):
            stack.extend(v.keys())  # a meta keyed by an id names it too
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return None


__all__ = [
    "EMPTY_VISIBILITY",
    "EVERYONE",
    "MAX_VISIBILITY",
    "Restricted",
    "VisibleTo",
    "check_principal",
    "check_visibility",
    "covers",
    "first_mention",
    "may_see",
    "mentions",
    "visible",
    "with_writer",
]
