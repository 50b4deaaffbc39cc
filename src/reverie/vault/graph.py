"""The link graph: which ``[[wikilink]]`` names which note, what is dead, what hangs together.

A link resolves by (in order) the note's path without ``.md`` (``[[topics/sleep]]``), its file
name (``[[sleep]]``), or a front-matter alias — case-insensitively, and with names compared in
Unicode NFC (macOS writes file names decomposed: ``Café notes.md`` is ``Cafe\u0301 notes.md`` on
disk, and ``[[Café notes]]`` typed anywhere is composed). Two notes with one name:
the one in the linking note's own folder wins, else the first by path (a stable tie-break).
Links to attachments (``[[diagram.png]]``) are neither notes nor dead. Everything is
iterative (no recursion), so link cycles and long chains cost nothing special.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reverie.vault.parse import Link, Note

_ATTACHMENT = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".webp", ".mp3", ".mp4", ".canvas", ".excalidraw")


@dataclass(frozen=True, slots=True)
class DeadLink:
    """A link in ``source`` (at ``line``) whose ``target`` names no note."""

    source: str
    target: str
    line: int


class LinkGraph:
    """Resolved links among ``notes`` (each note once, by path)."""

    def __init__(self, notes: Sequence[Note], *, ignore: Iterable[tuple[str, Link]] = ()) -> None:
        self.notes = {n.path: n for n in sorted(notes, key=lambda n: n.path)}
        self._names: dict[str, list[tuple[str, str]]] = {}  # name → [(path, its folder)]
        for n in self.notes.values():
            for name in dict.fromkeys(map(link_key, (n.path[:-3], n.stem, *n.aliases))):
                self._names.setdefault(name, []).append((n.path, n.folder))
        skip = {(p, id(x)) for p, x in ignore}
        self.out: dict[str, set[str]] = {p: set() for p in self.notes}
        self.into: dict[str, set[str]] = {p: set() for p in self.notes}
        self.dead: list[DeadLink] = []
        for n in self.notes.values():
            for link in n.links:
                if (n.path, id(link)) in skip or _is_attachment(link.target):
                    continue
                target = self.resolve(link.target, n.folder)
                if target is None:
                    self.dead.append(DeadLink(n.path, link.target, link.line))
                elif target != n.path:
                    self.out[n.path].add(target)
                    self.into[target].add(n.path)

    def resolve(self, target: str, from_folder: str = "") -> str | None:
        """The path ``target`` names, or None."""
        found = self._names.get(link_key(target.strip()))
        if not found:
            return None
        return next((p for p, folder in found if folder == from_folder), found[0][0])

    def neighbours(self, path: str) -> set[str]:
        """Notes linked to or from ``path``."""
        return self.out[path] | self.into[path]

    def components(self) -> list[list[str]]:
        """Connected components of the undirected graph, largest first (ties: by first path)."""
        seen: set[str] = set()
        comps: list[list[str]] = []
        for start in self.notes:
            if start in seen:
                continue
            seen.add(start)
            stack, comp = [start], []
            while stack:
                p = stack.pop()
                comp.append(p)
                for q in self.neighbours(p):
                    if q not in seen:
                        seen.add(q)
                        stack.append(q)
            comps.append(sorted(comp))
        return sorted(comps, key=lambda c: (-len(c), c[0]))

    def health(self) -> float:
        """The share of notes in the largest connected component (1.0 for an empty vault)."""
        if not self.notes:
            return 1.0
        return len(self.components()[0]) / len(self.notes)


def link_key(name: str) -> str:
    """The form a link target and a note name are compared in: NFC, lower case."""
    return unicodedata.normalize("NFC", name).lower()


def _is_attachment(target: str) -> bool:
    return target.lower().endswith(_ATTACHMENT)
