"""The facade (``Memory``) and its capabilities, one module each.

``facade`` wires; ``core`` is the state they share; ``writes``, ``reads``, ``retrieval``,
``usage``, ``contradictions``, ``dreaming`` and ``maintenance`` are the capabilities;
``candidates`` checks a claim's fields for every write path (gists included).
"""

from reverie.memory.core import CONFLICTS_UNCHECKED, CONFLICTS_UNREAD
from reverie.memory.dreaming import DREAM_STOP_WAIT
from reverie.memory.facade import Memory
from reverie.memory.reads import History, Page
from reverie.memory.written import Contradiction, WriteResult

__all__ = [
    "CONFLICTS_UNCHECKED",
    "CONFLICTS_UNREAD",
    "DREAM_STOP_WAIT",
    "Contradiction",
    "History",
    "Memory",
    "Page",
    "WriteResult",
]
