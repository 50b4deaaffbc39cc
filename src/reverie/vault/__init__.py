"""The vault: a git-backed Markdown wiki the agent reads and writes, and thinks over.

``Vault(path, memory=mem, scope=...)`` opens (or creates) a folder kept as a git repository,
indexes its notes into the memory as items of kind ``note``, and offers the thinking tools
(``relevant_notes``, ``coverage_gap``, ``find_gaps``, ``bridge_candidates``,
``extract_claims``, ``idea_methods``) and maintenance (``maintenance_report``,
``apply_suggestions``). It uses only ``Memory``'s public methods: the core does not know it.
"""

from reverie.vault.claims import ExtractedClaim
from reverie.vault.errors import (
    PromotionTokenError,
    VaultAreaError,
    VaultConflictError,
    VaultNameError,
    VaultPathError,
)
from reverie.vault.files import DEFAULT_MAX_NOTE_BYTES, Skip
from reverie.vault.graph import DeadLink
from reverie.vault.ideas import IdeaMethod
from reverie.vault.index import NOTE_KIND, IndexReport, notes_filter
from reverie.vault.maintain import MaintenanceReport, Suggestion
from reverie.vault.tools import Bridge, Coverage, Gaps, NoteHit, as_dict
from reverie.vault.vault import IndexStatus, SuggestionResult, Vault

__all__ = [
    "DEFAULT_MAX_NOTE_BYTES",
    "NOTE_KIND",
    "Bridge",
    "Coverage",
    "DeadLink",
    "ExtractedClaim",
    "Gaps",
    "IdeaMethod",
    "IndexReport",
    "IndexStatus",
    "MaintenanceReport",
    "NoteHit",
    "PromotionTokenError",
    "Skip",
    "Suggestion",
    "SuggestionResult",
    "Vault",
    "VaultAreaError",
    "VaultConflictError",
    "VaultNameError",
    "VaultPathError",
    "as_dict",
    "notes_filter",
]
