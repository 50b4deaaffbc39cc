"""reverie: a belief-state memory for AI agents.

Typed claims with provenance, graded scores, valid and record time, conflicts and a life of
their own — event-sourced on an embedded SQLite file. Start with ``Memory``.
"""

from reverie.conflict.alerts import Alert
from reverie.errors import (
    AlreadyClosedError,
    ClosedError,
    ConflictError,
    CorruptStoreError,
    DismissedValueError,
    EmbedderError,
    EmbedderMismatchError,
    InvalidInputError,
    InvalidQueryError,
    InvalidScopeError,
    InvalidSliceError,
    InvalidTransitionError,
    LearningPausedError,
    LimitExceededError,
    NotFoundError,
    NotPermittedError,
    PortInUseError,
    ReaderError,
    ReadOnlyError,
    ReverieError,
    SliceConflictError,
    StorageError,
    VersionConflictError,
)
from reverie.limits import Limits
from reverie.memory import Contradiction, History, Memory, Page, WriteResult
from reverie.model.clock import Clock, ManualClock, SystemClock
from reverie.model.events import Event
from reverie.model.item import Candidate, Edge, Item, Provenance, Scores
from reverie.model.query import Filter, Q
from reverie.recall.engine import Hit, RecallOptions, Weights
from reverie.store.protocol import DoctorReport

__version__ = "0.1.0"

__all__ = [
    "Alert",
    "AlreadyClosedError",
    "Candidate",
    "Clock",
    "ClosedError",
    "ConflictError",
    "Contradiction",
    "CorruptStoreError",
    "DismissedValueError",
    "DoctorReport",
    "Edge",
    "EmbedderError",
    "EmbedderMismatchError",
    "Event",
    "Filter",
    "History",
    "Hit",
    "InvalidInputError",
    "InvalidQueryError",
    "InvalidScopeError",
    "InvalidSliceError",
    "InvalidTransitionError",
    "Item",
    "LearningPausedError",
    "LimitExceededError",
    "Limits",
    "ManualClock",
    "Memory",
    "NotFoundError",
    "NotPermittedError",
    "Page",
    "PortInUseError",
    "Provenance",
    "Q",
    "ReadOnlyError",
    "ReaderError",
    "RecallOptions",
    "ReverieError",
    "Scores",
    "SliceConflictError",
    "StorageError",
    "SystemClock",
    "VersionConflictError",
    "Weights",
    "WriteResult",
    "__version__",
]
