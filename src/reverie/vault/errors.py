"""The vault's errors: each a ``ReverieError`` branch with its own stable ``code``.

Why new classes rather than plain ``InvalidInputError``: a face (CLI, MCP) and a script must be
able to tell "that path leaves the vault" from "that token is spent" without parsing messages.

    InvalidInputError
        VaultPathError        vault_path        a note path outside the vault, ``..``, absolute
        VaultAreaError        vault_area        a write into ``curated/`` or another person's area
    ConflictError
        PromotionTokenError   promotion_token   a wrong, reused, expired or mismatched token
        VaultConflictError    vault_conflict    a write onto a note with changes not committed yet
        VaultNameError        vault_name        a name another vault folder's notes already hold in the scope
"""

from __future__ import annotations

from reverie.errors import ConflictError, InvalidInputError


class VaultPathError(InvalidInputError):
    """A note path that is absolute, climbs with ``..``, or resolves outside the vault."""

    code = "vault_path"


class VaultAreaError(InvalidInputError):
    """A write the agent may not make: into ``curated/`` (people only) or another person's area."""

    code = "vault_area"


class PromotionTokenError(ConflictError):
    """A promotion token that does not confirm exactly this move (nothing was moved)."""

    code = "promotion_token"


class VaultConflictError(ConflictError):
    """A write onto a note whose text on disk (or staged) differs from its last commit: most
    likely a person's edit in progress, which the agent must neither destroy nor commit as its own."""

    code = "vault_conflict"


class VaultNameError(ConflictError):
    """A vault name given for this folder that another, still existing, vault folder already
    indexed its notes under in the scope: one would forget the other's notes on every index."""

    code = "vault_name"
