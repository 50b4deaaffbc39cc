"""Slices: a self-contained piece of a scope handed to another agent and merged back (issue #18).

``format`` is the versioned JSON shape (pure); ``reverie.memory.slices`` exports and imports it
through ``Memory.export_slice`` / ``Memory.import_slice``.
"""

from reverie.errors import InvalidSliceError, SliceConflictError
from reverie.slice.agenda import SliceIntent, SliceMove, SliceTask
from reverie.slice.format import FORMAT, IMPORTED_AUTHORITY, ORIGIN_META, VERSION, Slice, SliceEdge, SliceItem
from reverie.slice.report import ON_CONFLICT, SliceReport

__all__ = [
    "FORMAT",
    "IMPORTED_AUTHORITY",
    "ON_CONFLICT",
    "ORIGIN_META",
    "VERSION",
    "InvalidSliceError",
    "Slice",
    "SliceConflictError",
    "SliceEdge",
    "SliceIntent",
    "SliceItem",
    "SliceMove",
    "SliceReport",
    "SliceTask",
]
