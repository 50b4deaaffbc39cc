"""The refusal of a call that cannot run inside an open ``atomic`` block.

Why: the block holds one open write transaction on the store's connection until it ends.
``close()`` inside it closed that connection, so the block's end raised a raw driver error and its
writes were lost; SQLite's online backup inside it waited forever for the block's own write lock
(holding the file's lock all the while). Both are refused at once, before anything changes: the
block goes on (and commits) if the caller catches the refusal, and rolls back whole if not.
"""

from __future__ import annotations

from reverie.errors import ConflictError


def refused_in_block(call: str) -> ConflictError:
    """The ``ConflictError`` for ``call`` (such as ``"close()"``) made inside an open atomic block."""
    return ConflictError(
        f"{call} inside an open atomic block (`with mem.atomic(...)`): the block still holds its "
        f"uncommitted writes on this connection; call {call} after the block ends"
    )


def refused_in_snapshot() -> ConflictError:
    """The ``ConflictError`` for a write made inside an open ``read_snapshot`` block: the block is
    one read-only transaction (SQLite's read transaction, PostgreSQL's READ ONLY one)."""
    return ConflictError(
        "a write inside an open read_snapshot() block: the block reads one commit and writes nothing; "
        "write after the block ends"
    )


__all__ = ["refused_in_block", "refused_in_snapshot"]
