"""The vault as read now: every note parsed, every file skipped with its reason.

Read once per call that needs the whole vault (index, report, gaps), so every tool answers
from one consistent reading of the folder.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reverie.vault.files import RawNote, Skip, read_note, walk
from reverie.vault.graph import LinkGraph
from reverie.vault.parse import Note, parse_note

#: How far ahead of the clock a front-matter date may lie before it is reported (time zones).
_AHEAD = timedelta(days=1)


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

    def problems(self, path: str, now: datetime) -> list[str]:
        """What is wrong with the note: its parse's problems, and a date more than a day ahead of
        ``now`` (the index dates such a note ``now``; a day's slack is for time zones)."""
        out = list(self.notes[path].problems)
        dated = self.notes[path].dated
        if dated is not None and dated > now + _AHEAD:
            out.append(
                f"front matter date {dated.date().isoformat()} is in the future; the note is dated now "
                "(fix the date in its front matter)"
            )
        return out

    def sha(self, path: str) -> str:
        return hashlib.sha256(self.raw[path].text.encode()).hexdigest()

    @property
    def graph(self) -> LinkGraph:
        if self._graph is None:
            self._graph = LinkGraph(list(self.notes.values()))
        return self._graph


#: path → ((mtime_ns, size), the reading, the parse): what a ``Vault`` keeps between calls.
Cache = dict[str, tuple[tuple[int, int], RawNote, Note]]


def read_corpus(root: Path, max_bytes: int, cache: Cache | None = None) -> Corpus:
    """Read and parse every note under ``root`` (bad files become ``Skip`` rows, never errors).

    With ``cache``, a file whose mtime (ns) and size are unchanged is not read or parsed again:
    a 5,000-note vault is then 5,000 ``stat`` calls, not 5,000 reads and parses.
    """
    corpus = Corpus()
    for rel, full in walk(root):
        got = read_cached(root, rel, full, max_bytes, cache)
        if isinstance(got, Skip):
            corpus.skipped.append(got)
        else:
            corpus.raw[rel], corpus.notes[rel] = got
    if cache is not None:
        for gone in set(cache) - set(corpus.raw):
            del cache[gone]
    return corpus


def read_cached(root: Path, rel: str, full: Path, max_bytes: int, cache: Cache | None) -> tuple[RawNote, Note] | Skip:
    """One note through ``cache`` (symlinks are always checked again by ``read_note``)."""
    key: tuple[int, int] | None = None
    if cache is not None and not full.is_symlink():
        try:
            st = full.stat()
        except OSError:
            st = None
        if st is not None:
            key = (st.st_mtime_ns, st.st_size)
            hit = cache.get(rel)
            if hit is not None and hit[0] == key:
                return hit[1], hit[2]
    got = read_note(root, rel, full, max_bytes)
    if isinstance(got, Skip):
        return got
    note = parse_note(rel, got.text)
    if cache is not None and key is not None:
        cache[rel] = (key, got, note)
    return got, note
