"""Whose conversation a name is: a principal's own conversations are named ``<principal>+<name>``.

Why (outside probe 4, finding 4): a conversation's name is unique in its scope, so a principal
free to open any name learned, by opening one, whether a conversation it may not see held it
(refused: it exists; opened: it was free). While names are shared, no answer to "open this name"
can be the same for a hidden name and a free one. So:

- a principal opens a *new* conversation only under its own name (``agent:b+standup``); it
  resumes any conversation of its audience by its name, as before;
- a conversation under a principal's name always has that principal in its audience (or is open
  to everyone), whoever opens it: under its own name nothing is hidden from a principal;
- every other name a principal may not see, hidden or free, gets the same ``not_found``
  (``store.visible``), which says how to open one.

The store's owner opens conversations under any name, as before. ``+`` is not a character of a
principal (``model.visibility.PRINCIPAL_RE``), so the principal a name belongs to is the part
before its first ``+``; it needs no escaping in a URL path, a shell word or JSON, and the copy
names ``import_slice`` makes (``name~2``) keep their principal.

Pure: no I/O.
"""

from __future__ import annotations

from reverie.errors import InvalidInputError
from reverie.model.visibility import PRINCIPAL_RE

#: Between a principal and the rest of the name of a conversation of its own.
SEPARATOR = "+"


def named_for(name: str) -> str | None:
    """The principal whose own conversation ``name`` is (``agent:b+standup`` → ``agent:b``), or None."""
    head, sep, _ = name.partition(SEPARATOR)
    return head if sep and PRINCIPAL_RE.fullmatch(head) else None


def own_name(principal: str, name: str) -> str:
    """``name`` under ``principal``'s own name (``name`` itself if it already is)."""
    return name if named_for(name) == principal else f"{principal}{SEPARATOR}{name}"


def check_named_audience(name: str, visibility: tuple[str, ...]) -> None:
    """A conversation under a principal's name includes that principal (``InvalidInputError`` if not).

    Why: a conversation under ``agent:b``'s name hidden from ``agent:b`` would answer its open
    apart from a free name of its own — the existence oracle this naming closes.
    """
    principal = named_for(name)
    if principal is None or not visibility or principal in visibility:
        return
    raise InvalidInputError(
        f"conversation {name!r} is {principal}'s own (its name starts with {principal + SEPARATOR!r}), so its "
        f"audience must include {principal}: add it to visibility {list(visibility)}, leave visibility out for "
        "everyone, or choose a name that does not start with a principal and '+'"
    )


def not_visible(scope: str, name: str, principal: str) -> str:
    """What a principal is told for a name it may not see, the same whether a conversation holds it.

    The example is always ``<principal>+<name>``, never ``name`` itself when it already is the
    principal's: a hidden conversation a store holds under the principal's own name (opened
    before own names) is told the same words as any other hidden name.
    """
    return (
        f"no conversation {name!r} in scope {scope!r} that principal {principal!r} may see; a principal "
        f"opens a new conversation only under its own name, e.g. {principal + SEPARATOR + name!r} (the "
        "store's owner may open one under any name for it)"
    )


__all__ = ["SEPARATOR", "check_named_audience", "named_for", "not_visible", "own_name"]
