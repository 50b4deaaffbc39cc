"""The wiki rules: areas, agent writes as commits, promotion to ``curated/`` by token.

Areas: ``curated/`` is written by people only (the agent reads it, never writes it);
``people/<person>/`` is where the agent writes for that person. Every agent write is one
commit whose message says what and why. A note moves from ``people/<person>/`` to
``curated/`` only with a token issued for exactly that move (``tokens``).
"""

from __future__ import annotations

import os
import re
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from reverie.errors import InvalidInputError, LimitExceededError, NotFoundError
from reverie.vault.errors import VaultAreaError
from reverie.vault.gitrepo import GitRepo
from reverie.vault.tokens import TokenBook, content_sha

CURATED = "curated"
PEOPLE = "people"
_PERSON = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: ``why`` goes into the commit message, an argument of ``git commit``: a page, not a book.
MAX_WHY_CHARS = 2000
#: A person's commits (their pending edit, kept before a promotion) are authored ``<person>@`` this.
PERSON_EMAIL_DOMAIN = "people.reverie.invalid"


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


def atomic_write(full: Path, text: str | bytes) -> None:
    """Write ``text`` to ``full`` via a temporary file and ``os.replace`` (never a torn note).

    The temporary file has a short hidden name of its own (``.rv-….tmp``, skipped by ``walk``),
    so a note whose name is near the file system's limit still gets one, and it is removed if
    anything fails before the rename.
    """
    full.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, name = tempfile.mkstemp(prefix=".rv-", suffix=".tmp", dir=full.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(name, full)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def check_text(text: object, max_bytes: int) -> str:
    if not isinstance(text, str):
        raise InvalidInputError("note text must be a string of Markdown")
    if "\x00" in text:
        raise InvalidInputError("note text contains NUL characters; notes are text, not binary")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"note text is not valid Unicode at character {exc.start} (a lone surrogate); notes are UTF-8 text"
        ) from None
    if size > max_bytes:
        raise InvalidInputError(f"note text is over the vault's size cap of {max_bytes} bytes; split the note")
    return text


def check_why(why: object) -> str:
    """``why``, stripped: words for the commit message (checked before anything is written)."""
    if not isinstance(why, str) or not why.strip():
        raise InvalidInputError("why must say, in words, why the agent writes this note")
    if len(why) > MAX_WHY_CHARS:
        raise LimitExceededError(f"why is {len(why)} characters, over {MAX_WHY_CHARS}; say it in a paragraph")
    if "\x00" in why:
        raise InvalidInputError("why contains a NUL character; give plain words")
    try:
        why.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"why is not valid Unicode at character {exc.start} (a lone surrogate)") from None
    return why.strip()


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
            before = self.repo.head()
            theirs = self._commit_pending(rel, grant.person, now)
            (self.repo.root / dst).parent.mkdir(parents=True, exist_ok=True)
            # A plain rename, not ``git mv``: the note may be one a person wrote and never committed.
            os.replace(self.repo.root / rel, self.repo.root / dst)
            msg = f"promote {rel} to {dst}\n\nConfirmed by {grant.person} with a promotion token."
            try:
                self.repo.commit([rel, dst], msg, now)
            except Exception:
                os.replace(self.repo.root / dst, self.repo.root / rel)  # undone: a failed promotion changes nothing
                if theirs is not None:
                    self.repo.undo_commit(theirs, before)
                self.repo.unstage([rel, dst])
                raise
            self.book.spend(grant, now)
            return dst

    def _commit_pending(self, rel: str, person: str, now: datetime) -> str | None:
        """Commit the note's uncommitted change (a person's hand edit) under ``person``'s name.

        Why a commit of its own: the move is the agent's, the text is not. ``person`` confirmed
        exactly this text with their token, so the history says they wrote it, and the agent's
        commit holds only the move. None when the note is as committed.
        """
        if not self.repo.pending([rel]):
            return None
        msg = (
            f"{person}'s uncommitted edit of {rel}, kept before its promotion\n\n"
            f"Committed by reverie under {person}'s name: {person} confirmed this exact text with a "
            "promotion token, and the agent did not write these changes."
        )
        return self.repo.commit([rel], msg, now, author=person, email=f"{person}@{PERSON_EMAIL_DOMAIN}")

    def _bytes(self, rel: str) -> bytes:
        full = self.repo.root / rel
        if not full.is_file():
            raise NotFoundError(f"no note {rel!r} in the vault")
        return full.read_bytes()
