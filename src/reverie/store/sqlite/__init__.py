"""The SQLite backend (the embedded default)."""

from reverie.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
