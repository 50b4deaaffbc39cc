"""A vault's name in the store, never shared silently by two folders (outside probe 7, finding 7).

Every note item records the folder it was indexed from (``meta.root``, the resolved path), so the
store knows which folder holds a name. Why not a name derived from the whole path by default:
stores written so far hold their notes under the folder's base name, and a new default would
orphan them all. So the default stays the folder's name (``wiki``) unless that name is *claimed*:
another folder's notes hold it and that folder still exists as a vault (``.git`` in it). Then the
parents' names are prefixed (``home/wiki``, ``alice/home/wiki``, …) up to the first name that is
free. A folder keeps a name once its notes hold it (it is looked for first), so deleting the other
folder later does not flip it back; a vault folder that was moved keeps its name too (its old
path no longer exists, so nothing claims the name against it). Notes indexed before ``meta.root``
existed claim nothing: they are taken as the folder's that indexes that name, as before.

A name given explicitly (``name=``, ``--name``) is never changed: if another existing folder
claims it, ``check_given`` refuses the index with ``VaultNameError`` naming that folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reverie.model.query import Q, parse_sort
from reverie.vault.errors import VaultNameError
from reverie.vault.index import notes_filter

if TYPE_CHECKING:
    from reverie.memory import Memory

_MAX_NAME = 100


def default_name(mem: Memory, scope: str, root: Path) -> str:
    """The name this folder's notes go under when none is given (see the module docstring)."""
    names = _candidates(root)
    for name in names:  # a name this folder's notes already hold stays its name
        if mem.store.query(scope, notes_filter(name) & Q.meta("root", str(root)), parse_sort(None), limit=1):
            return name
    for name in names:
        if claimed_by(mem, scope, name, root) is None:
            return name
    raise VaultNameError(
        f"every name from the folder {str(root)!r} ({', '.join(map(repr, names))}) is held by another vault "
        "folder's notes in this scope; give this vault its own name (Vault(..., name=...), reverie vault --name)"
    )


def check_given(mem: Memory, scope: str, name: str, root: Path) -> None:
    """Refuse ``name`` for ``root`` if another existing vault folder's notes hold it in the scope."""
    other = claimed_by(mem, scope, name, root)
    if other is not None:
        raise VaultNameError(
            f"the vault name {name!r} in scope {scope!r} already holds the notes of another folder, {other!r}; "
            f"indexing {str(root)!r} under it would forget that folder's notes. Give this vault its own name "
            "(Vault(..., name=...), reverie vault --name NAME)"
        )


def claimed_by(mem: Memory, scope: str, name: str, root: Path) -> str | None:
    """The other, still existing, vault folder whose current notes hold ``name``, or None."""
    where = notes_filter(name) & Q.status("live") & Q.meta_has("root") & ~Q.meta("root", str(root))
    for _ in range(64):  # each round rules out one folder that no longer exists (a moved vault)
        got = mem.store.query(scope, where, parse_sort(None), limit=1)
        if not got:
            return None
        other = str(got[0].meta.get("root"))
        if (Path(other) / ".git").is_dir():
            return other
        where = where & ~Q.meta("root", other)
    return None


def _candidates(root: Path) -> list[str]:
    """``wiki``, ``home/wiki``, ``alice/home/wiki``, … (names without ':', at most 100 characters)."""
    parts = [p for p in root.parts if p != root.anchor]
    out = []
    for n in range(1, len(parts) + 1):
        name = "/".join(parts[-n:])
        if len(name) > _MAX_NAME or ":" in name:
            break
        out.append(name)
    return out or [root.name]
