"""The one exception tree every public entry point raises from.

Callers catch ``ReverieError`` (or a branch) and switch on ``code``, which is stable across
releases; the message says what was wrong and how to fix it. No bare ``sqlite3`` error, no
``KeyError`` from a dict lookup, ever reaches a caller.

    ReverieError                      code
    ├── InvalidInputError             invalid_input        bad argument at the boundary
    │   ├── InvalidScopeError         invalid_scope
    │   ├── LimitExceededError        limit_exceeded       a Limits bound was crossed
    │   ├── InvalidQueryError         invalid_query        a malformed filter / sort
    │   ├── PortInUseError            port_in_use          a server's port is taken (pass --port)
    │   ├── InvalidSliceError         invalid_slice        a malformed / future / forging slice
    │   └── InvalidIdempotencyKeyError invalid_idempotency_key  empty, too long, not printable ASCII
    ├── NotFoundError                 not_found            unknown id in this scope
    ├── ConflictError                 conflict             the write contradicts state
    │   ├── VersionConflictError      version_conflict     expected_version mismatch
    │   ├── DismissedValueError       dismissed_value      value is tombstoned
    │   ├── LearningPausedError       learning_paused      scope paused
    │   ├── AlreadyClosedError        already_closed       item already forgotten/superseded
    │   ├── SliceConflictError        slice_conflict       slice claims collide with this scope's
    │   ├── InvalidTransitionError    invalid_transition   an intent/task move its status forbids
    │   ├── IdempotencyKeyReusedError idempotency_key_reused   the key names another request
    │   ├── IdempotencyInProgressError idempotency_in_progress the key's first request is not done
    │   └── IdempotencyUnavailableError idempotency_unavailable done once; its response is gone
    ├── EmbedderError                 embedder             model / endpoint failure
    │   └── EmbedderMismatchError     embedder_mismatch    store holds another model's vectors
    ├── ReaderError                   reader               the contradictions' second reader failed
    ├── StorageError                  storage              disk full, I/O error, locked too long
    │   └── CorruptStoreError         corrupt_store        schema or projection damage
    ├── ReadOnlyError                 read_only            a write to a store opened read-only
    ├── NotPermittedError             not_permitted        an operator operation asked by a principal
    └── ClosedError                   closed               the Memory was closed
"""

from __future__ import annotations


class ReverieError(Exception):
    """Base of every error reverie raises on purpose."""

    code: str = "reverie_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """The JSON shape every face (CLI, MCP, HTTP) reports errors in."""
        return {"code": self.code, "error": self.message}


class InvalidInputError(ReverieError, ValueError):
    code = "invalid_input"


class InvalidScopeError(InvalidInputError):
    code = "invalid_scope"


class LimitExceededError(InvalidInputError):
    code = "limit_exceeded"


class InvalidQueryError(InvalidInputError):
    code = "invalid_query"


class PortInUseError(InvalidInputError):
    """A server (``reverie serve``, ``reverie mcp --http``) was asked for a port another one holds.

    Bad input, like any other argument that cannot be used (the fix is another ``--port``), with
    its own code so a script can tell it from a malformed option and retry on another port.
    """

    code = "port_in_use"


class InvalidSliceError(InvalidInputError):
    """A slice (``Memory.import_slice``) that cannot be read: malformed, of a newer format version,
    or forging trust (``source`` other than ``imported``, authority above the import cap)."""

    code = "invalid_slice"


class InvalidIdempotencyKeyError(InvalidInputError):
    """An idempotency key no store can keep reliably: empty, longer than 255 characters, or with a
    character outside printable ASCII (a control character, a space, a non-ASCII letter)."""

    code = "invalid_idempotency_key"


class NotFoundError(ReverieError, LookupError):
    code = "not_found"


class ConflictError(ReverieError):
    code = "conflict"


class VersionConflictError(ConflictError):
    code = "version_conflict"


class DismissedValueError(ConflictError):
    code = "dismissed_value"


class LearningPausedError(ConflictError):
    code = "learning_paused"


class AlreadyClosedError(ConflictError):
    code = "already_closed"


class SliceConflictError(ConflictError):
    """``import_slice(on_conflict="report")`` met claims of the slice that this scope already holds
    in another form; nothing was written. ``conflicts`` lists them (slice id, target id, why)."""

    code = "slice_conflict"

    def __init__(self, message: str, conflicts: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.conflicts = list(conflicts or [])


class InvalidTransitionError(ConflictError):
    """An intent or task move its current status does not allow (completing a pending task,
    resuming a cancelled intent). The message names the current status and the moves it allows."""

    code = "invalid_transition"


class IdempotencyKeyReusedError(ConflictError):
    """An idempotency key already used in this scope for a *different* request (another route,
    body or principal): nothing was written. A key names one request; send a new key. (HTTP: 409,
    like every conflict; this API answers no request with 422.)"""

    code = "idempotency_key_reused"


class IdempotencyInProgressError(ConflictError):
    """The first request with this idempotency key has not finished yet (or its write committed
    and its response is being recorded): nothing was written by this one. Retry shortly."""

    code = "idempotency_in_progress"


class IdempotencyUnavailableError(ConflictError):
    """The write of this idempotency key was done, once, but its response cannot be replayed: the
    server stopped between the commit and recording it, or a purge in the scope erased it (it may
    have quoted the purged text). The write is not repeated; read the scope to see its effect."""

    code = "idempotency_unavailable"


class EmbedderError(ReverieError):
    code = "embedder"


class EmbedderMismatchError(EmbedderError):
    code = "embedder_mismatch"


class ReaderError(ReverieError):
    """The second reader of contradictions (an NLI model) is missing or failed to load or run."""

    code = "reader"


class StorageError(ReverieError):
    code = "storage"


class CorruptStoreError(StorageError):
    code = "corrupt_store"


class ReadOnlyError(ReverieError):
    """A write (or an upkeep that writes) on a store opened with ``read_only=True``.

    Its own branch, not a ``StorageError``: the store is healthy and nothing failed; the caller
    asked for inspection only, and reopening without ``read_only`` is the fix.
    """

    code = "read_only"


class NotPermittedError(ReverieError):
    """An operation over the whole store (doctor, rebuild, reindex, backup) asked for by a caller
    acting as a principal, who may see only part of it (``reverie.model.visibility``)."""

    code = "not_permitted"


class ClosedError(ReverieError):
    code = "closed"


__all__ = [
    "AlreadyClosedError",
    "ClosedError",
    "ConflictError",
    "CorruptStoreError",
    "DismissedValueError",
    "EmbedderError",
    "EmbedderMismatchError",
    "IdempotencyInProgressError",
    "IdempotencyKeyReusedError",
    "IdempotencyUnavailableError",
    "InvalidIdempotencyKeyError",
    "InvalidInputError",
    "InvalidQueryError",
    "InvalidScopeError",
    "InvalidSliceError",
    "InvalidTransitionError",
    "LearningPausedError",
    "LimitExceededError",
    "NotFoundError",
    "NotPermittedError",
    "PortInUseError",
    "ReadOnlyError",
    "ReaderError",
    "ReverieError",
    "SliceConflictError",
    "StorageError",
    "VersionConflictError",
]
