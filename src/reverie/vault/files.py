"""Reading the vault's files without ever leaving it.

Every path a caller gives is checked here (``note_path``): relative, no ``..``, no ``.git``, and
its real path (symlinks resolved) inside the vault. Walking (``walk``) never follows a directory
symlink and skips a file symlink whose target lies outside. Reading (``read_note``) checks the
size *before* reading, so a 50 MB note costs one ``stat``, and refuses binary content named
``.md``. Nothing here evaluates or executes note content.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reverie.vault.errors import VaultPathError

#: Notes larger than this are skipped and reported (a wiki page is rarely over a few dozen KB).
DEFAULT_MAX_NOTE_BYTES = 1_000_000
#: A file or folder name longer than this (UTF-8 bytes) is refused up front: the file system would
#: refuse it midway (``NAME_MAX``), after a half-done write.
MAX_NAME_BYTES = 255
#: A whole note path longer than this (UTF-8 bytes) is refused: well under ``PATH_MAX`` once joined to the root.
MAX_PATH_BYTES = 1024
_SNIFF = 8192


@dataclass(frozen=True, slots=True)
class Skip:
    """A file the vault did not read, and why (shown by ``index_status`` and the report)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class RawNote:
    """One note's text as read from disk, with what indexing and dating need."""

    path: str  # POSIX, relative to the vault root
    text: str
    mtime: float
    size: int


def note_path(root: Path, path: str | os.PathLike[str]) -> str:
    """``path`` as a POSIX path relative to ``root``, or ``VaultPathError`` if it could leave it."""
    raw = os.fspath(path)
    if not isinstance(raw, str) or not raw or "\x00" in raw or "\\" in raw:
        raise VaultPathError(f"note path {raw!r} is not a plain relative path; give e.g. 'topics/idea.md'")
    if not raw.isprintable():
        raise VaultPathError(f"note path {raw!r} holds control characters; give a plain name such as 'topics/idea.md'")
    try:
        encoded = raw.encode("utf-8")
    except UnicodeEncodeError:
        raise VaultPathError(f"note path {raw!r} is not valid Unicode text (a lone surrogate?); fix the name") from None
    rel = PurePosixPath(raw)
    if len(encoded) > MAX_PATH_BYTES or any(len(p.encode()) > MAX_NAME_BYTES for p in rel.parts):
        raise VaultPathError(
            f"note path {raw[:60]!r}… is too long: at most {MAX_NAME_BYTES} bytes a name and {MAX_PATH_BYTES} "
            "bytes in all; give a shorter name"
        )
    if rel.is_absolute():
        raise VaultPathError(f"note path {raw!r} is absolute; give a path relative to the vault root")
    if any(part in ("..", ".git") for part in rel.parts):
        raise VaultPathError(f"note path {raw!r} climbs out with '..' or names .git; give a path inside the vault")
    if rel.suffix.lower() != ".md":
        raise VaultPathError(f"note path {raw!r} is not a Markdown note; notes end in .md")
    real = (root / rel).resolve()
    if not real.is_relative_to(root.resolve()):
        raise VaultPathError(f"note path {raw!r} resolves outside the vault (a symlink?); it is not read or written")
    return rel.as_posix()


def through_symlink(root: Path, rel: str) -> str | None:
    """The first part of ``rel`` (a checked note path) that is a symlink on disk, or None.

    A write follows no symlink (a folder or the note itself): ``people/eve -> ../curated`` would
    otherwise put an agent's note into ``curated/``, and git refuses a path beyond a symlink.
    """
    here = root
    for part in PurePosixPath(rel).parts:
        here = here / part
        if here.is_symlink():
            return here.relative_to(root).as_posix()
    return None


def walk(root: Path) -> Iterator[tuple[str, Path]]:
    """Every ``.md`` file under ``root`` as (relative POSIX path, absolute path), sorted.

    Hidden folders (``.git``, ``.obsidian``) are skipped; directory symlinks are never followed
    (``os.walk(followlinks=False)``); file symlinks are yielded and checked by ``read_note``.
    """
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.lower().endswith(".md") and not name.startswith("."):
                full = Path(dirpath) / name
                yield full.relative_to(root).as_posix(), full


def read_note(root: Path, rel: str, full: Path, max_bytes: int) -> RawNote | Skip:
    """The note's text, or a ``Skip`` saying why it was not read (never raises for bad content)."""
    try:
        if full.is_symlink() and not full.resolve().is_relative_to(root.resolve()):
            return Skip(rel, "symlink leads outside the vault: not followed")
        st = full.stat()
        if st.st_size > max_bytes:
            return Skip(rel, f"{st.st_size} bytes is over the size cap of {max_bytes} bytes")
        with full.open("rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        return Skip(rel, f"unreadable: {exc.strerror or type(exc).__name__}")
    if b"\x00" in data[:_SNIFF]:
        return Skip(rel, "binary content (NUL bytes) in a file named .md")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Skip(rel, "not UTF-8 text")
    return RawNote(rel, text.replace("\r\n", "\n"), st.st_mtime, st.st_size)
