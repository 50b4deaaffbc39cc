"""The vault as read now: every note parsed, every file skipped with its reason.

Read once per call that needs the whole vault (index, report, gaps), so every tool answers
from one consistent reading of the folder.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from reverie.vault.files import RawNote, Skip, read_note, walk
from reverie.vault.graph import LinkGraph
from reverie.vault.parse import Note, parse_note


@dataclass
class Corpus:
    """Parsed notes by path, their raw reading, and the files skipped."""

    notes: dict[str, Note] = field(default_factory=dict)
    raw: dict[str, RawNote] = field(default_factory=dict)
    skipped: list[Skip] = field(default_factory=list)
    _graph: LinkGraph | None = None

    def dated(self, path: str) -> datetime:
        """The note's date: its front matter's, else the file's mtime (UTC)."""
        note = self.notes[path]
        if note.dated is not None:
            return note.dated
        return datetime.fromtimestamp(self.raw[path].mtime, tz=UTC)

    def sha(self, path: str) -> str:
        return hashlib.sha256(self.raw[path].text.encode()).hexdigest()

    @property
    def graph(self) -> LinkGraph:
        if self._graph is None:
            self._graph = LinkGraph(list(self.notes.values()))
        return self._graph


def read_corpus(root: Path, max_bytes: int) -> Corpus:
    """Read and parse every note under ``root`` (bad files become ``Skip`` rows, never errors)."""
    corpus = Corpus()
    for rel, full in walk(root):
        got = read_note(root, rel, full, max_bytes)
        if isinstance(got, Skip):
            corpus.skipped.append(got)
        else:
            corpus.raw[rel] = got
            corpus.notes[rel] = parse_note(rel, got.text)
    return corpus
