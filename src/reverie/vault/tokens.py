"""Promotion tokens: one confirmation for exactly one move of one note by one person.

A token is bound to the note's path, the person whose area holds it, and the sha-256 of the
note's bytes when it was issued — so confirming a note and then editing it voids the
confirmation. It expires (``ttl``) and is single use. Only the token's hash is kept, in
``.git/reverie/tokens.json`` (never committed), rewritten atomically under the vault lock.
Tokens come from ``secrets`` on purpose: a seeded generator would make them guessable.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path

from reverie.vault.errors import PromotionTokenError

DEFAULT_TTL = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Grant:
    """What a token confirms (as stored: the token itself is never written down)."""

    token_sha: str
    note: str
    person: str
    content_sha: str
    expires_at: str
    used_at: str | None = None


def content_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class TokenBook:
    """The grants of one vault, in ``path`` (a JSON list)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def issue(self, note: str, person: str, sha: str, now: datetime, ttl: timedelta = DEFAULT_TTL) -> str:
        # The prefix keeps a token from starting with "-", which a command line reads as an option.
        token = "pt_" + secrets.token_urlsafe(24)
        grant = Grant(_sha(token), note, person, sha, (now + ttl).isoformat())
        self._save([*self._load(), grant])
        return token

    def check(self, token: object, note: str, sha: str, now: datetime) -> Grant:
        """The grant ``token`` holds for moving ``note`` at content ``sha``, or ``PromotionTokenError``."""
        if not isinstance(token, str) or not token:
            raise PromotionTokenError("the promotion token must be the string request_promotion returned")
        grant = next((g for g in self._load() if g.token_sha == _sha(token)), None)
        if grant is None:
            raise PromotionTokenError("unknown promotion token; ask the person to confirm with request_promotion")
        if grant.used_at is not None:
            raise PromotionTokenError(f"this token was already used at {grant.used_at}; request a new one")
        if datetime.fromisoformat(grant.expires_at) <= now:
            raise PromotionTokenError(f"this token expired at {grant.expires_at}; request a new one")
        if grant.note != note:
            raise PromotionTokenError(f"this token confirms {grant.note!r}, not {note!r}")
        if grant.content_sha != sha:
            raise PromotionTokenError(f"{note!r} changed since the token was issued; the person must confirm it again")
        return grant

    def spend(self, grant: Grant, now: datetime) -> None:
        rows = [
            Grant(**{**asdict(g), "used_at": now.isoformat()}) if g.token_sha == grant.token_sha else g
            for g in self._load()
        ]
        self._save(rows)

    def _load(self) -> list[Grant]:
        try:
            rows = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        return [Grant(**r) for r in rows]

    def _save(self, grants: list[Grant]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps([asdict(g) for g in grants], indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
