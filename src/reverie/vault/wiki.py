"""The wiki rules: areas, agent writes as commits, promotion to ``curated/`` by token.

Areas: ``curated/`` is written by people only (the agent reads it, never writes it);
``people/<person>/`` is where the agent writes for that person. Every agent write is one
commit whose message says what and why. A note moves from ``people/<person>/`` to
``curated/`` only with a token issued for exactly that move (``tokens``).
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path

from reverie.errors import InvalidInputError, NotFoundError
from reverie.vault.errors import VaultAreaError
from reverie.vault.gitrepo import GitRepo
from reverie.vault.tokens import TokenBook, content_sha

CURATED = "curated"
PEOPLE = "people"
_PERSON = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def check_person(person: object) -> str:
    if not isinstance(person, str) or not _PERSON.match(person):
        raise InvalidInputError(
            f"person {person!r} must be a short lower-case name (letters, digits, '-', '_'), e.g. 'alice'"
        )
    return person


def check_writable(rel: str, person: str) -> None:
    """The agent may write ``rel`` for ``person`` only inside ``people/<person>/``."""
    if rel.split("/", 1)[0] == CURATED:
        raise VaultAreaError(f"{rel!r} is in curated/, which only people write; write in people/{person}/")
    if not rel.startswith(f"{PEOPLE}/{person}/"):
        raise VaultAreaError(f"the agent writes for {person!r} only in people/{person}/, not {rel!r}")


def atomic_write(full: Path, text: str) -> None:
    """Write ``text`` to ``full`` via a temporary file and ``os.replace`` (never a torn note)."""
    full.parent.mkdir(parents=True, exist_ok=True)
    tmp = full.with_name(f".{full.name}.reverie-tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, full)


def check_text(text: object, max_bytes: int) -> str:
    if not isinstance(text, str):
        raise InvalidInputError("note text must be a string of Markdown")
    if "\x00" in text:
        raise InvalidInputError("note text contains NUL characters; notes are text, not binary")
    if len(text.encode()) > max_bytes:
        raise InvalidInputError(f"note text is over the vault's size cap of {max_bytes} bytes; split the note")
    return text


class Promotions:
    """``request`` issues a token; ``promote`` checks it and moves the note in one commit."""

    def __init__(self, repo: GitRepo, ttl: timedelta) -> None:
        self.repo = repo
        self.ttl = ttl
        self.book = TokenBook(repo.meta_dir / "tokens.json")

    def request(self, rel: str, person: str, now: datetime) -> str:
        if not rel.startswith(f"{PEOPLE}/{person}/"):
            raise VaultAreaError(f"{rel!r} is not in people/{person}/; only a person's own notes can be promoted")
        with self.repo.lock():
            return self.book.issue(rel, person, content_sha(self._bytes(rel)), now, self.ttl)

    def promote(self, rel: str, token: object, now: datetime) -> str:
        with self.repo.lock():
            grant = self.book.check(token, rel, content_sha(self._bytes(rel)), now)
            dst = f"{CURATED}/{rel.split('/', 2)[2]}"
            if (self.repo.root / dst).exists():
                raise VaultAreaError(f"{dst!r} already exists in curated/; a person must merge them by hand")
            (self.repo.root / dst).parent.mkdir(parents=True, exist_ok=True)
            # A plain rename, not ``git mv``: the note may be one a person wrote and never committed.
            os.replace(self.repo.root / rel, self.repo.root / dst)
            msg = f"promote {rel} to {dst}\n\nConfirmed by {grant.person} with a promotion token."
            try:
                self.repo.commit([rel, dst], msg, now)
            except Exception:
                os.replace(self.repo.root / dst, self.repo.root / rel)  # undone: a failed promotion changes nothing
                raise
            self.book.spend(grant, now)
            return dst

    def _bytes(self, rel: str) -> bytes:
        full = self.repo.root / rel
        if not full.is_file():
            raise NotFoundError(f"no note {rel!r} in the vault")
        return full.read_bytes()
